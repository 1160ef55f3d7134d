import crypto from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

// A software WebAuthn authenticator for tests: an ES256 (P-256) key pair from node:crypto, a
// discoverable credential, a signature counter, and the JSON a browser's
// `PublicKeyCredential.toJSON()` gives for `navigator.credentials.create()` (with a `none`
// attestation) and `navigator.credentials.get()`. It builds clientDataJSON and authenticatorData
// byte by byte, per WebAuthn Level 3 sections 5.8.1, 6.1 and 6.5, so the server's verifier sees
// what a real browser and authenticator would send.

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => crypto.createHash('sha256').update(data).digest();

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export interface CreationOptions {
  challenge: string;
  rp: { id: string };
  user: { id: string };
}

export interface RequestOptions {
  challenge: string;
  rpId: string;
}

export interface CeremonyOverrides {
  /** The page's origin as the browser reports it; default `https://<rp id>`. */
  origin?: string;
  /** Sign this challenge instead of the options' own (an answer meant for another ceremony). */
  challenge?: string;
  /** The user verified (PIN, biometrics); default true. */
  userVerified?: boolean;
  /** The RP ID whose hash goes into authenticatorData; default the options'. */
  rpId?: string;
}

export class SoftAuthenticator {
  readonly credentialId = crypto.randomBytes(32);
  private readonly keys = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  /** The signature counter; set it back to act as a cloned authenticator. */
  counter = 0;
  private userHandle: string | null = null;

  get id(): string {
    return b64url(this.credentialId);
  }

  /** The public key as a COSE_Key (RFC 9053): EC2, ES256, P-256, x and y. */
  private coseKey(): Uint8Array {
    const jwk = this.keys.publicKey.export({ format: 'jwk' });
    return isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
        [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
      ]),
    );
  }

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
  }

  private authenticatorData(rpId: string, flags: number, attested?: Uint8Array): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), counter, ...(attested ? [attested] : [])]);
  }

  /** `navigator.credentials.create({ publicKey })`, as `toJSON()` gives it. */
  register(options: CreationOptions, o: CeremonyOverrides = {}) {
    const rpId = o.rpId ?? options.rp.id;
    const clientDataJSON = this.clientData('webauthn.create', o.challenge ?? options.challenge, o.origin ?? `https://${options.rp.id}`);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, this.coseKey()]);
    const flags = FLAG_UP | FLAG_AT | (o.userVerified === false ? 0 : FLAG_UV);
    const authData = this.authenticatorData(rpId, flags, attested);
    const attestationObject = isoCBOR.encode(new Map<string, string | Map<string, never> | Uint8Array>([
      ['fmt', 'none'],
      ['attStmt', new Map<string, never>()],
      ['authData', new Uint8Array(authData)],
    ]));
    this.userHandle = options.user.id;
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: { credProps: { rk: true } },
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['internal', 'hybrid'],
      },
    };
  }

  /** `navigator.credentials.get({ publicKey })`, as `toJSON()` gives it; the counter moves first. */
  authenticate(options: RequestOptions, o: CeremonyOverrides = {}) {
    this.counter += 1;
    const rpId = o.rpId ?? options.rpId;
    const clientDataJSON = this.clientData('webauthn.get', o.challenge ?? options.challenge, o.origin ?? `https://${options.rpId}`);
    const authData = this.authenticatorData(rpId, FLAG_UP | (o.userVerified === false ? 0 : FLAG_UV));
    // ES256: ECDSA over authenticatorData || SHA-256(clientDataJSON), DER-encoded as node:crypto signs it.
    const signature = crypto.sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.keys.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
    };
  }
}
