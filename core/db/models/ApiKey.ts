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
  /** The key's last 4 characters (checksum, no secret); null for keys created before it was kept. */
  declare key_last4: string | null;
  /** Refused with 401 key_expired from this time on; null: never. */
  declare expires_at: number | null;
  /** The key that replaced this one by a rotation. */
  declare replaced_by: string | null;
  /** When the first request after expiry wrote its api_key.expired activity row (once per key). */
  declare expiry_recorded_at: number | null;
}
