import { Model } from 'objection';

export class ApiKey extends Model {
  static tableName = 'api_keys';

  declare id: string;
  declare user_id: string;
  /** Set for a key bound to one workspace. */
  declare workspace_id: string | null;
  declare name: string | null;
  /** SHA-256 hex of the key; the key itself is never stored. */
  declare key_hash: string;
  /** `sh_` + 5 characters: safe to show and log. */
  declare key_hint: string;
  /** Comma-separated scope names. */
  declare scopes: string;
  declare created_at: number;
  declare last_used_at: number | null;
  declare revoked_at: number | null;
}
