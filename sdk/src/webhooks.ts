// Webhook signatures (Standard Webhooks, https://www.standardwebhooks.com/). Every delivery
// carries:
//   webhook-id              the delivery key (the same on retries of one delivery)
//   webhook-timestamp       Unix seconds when the attempt was signed
//   webhook-signature       "v1," + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`
//                           (several space-separated signatures may appear, e.g. during a rotation)
//   webhook-body-signature  "v1," + base64 HMAC-SHA256 of the body alone
// The HMAC key is the decoded bytes of a `whsec_<base64>` secret, else the secret's UTF-8 bytes.
// This module needs no client: `import { verifyWebhook } from '@sitehealth/sdk/webhooks'`.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import type { DeliveryEvent } from './types.js';

export { WebhookVerificationError } from './errors.js';

/** The JSON body of every delivery. */
export interface WebhookEventPayload<Data = Record<string, unknown>> {
  /** The event id (the same for every attempt and redelivery of one event). */
  id: string;
  type: DeliveryEvent;
  createdAt: string;
  workspaceId: string;
  data: Data;
}

/** A Fetch `Headers`, or a plain object such as Node's `req.headers` (names in any case). */
export type HeadersInput = Headers | Record<string, string | string[] | undefined | null>;

export interface VerifyWebhookOptions {
  /** The raw request body, exactly as received: verify before parsing, never a re-serialized object. */
  payload: string | Uint8Array;
  headers: HeadersInput;
  /** The webhook's signing secret (`whsec_...` or the secret you chose). */
  secret: string;
  /** Largest accepted distance between `webhook-timestamp` and now, in seconds; default 300. */
  toleranceSeconds?: number;
}

const WHSEC = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/** The HMAC key of a secret: the decoded bytes of `whsec_<base64>`, else the UTF-8 bytes. */
export function signingKey(secret: string): Buffer {
  if (typeof secret !== 'string' || secret === '') throw new WebhookVerificationError('the signing secret is empty');
  const m = WHSEC.exec(secret);
  return m ? Buffer.from(m[1], 'base64') : Buffer.from(secret, 'utf8');
}

/**
 * Checks a delivery's `webhook-signature` and `webhook-timestamp` and returns the parsed event.
 * Throws `WebhookVerificationError` when a header is missing, no signature matches (compared
 * in constant time), the timestamp is more than `toleranceSeconds` away from now (a replay),
 * or the body is not an event.
 *
 * ```ts
 * app.post('/hooks/sitehealth', express.raw({ type: 'application/json' }), (req, res) => {
 *   const event = verifyWebhook({ payload: req.body, headers: req.headers, secret: process.env.SITEHEALTH_WEBHOOK_SECRET! });
 *   res.sendStatus(204);
 * });
 * ```
 */
export function verifyWebhook<Data = Record<string, unknown>>(opts: VerifyWebhookOptions): WebhookEventPayload<Data> {
  const id = requireHeader(opts.headers, 'webhook-id');
  const timestamp = requireHeader(opts.headers, 'webhook-timestamp');
  const signatures = requireHeader(opts.headers, 'webhook-signature');
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not Unix seconds');
  const tolerance = opts.toleranceSeconds ?? 300;
  const skew = Math.floor(Date.now() / 1000) - Number(timestamp);
  if (skew > tolerance) throw new WebhookVerificationError('webhook-timestamp is too old');
  if (skew < -tolerance) throw new WebhookVerificationError('webhook-timestamp is too far in the future');
  const body = bytes(opts.payload);
  const expected = hmac(signingKey(opts.secret), Buffer.from(`${id}.${timestamp}.`, 'utf8'), body);
  if (!matchesAny(signatures, expected)) throw new WebhookVerificationError('no signature in webhook-signature matches');
  return parseEvent<Data>(body);
}

/**
 * Checks `webhook-body-signature` (an HMAC of the body alone) and returns the parsed event.
 * It carries no timestamp, so it does not protect against replays: prefer `verifyWebhook`,
 * and use this where only the body survives (e.g. a stored payload, a relay that drops headers
 * but `webhook-body-signature`).
 */
export function verifyBodySignature<Data = Record<string, unknown>>(opts: Omit<VerifyWebhookOptions, 'toleranceSeconds'>): WebhookEventPayload<Data> {
  const signatures = requireHeader(opts.headers, 'webhook-body-signature');
  const body = bytes(opts.payload);
  const expected = hmac(signingKey(opts.secret), body);
  if (!matchesAny(signatures, expected)) throw new WebhookVerificationError('no signature in webhook-body-signature matches');
  return parseEvent<Data>(body);
}

/**
 * The signing headers the service sends with `payload`, for testing your receiver. `timestamp`
 * defaults to now (Unix seconds).
 */
export function signWebhook(opts: { id: string; payload: string | Uint8Array; secret: string; timestamp?: number }): Record<
  'webhook-id' | 'webhook-timestamp' | 'webhook-signature' | 'webhook-body-signature',
  string
> {
  const timestamp = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  const key = signingKey(opts.secret);
  const body = bytes(opts.payload);
  return {
    'webhook-id': opts.id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${hmac(key, Buffer.from(`${opts.id}.${timestamp}.`, 'utf8'), body).toString('base64')}`,
    'webhook-body-signature': `v1,${hmac(key, body).toString('base64')}`,
  };
}

function hmac(key: Buffer, ...parts: Uint8Array[]): Buffer {
  const h = createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return h.digest();
}

/** True when one of the space-separated `v1,<base64>` entries equals `expected`. */
function matchesAny(header: string, expected: Buffer): boolean {
  let found = false;
  for (const entry of header.split(/\s+/)) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue; // other schemes (v1a, ...) are not ours
    const given = Buffer.from(entry.slice(comma + 1), 'base64');
    // Check every entry, so the time taken does not tell which one matched.
    if (given.length === expected.length && timingSafeEqual(given, expected)) found = true;
  }
  return found;
}

function requireHeader(headers: HeadersInput, name: string): string {
  const value = headerValue(headers, name)?.trim();
  if (!value) throw new WebhookVerificationError(`missing ${name} header`);
  return value;
}

function headerValue(headers: HeadersInput, name: string): string | undefined {
  if (typeof (headers as Headers)?.get === 'function') return (headers as Headers).get(name) ?? undefined;
  if (!headers || typeof headers !== 'object') return undefined;
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== name) continue;
    if (Array.isArray(v)) return v.join(' ');
    return v ?? undefined;
  }
  return undefined;
}

function bytes(payload: string | Uint8Array): Buffer {
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (payload instanceof Uint8Array) return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  throw new WebhookVerificationError('payload must be the raw body (a string or bytes), not a parsed object');
}

function parseEvent<Data>(body: Buffer): WebhookEventPayload<Data> {
  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
  const e = event as Partial<WebhookEventPayload<Data>> | null;
  if (!e || typeof e !== 'object' || typeof e.id !== 'string' || typeof e.type !== 'string') {
    throw new WebhookVerificationError('the body is not a webhook event');
  }
  return e as WebhookEventPayload<Data>;
}
