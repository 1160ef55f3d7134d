import { Model } from 'objection';

export class Session extends Model {
  static tableName = 'sessions';

  declare id: string;
  declare user_id: string;
  /** SHA-256 hex of the cookie's token; the token itself is only in the browser. */
  declare token_hash: string;
  declare method: string;
  declare user_agent: string | null;
  declare ip: string | null;
  declare created_at: number;
  declare last_seen_at: number;
  declare expires_at: number;
  declare revoked_at: number | null;
}

export class EmailToken extends Model {
  static tableName = 'email_tokens';

  declare id: string;
  declare user_id: string;
  declare purpose: 'verify_email' | 'reset_password';
  /** SHA-256 hex of the token; the token itself is only in the email. */
  declare token_hash: string;
  declare created_at: number;
  declare expires_at: number;
  declare used_at: number | null;
}

export class RecoveryCode extends Model {
  static tableName = 'recovery_codes';

  declare id: string;
  declare user_id: string;
  /** SHA-256 hex of the code without dashes, upper case. */
  declare code_hash: string;
  declare created_at: number;
  declare used_at: number | null;
}

/** The second step of a sign-in: the password was right, a code is still needed. */
export class SignInChallenge extends Model {
  static tableName = 'sign_in_challenges';

  declare id: string;
  declare user_id: string;
  declare token_hash: string;
  declare user_agent: string | null;
  declare ip: string | null;
  declare failures: number;
  declare created_at: number;
  declare expires_at: number;
  declare used_at: number | null;
}
