import { Model } from 'objection';
import { User } from './User.ts';
import { Workspace } from './Workspace.ts';

export class Membership extends Model {
  static tableName = 'memberships';
  // The table has no surrogate key: one row per (workspace, user).
  static idColumn = ['workspace_id', 'user_id'];

  declare workspace_id: string;
  declare user_id: string;
  declare role: string;
  declare created_at: number;

  declare workspace?: Workspace;
  declare user?: User;

  static relationMappings = () => ({
    workspace: {
      relation: Model.BelongsToOneRelation,
      modelClass: Workspace,
      join: { from: 'memberships.workspace_id', to: 'workspaces.id' },
    },
    user: {
      relation: Model.BelongsToOneRelation,
      modelClass: User,
      join: { from: 'memberships.user_id', to: 'users.id' },
    },
  });
}
