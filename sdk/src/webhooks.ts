// Webhook signatures (Standard Webhooks, https://www.standardwebhooks.com/, and the repository's
// docs/api.md#signing). Every delivery carries:
//   webhook-id              the delivery key (the same on retries and redeliveries of one message)
//   webhook-timestamp       Unix seconds when the attempt was signed
//   webhook-signature       "v1," + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`
//   webhook-body-signature  "v1," + base64 HMAC-SHA256 of the body alone
// For 24 hours after a secret is rotated both secrets sign, so each signature header may carry
// two space-separated entries. The HMAC key is the decoded bytes of a `whsec_<base64>` secret,
// else the secret's UTF-8 bytes.
// This module needs no client: `import { verifyWebhook } from '@sitehealth/sdk/webhooks'`. It uses
// Web Crypto (`globalThis.crypto.subtle`), so it runs unchanged in Node 20+, Deno, Bun, browsers
// and edge runtimes; Web Crypto is asynchronous, so verifying and signing return promises.
import { WebhookVerificationError } from './errors.js';
import type { components } from './generated/types.js';

export { WebhookVerificationError, type WebhookVerificationReason } from './errors.js';

type Schemas = components['schemas'];

/** The `data` of each event type, from the API's `...Data` models. */
export interface WebhookEventDataMap {
  'deploy.recorded': Schemas['DeployRecordedData'];
  'site_check.completed': Schemas['SiteCheckCompletedData'];
  'site_check.regression': Schemas['SiteCheckRegressionData'];
  'site_crawl.completed': Schemas['SiteCrawlCompletedData'];
  'site_crawl.regression': Schemas['SiteCrawlRegressionData'];
  'webhook.test': Schemas['WebhookTestData'];
}

// The compiler fails here when the API gains or loses an event type the map does not follow.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const EVERY_EVENT_TYPED: Same<keyof WebhookEventDataMap, Schemas['DeliveryEvent']> = true;
void EVERY_EVENT_TYPED;

/** One event of type `T`: the API's `EventEnvelope` with `data` typed for `T`. */
export type SiteHealthEventOf<T extends keyof WebhookEventDataMap> = Omit<Schemas['EventEnvelope'], 'type' | 'data'> & {
  type: T;
  data: WebhookEventDataMap[T];
};

/**
 * The body of every delivery, a union on `type`: after `if (event.type === 'site_check.regression')`
 * `event.data` is a `SiteCheckRegressionData`.
 */
export type SiteHealthEvent = { [T in keyof WebhookEventDataMap]: SiteHealthEventOf<T> }[keyof WebhookEventDataMap];

/** A Fetch `Headers`, or a plain object such as Node's `req.headers` (names in any case). */
export type HeadersInput = Headers | Record<string, string | string[] | undefined | null>;

/** The raw request body: a string or bytes (Node `Buffer`, `Uint8Array`, `ArrayBuffer`). */
export type RawBody = string | Uint8Array | ArrayBuffer;

export interface VerifyWebhookOptions {
  /** The webhook's signing secret (`whsec_...` or the secret you chose). */
  secret: string;
  headers: HeadersInput;
  /** The raw request body, exactly as received: verify before parsing, never a re-serialized object. */
  body: RawBody;
  /** Largest accepted distance between `webhook-timestamp` and now, in seconds; default 300. */
  toleranceSeconds?: number;
  /**
   * Reject a request without `webhook-body-signature` (sitehealth always sends one; other
   * Standard Webhooks senders do not). Default false: the header is checked when present.
   */
  requireBodySignature?: boolean;
  /** Now, in Unix seconds (tests); default the clock. */
  now?: number;
}

const WHSEC_PREFIX = 'whsec_';
const utf8 = new TextEncoder();

/** Bytes over a plain ArrayBuffer, as Web Crypto takes them. */
type Bytes = Uint8Array<ArrayBuffer>;

/**
 * The HMAC key of a secret, as the server derives it: for `whsec_<base64>` the decoded bytes
 * (standard or URL-safe alphabet), otherwise (also when nothing decodes) the UTF-8 bytes.
 */
