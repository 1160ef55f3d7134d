import crypto from 'node:crypto';
import { ServiceUnavailable } from '../platform/index.ts';

/** A sealed secret as stored: `v1.<keyId>.<iv>.<tag>.<ciphertext>`, base64url parts. */
export type SealedSecret = string;

const VERSION = 'v1';
const IV_BYTES = 12;

interface Key {
  id: string;
  bytes: Buffer;
}

/** The server has no SECRETS_KEY, so nothing secret can be stored (503, nothing changed). */
export class SecretsUnavailable extends ServiceUnavailable {
  constructor() {
    super('This server has no SECRETS_KEY, so it cannot store a token or secret; ask the operator to set one.', 3600, 'secrets_unconfigured', 'Secrets key missing');
  }
}

/** A key's id: the first 8 hex digits of its SHA-256, so ids are stable and never configured by hand. */
function keyIdOf(bytes: Buffer): string {
  return crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 8);
}

/**
 * Seals with the first key, opens with whichever key a value names. Holds no plaintext beyond
 * the keys themselves.
 */
export class Keyring {
  private readonly keys: Key[];

  constructor(keys: readonly Buffer[]) {
    this.keys = keys.map((bytes) => ({ id: keyIdOf(bytes), bytes: Buffer.from(bytes) }));
  }

  /** Whether secrets can be sealed at all (SECRETS_KEY is set). */
  get configured(): boolean {
    return this.keys.length > 0;
  }

  /** The id of the key that seals now. */
  get currentKeyId(): string | null {
    return this.keys[0]?.id ?? null;
  }

  /** Seals `plaintext`; `context` (e.g. the row's id) must be given again to open it, so a sealed value copied to another row does not open. */
  seal(plaintext: string, context: string): SealedSecret {
    const key = this.keys[0];
    if (!key) throw new SecretsUnavailable();
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', key.bytes, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, key.id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  /** Opens a sealed value; throws when its key is not configured or the value was tampered with. */
  open(sealed: SealedSecret, context: string): string {
    const [version, keyId, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || body === undefined) throw new Error('not a sealed secret');
    const key = this.keys.find((k) => k.id === keyId);
    if (!key) throw new Error(`sealed with key ${keyId}, which SECRETS_KEY no longer lists`);
    const decipher = crypto.createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  /**
   * Whether `value` has the shape of a sealed value (whoever sealed it): tells a value sealed
   * already from one a previous release stored as it was.
   */
  static isSealed(value: string): boolean {
    return /^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]*$/.test(value);
  }

  /** Whether a sealed value was sealed by an older key (a rotation re-seals it). */
  isStale(sealed: SealedSecret): boolean {
    return sealed.split('.')[1] !== this.currentKeyId;
  }
}

const keyringsByKeys = new WeakMap<readonly Buffer[], Keyring>();

/**
 * The process's keyring for its configured SECRETS_KEY (config.secretsKeys): one per
 * configuration, shared by every domain that seals (connections, Search Console, two-step, SSO).
 */
export function keyringFor(config: { secretsKeys: readonly Buffer[] }): Keyring {
  let ring = keyringsByKeys.get(config.secretsKeys);
  if (!ring) keyringsByKeys.set(config.secretsKeys, (ring = new Keyring([...config.secretsKeys])));
  return ring;
}

/**
 * The warning the server and each worker log once at start without SECRETS_KEY (README,
 * Configuration): what is then stored unsealed, and what does not work at all; null with a key.
 */
export function missingKeyWarning(config: { secretsKeys: readonly Buffer[] }): string | null {
  if (config.secretsKeys.length > 0) return null;
  return (
    'SECRETS_KEY is not set: webhook signing secrets are stored unsealed (readable in the database and its backups), ' +
    'and connecting a repository or Search Console, two-step verification and single sign-on answer 503 secrets_unconfigured. ' +
    'Set it in production (openssl rand -base64 32), then run `npm run admin -- secrets reseal` to seal the webhook secrets stored so far.'
  );
}
