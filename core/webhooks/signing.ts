import crypto from 'node:crypto';

// Standard Webhooks signing (docs/api.md#signing), one pure function the SDK's verifier shares
// its test vectors with: `webhook-signature` signs `<webhook-id>.<webhook-timestamp>.<body>`,
// `webhook-body-signature` the body alone, each `v1,` + base64 HMAC-SHA256. During the 24 hours
// after a rotation both secrets sign, space-separated in each header, so receivers that still
// hold the old secret keep verifying.

export const SECRET_PREFIX = 'whsec_';

/** HMAC key of a secret: the decoded bytes of `whsec_<base64>`, otherwise its UTF-8 bytes. */
export function signingKey(secret: string): Buffer {
  if (secret.startsWith(SECRET_PREFIX)) {
    const decoded = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
    if (decoded.length > 0) return decoded;
  }
  return Buffer.from(secret, 'utf8');
}

/** A new secret: `whsec_` + base64 of 32 random bytes. */
export function generateSecret(): string {
  return SECRET_PREFIX + crypto.randomBytes(32).toString('base64');
}

function hmac(secret: string, content: string): string {
  return `v1,${crypto.createHmac('sha256', signingKey(secret)).update(content, 'utf8').digest('base64')}`;
}

export interface SigningInput {
  /** The current secret first; a rotated-out one second while it still signs. */
  secrets: readonly string[];
  /** The delivery key. */
  id: string;
  /** Unix seconds. */
  timestamp: number;
  body: string;
}

export function signatureHeaders(i: SigningInput): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature' | 'webhook-body-signature', string> {
  const ts = String(Math.floor(i.timestamp));
  return {
    'webhook-id': i.id,
    'webhook-timestamp': ts,
    'webhook-signature': i.secrets.map((s) => hmac(s, `${i.id}.${ts}.${i.body}`)).join(' '),
    'webhook-body-signature': i.secrets.map((s) => hmac(s, i.body)).join(' '),
  };
}

export function sha256Hex(body: string): string {
  return crypto.createHash('sha256').update(body, 'utf8').digest('hex');
}