export function signingKey(secret: string): Bytes {
  if (typeof secret !== 'string' || secret === '') throw new WebhookVerificationError('invalid_secret', 'the signing secret is empty');
  if (secret.startsWith(WHSEC_PREFIX)) {
    const decoded = fromBase64(secret.slice(WHSEC_PREFIX.length));
    if (decoded.length > 0) return decoded;
  }
  return utf8.encode(secret);
}

/**
 * Verifies a delivery and resolves to its event, typed by `type`. Checks, in this order: the
 * headers are there; `webhook-timestamp` is within `toleranceSeconds` of now (a replay
 * otherwise); one of the entries of `webhook-signature` is the HMAC of
 * `<webhook-id>.<webhook-timestamp>.<body>` (several are accepted, as during a secret
 * rotation); when `webhook-body-signature` is present (or `requireBodySignature`), one of its
 * entries is the HMAC of the body alone; the body is an event. Signatures are checked by Web
 * Crypto's `verify`, in constant time. Rejects with `WebhookVerificationError` (with a
 * `reason`) otherwise.
 *
 * ```ts
 * app.post('/hooks/sitehealth', express.raw({ type: 'application/json' }), async (req, res) => {
 *   const event = await verifyWebhook({ secret: process.env.SITEHEALTH_WEBHOOK_SECRET!, headers: req.headers, body: req.body });
 *   if (event.type === 'site_check.regression') console.log(event.data.findings.length);
 *   res.sendStatus(204);
 * });
 * ```
 */
export async function verifyWebhook(opts: VerifyWebhookOptions): Promise<SiteHealthEvent> {
  const key = await hmacKey(signingKey(opts.secret));
  const id = requireHeader(opts.headers, 'webhook-id');
  const timestamp = requireHeader(opts.headers, 'webhook-timestamp');
  const signatures = requireHeader(opts.headers, 'webhook-signature');
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not Unix seconds');
  const tolerance = opts.toleranceSeconds ?? 300;
  const skew = (opts.now ?? Math.floor(Date.now() / 1000)) - Number(timestamp);
  if (skew > tolerance) throw new WebhookVerificationError('timestamp_too_old', `webhook-timestamp is ${skew} s old (more than ${tolerance} s)`);
  if (skew < -tolerance) throw new WebhookVerificationError('timestamp_too_new', `webhook-timestamp is ${-skew} s in the future (more than ${tolerance} s)`);
  const body = bytes(opts.body);
  if (!(await matchesAny(key, signatures, join(utf8.encode(`${id}.${timestamp}.`), body)))) {
    throw new WebhookVerificationError('invalid_signature', 'no signature in webhook-signature matches');
  }
  const bodySignatures = headerValue(opts.headers, 'webhook-body-signature')?.trim();
  if (bodySignatures || opts.requireBodySignature) {
    if (!bodySignatures) throw new WebhookVerificationError('missing_header', 'missing webhook-body-signature header');
    if (!(await matchesAny(key, bodySignatures, body))) {
      throw new WebhookVerificationError('invalid_body_signature', 'no signature in webhook-body-signature matches');
    }
  }
  return parseEvent(body);
}

/**
 * Checks `webhook-body-signature` (an HMAC of the body alone) and resolves to the event. It
 * carries no timestamp, so it does not protect against replays: prefer `verifyWebhook`, and use
 * this where only the body survives (a stored payload, `DeliveryAttemptDetail.payload`).
 */
export async function verifyBodySignature(opts: Omit<VerifyWebhookOptions, 'toleranceSeconds' | 'requireBodySignature' | 'now'>): Promise<SiteHealthEvent> {
  const key = await hmacKey(signingKey(opts.secret));
  const signatures = requireHeader(opts.headers, 'webhook-body-signature');
  const body = bytes(opts.body);
  if (!(await matchesAny(key, signatures, body))) {
    throw new WebhookVerificationError('invalid_body_signature', 'no signature in webhook-body-signature matches');
  }
  return parseEvent(body);
}

