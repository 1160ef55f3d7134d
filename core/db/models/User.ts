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
}
