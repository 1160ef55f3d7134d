import { Model } from 'objection';

export class SsoSettingsRow extends Model {
  static tableName = 'sso_settings';
  static idColumn = 'account_id';

  declare account_id: string;
  declare issuer: string;
  declare client_id: string;
  /** Sealed with SECRETS_KEY (core/secrets); opened only to call the provider. */
  declare client_secret: string;
  /** SQLite answers 0 or 1. */
  declare required: boolean | number;
  declare created_at: number;
  declare updated_at: number;
}

export class SsoAttempt extends Model {
  static tableName = 'sso_attempts';

  declare id: string;
  declare account_id: string;
  /** SHA-256 hex of the state sent to the provider. */
  declare state_hash: string;
  /** SHA-256 hex of the browser's binding cookie. */
  declare binding_hash: string;
  declare nonce: string;
  /** The PKCE verifier, sealed with SECRETS_KEY. */
  declare code_verifier: string;
  declare created_at: number;
  declare expires_at: number;
  declare used_at: number | null;
}

export class SsoIdentity extends Model {
  static tableName = 'sso_identities';
  static idColumn = 'user_id';

  declare user_id: string;
  declare issuer: string;
  declare subject: string;
  declare first_signed_in_at: number;
}