/**
 * The signing headers the service sends with `body`, for testing your receiver. `secret` may be
 * a list (the current one first): each header then carries one signature per secret, as after a
 * rotation. `timestamp` defaults to now (Unix seconds).
 */
export async function signWebhook(opts: { id: string; body: RawBody; secret: string | readonly string[]; timestamp?: number }): Promise<Record<
  'webhook-id' | 'webhook-timestamp' | 'webhook-signature' | 'webhook-body-signature',
  string
>> {
  const timestamp = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  const keys = await Promise.all((typeof opts.secret === 'string' ? [opts.secret] : opts.secret).map((s) => hmacKey(signingKey(s))));
  const body = bytes(opts.body);
  const signed = join(utf8.encode(`${opts.id}.${timestamp}.`), body);
  const sign = async (data: Bytes) => (await Promise.all(keys.map(async (k) => `v1,${toBase64(await hmac(k, data))}`))).join(' ');
  return {
    'webhook-id': opts.id,
    'webhook-timestamp': timestamp,
    'webhook-signature': await sign(signed),
    'webhook-body-signature': await sign(body),
  };
}

function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new WebhookVerificationError('invalid_secret', 'Web Crypto (globalThis.crypto.subtle) is not available in this runtime');
  return s;
}

function hmacKey(raw: Bytes): Promise<CryptoKey> {
  return subtle().importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

async function hmac(key: CryptoKey, data: Bytes): Promise<Bytes> {
  return new Uint8Array(await subtle().sign('HMAC', key, data));
}

/** True when one of the space-separated `v1,<base64>` entries is the HMAC of `data`. */
async function matchesAny(key: CryptoKey, header: string, data: Bytes): Promise<boolean> {
  let found = false;
  for (const entry of header.split(/\s+/)) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue; // other schemes (v1a, ...) are not ours
    const given = fromBase64(entry.slice(comma + 1));
    // Every entry is checked, so the time taken does not tell which one matched.
    if (given.length === 32 && (await subtle().verify('HMAC', key, given, data))) found = true;
  }
  return found;
}

function requireHeader(headers: HeadersInput, name: string): string {
  const value = headerValue(headers, name)?.trim();
  if (!value) throw new WebhookVerificationError('missing_header', `missing ${name} header`);
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

function bytes(body: RawBody): Bytes {
  if (typeof body === 'string') return utf8.encode(body);
  if (body instanceof Uint8Array) return new Uint8Array(body); // a copy: a Buffer may sit in a shared pool
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new WebhookVerificationError('invalid_body', 'body must be the raw request body (a string or bytes), not a parsed object');
}

function join(a: Bytes, b: Bytes): Bytes {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/**
 * Base64 as Node's Buffer reads it: the standard or URL-safe alphabet, padding optional,
 * characters outside the alphabet skipped.
 */
function fromBase64(text: string): Bytes {
  let clean = text.replace(/-/g, '+').replace(/_/g, '/').replace(/[^A-Za-z0-9+/]/g, '');
  if (clean.length % 4 === 1) clean = clean.slice(0, -1);
  const binary = atob(clean + '='.repeat((4 - (clean.length % 4)) % 4));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

function toBase64(data: Uint8Array): string {
  let binary = '';
  for (const b of data) binary += String.fromCharCode(b);
  return btoa(binary);
}

const isString = (v: unknown): v is string => typeof v === 'string';

function parseEvent(body: Bytes): SiteHealthEvent {
  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError('invalid_body', 'the body is not JSON');
  }
  const e = event as Record<string, unknown> | null;
  if (
    !e || typeof e !== 'object' || Array.isArray(e) || !isString(e.id) || !isString(e.type) || !isString(e.createdAt) ||
    !isString(e.workspaceId) || !e.data || typeof e.data !== 'object'
  ) {
    throw new WebhookVerificationError('invalid_body', 'the body is not a webhook event');
  }
  // Parsed JSON to the event union: the envelope is checked above, and the signature vouches for `data`.
  return e as unknown as SiteHealthEvent;
}

