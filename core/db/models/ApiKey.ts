import { Model } from 'objection';
import { User } from './User.ts';
import { Workspace } from './Workspace.ts';

export class ApiKey extends Model {
  static tableName = 'api_keys';

  declare id: string;
  declare user_id: string;
  /** Set for a key bound to one workspace. */
  declare workspace_id: string | null;
  declare name: string | null;
  /** SHA-256 hex of the key; the key itself is never stored. */
  declare key_hash: string;
  declare key_hint: string;
  /** Comma-separated scope names. */
  declare scopes: string;
  declare created_at: number;
  declare last_used_at: number | null;
  declare revoked_at: number | null;

  declare user?: User;
  declare workspace?: Workspace | null;

  static relationMappings = () => ({
    user: {
      relation: Model.BelongsToOneRelation,
      modelClass: User,
      join: { from: 'api_keys.user_id', to: 'users.id' },
    },
    workspace: {
      relation: Model.BelongsToOneRelation,
      modelClass: Workspace,
      join: { from: 'api_keys.workspace_id', to: 'workspaces.id' },
    },
  });
}
