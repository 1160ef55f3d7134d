import { Model } from 'objection';

// No foreign key to workspaces: security rows outlive their workspace.
export class Activity extends Model {
  static tableName = 'activity';
  static jsonAttributes = ['details'];

  declare id: string;
  declare account_id: string | null;
  declare workspace_id: string | null;
  declare kind: 'webhook' | 'billing' | 'security' | 'connection' | 'digest';
  declare action: string;
  declare actor_type: 'user' | 'api_key' | 'session' | 'system';
  declare actor_id: string | null;
  declare actor_label: string | null;
  declare target_type: string | null;
  declare target_id: string | null;
  declare details: Record<string, unknown>;
  declare created_at: number;
}
