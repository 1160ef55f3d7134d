import { Model } from 'objection';

export class User extends Model {
  static tableName = 'users';

  declare id: string;
  declare account_id: string;
  /** Lower case. */
  declare email: string;
  declare created_at: number;
  /** scrypt digest (core/access/passwords.ts); null: the user cannot sign in with a password. */
  declare password_hash: string | null;
  declare email_verified_at: number | null;
  declare password_changed_at: number | null;
  /** The TOTP secret (base32), sealed with SECRETS_KEY; null: two-step verification is off. */
  declare two_step_secret: string | null;
  declare two_step_enabled_at: number | null;
  /** The last TOTP time step a code was accepted for: a code works once. */
  declare two_step_last_step: number | null;
  /** A secret being set up (sealed), until a code confirms it. */
  declare two_step_pending_secret: string | null;
}
