import crypto from 'node:crypto';
import { Keyring, type SealedSecret } from './keyring.ts';

/**
 * Seals values that only the holder of a credential may read again, under keys derived from the
 * credential itself (HKDF-SHA256). The credential is an API key, which is stored only as a
 * digest: the database alone (a dump, a backup, a read-only breach) opens nothing, and neither
 * does SECRETS_KEY. Used for the answers kept for idempotent requests (docs/api.md#idempotent-requests):
 * whoever repeats the request with the same API key gets the answer again, nobody else can.
 */
export class CredentialSeal {
  private readonly ring: Keyring;
  private readonly macKey: Buffer;

  /** `purpose` separates the keys of different uses of one credential. */
  constructor(credential: string, purpose: string) {
    this.ring = new Keyring([derive(credential, `${purpose} seal`)]);
    this.macKey = derive(credential, `${purpose} digest`);
  }

  /** As `Keyring.seal`: `context` must be given again to open. */
  seal(plaintext: string, context: string): SealedSecret {
    return this.ring.seal(plaintext, context);
  }

  /** As `Keyring.open`: throws for a value sealed under another credential or tampered with. */
  open(sealed: SealedSecret, context: string): string {
    return this.ring.open(sealed, context);
  }

  /**
   * A keyed digest (HMAC-SHA256, hex) of `text`: equal texts under one credential give equal
   * digests, and a digest stored without the credential cannot be used to test guesses of the
   * text (a request body may carry a secret of the caller's choosing).
   */
  digest(text: string): string {
    return crypto.createHmac('sha256', this.macKey).update(text, 'utf8').digest('hex');
  }
}

function derive(credential: string, info: string): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', credential, '', `sitehealth ${info}`, 32));
}
