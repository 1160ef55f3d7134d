import { Model } from 'objection';
import { Account } from './Account.ts';

// No relation to workspaces on purpose: security rows outlive their workspace, so
// workspace_id may name a workspace that no longer exists.
export class Activity extends Model {
  static tableName = 'activity';

  declare id: string;
  declare account_id: string | null;
  declare workspace_id: string | null;
  declare kind: 'webhook' | 'billing' | 'security';
  declare action: string;
  declare actor_type: string;
  declare actor_id: string | null;
  declare actor_label: string | null;
  declare target_type: string | null;
  declare target_id: string | null;
  /** JSON text. */
  declare details: string;
  declare created_at: number;

  declare account?: Account;

  static relationMappings = () => ({
    account: {
      relation: Model.BelongsToOneRelation,
      modelClass: Account,
      join: { from: 'activity.account_id', to: 'accounts.id' },
    },
  });
}
