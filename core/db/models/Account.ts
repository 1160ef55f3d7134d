import { Model } from 'objection';
import { User } from './User.ts';
import { Workspace } from './Workspace.ts';

// A model describes a row for readable lookups; it carries no jsonSchema on purpose:
// the database schema lives in the migrations and input shapes in the TypeSpec contract.
export class Account extends Model {
  static tableName = 'accounts';

  declare id: string;
  declare workspace_limit: number;
  declare created_at: number;

  declare users?: User[];
  declare workspaces?: Workspace[];

  // Thunks: the related classes are only read when Objection first needs them, so the
  // circular imports between model files resolve.
  static relationMappings = () => ({
    users: {
      relation: Model.HasManyRelation,
      modelClass: User,
      join: { from: 'accounts.id', to: 'users.account_id' },
    },
    workspaces: {
      relation: Model.HasManyRelation,
      modelClass: Workspace,
      join: { from: 'accounts.id', to: 'workspaces.account_id' },
    },
  });
}
