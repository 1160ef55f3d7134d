import { Model } from 'objection';

export class Passkey extends Model {
  static tableName = 'passkeys';

  declare id: string;
  declare user_id: string;
  /** base64url credential id. */
  declare credential_id: string;
  /** base64url COSE public key. */
  declare public_key: string;
  declare counter: number;
  /** JSON array of transport names. */
  declare transports: string;
  declare name: string;
  declare device_type: 'singleDevice' | 'multiDevice';
  declare backed_up: boolean;
  declare created_at: number;
  declare last_used_at: number | null;
}

export class WebAuthnChallenge extends Model {
  static tableName = 'webauthn_challenges';

  declare id: string;
  declare purpose: 'registration' | 'sign_in';
  declare user_id: string | null;
  declare challenge: string;
  declare ip: string | null;
  declare created_at: number;
  declare expires_at: number;
  declare used_at: number | null;
}
