import { Webhook, WebhookDelivery, WebhookMessage, isForeignKeyViolation, isPostgres, runSql, withTransaction, type Db, type DbOrTrx } from '../db/index.ts';
import { enqueue } from '../jobs/index.ts';
import { markDispatched, readEvent } from '../events/index.ts';
import { FetchError, guardedFetch } from '../net/index.ts';
import { webhookDeliveryFailed, webhookDeliverySucceeded, webhookPaused, SYSTEM_ACTOR, type Actor } from '../activity/index.ts';
import { newId, nowMs, redactSecrets, toIso } from '../platform/index.ts';
import { keyringFor, type Keyring } from '../secrets/index.ts';
import { sha256Hex, signatureHeaders } from './signing.ts';
import { cancelPendingDeliveries, deliveryJobKey, openSecrets, type OpenedSecrets } from './webhooks.ts';

// The three steps of a webhook delivery, each idempotent so a crash between any two repeats
// nothing visible (Svix's shape): the event in the outbox (core/events), its fan-out into one
// message per subscribed webhook (fanOutEvent), and the attempts of each message
// (deliverMessage, sendTest, redeliver), each recorded with its outcome. The retry schedule owns
// retries: a failed attempt schedules the next one as a job of its own.

export interface DeliverySettings {
  /** Opens the webhooks' sealed signing secrets (SECRETS_KEY). */
  keyring: Keyring;
  allowPrivateNetwork: boolean;
  timeoutMs: number;
  /** Seconds before retry 1, 2, ...: attempts in all = 1 + its length. */
  retryScheduleSeconds: readonly number[];
  pauseAfterFailures: number;
  pauseAfterHours: number;
  signal?: AbortSignal;
  random?: () => number;
  /** Tests: extra trusted certificates (NODE_EXTRA_CA_CERTS works too). */
  ca?: string;
  /** Told of every recorded attempt once its transaction committed (the worker's metrics). */
  onAttempt?: DeliveryObserver;
  /** Operator log: a refused address is written here at debug level, never into the attempt. */
  log?: { debug(fields: object, message: string): void };
}

/**
 * What became of an attempt: `delivered` (2xx), `retrying` (failed, the next automatic attempt
 * is scheduled), `failed` (failed, none follows: the retry schedule is spent, or a test or
 * redelivery, which are never retried), `paused` (failed, and it paused the webhook).
 */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed' | 'paused';

export type DeliveryObserver = (outcome: DeliveryOutcome, durationMs: number) => void;

/** Response text kept per attempt. */
export const RESPONSE_TEXT_LIMIT = 500;
/** Response bytes read at most (the rest is not needed to judge the attempt). */
const RESPONSE_READ_LIMIT = 64 * 1024;

function newDeliveryKey(): string {
  return `msg_${newId().replace(/-/g, '')}`;
}

/** The body a webhook receives: `{ id, type, createdAt, workspaceId, data }`. */
export function eventBody(e: { id: string; type: string; createdAt: number; workspaceId: string; data: unknown }): string {
  return JSON.stringify({ id: e.id, type: e.type, createdAt: toIso(e.createdAt), workspaceId: e.workspaceId, data: e.data });
}

/**
 * One message per active webhook of the event's workspace that subscribes to its type, in one
 * transaction; then the event counts as dispatched. Running it again adds nothing (one message
 * per event and webhook, by a unique index). Returns the messages whose first attempt is to be
 * made, which the fan-out job makes at once: no second job hop between an event and its
 * delivery. If that worker dies first, the fan-out job runs again (its lease expires) and this
 * returns the messages still without an attempt.
 */
export async function fanOutEvent(db: Db, eventId: string): Promise<Array<{ message: WebhookMessage; webhook: Webhook }>> {
  return withTransaction(db, async (trx) => {
    const event = await readEvent(trx, eventId);
    if (!event) return [];
    if (event.dispatched_at !== null) {
      // Run again after its worker died: the messages whose first attempt was never made.
      const waiting = await WebhookMessage.query(trx)
        .where({ event_id: eventId, state: 'pending' })
        .whereNotExists(WebhookDelivery.query(trx).whereColumn('webhook_deliveries.message_id', 'webhook_messages.id'));
      const hooks = new Map((await Webhook.query(trx).whereIn('id', waiting.map((m) => m.webhook_id))).map((w) => [w.id, w]));
      return waiting.flatMap((message) => (hooks.has(message.webhook_id) ? [{ message, webhook: hooks.get(message.webhook_id)! }] : []));
    }
    const hooks = (await Webhook.query(trx).where({ workspace_id: event.workspace_id, active: true })).filter((w) => w.events.includes(event.type));
    // Nobody listens: nothing to write (dispatched_at only tells a re-run to look for messages).
    if (hooks.length === 0) return [];
    const body = eventBody({ id: event.id, type: event.type, createdAt: Number(event.created_at), workspaceId: event.workspace_id, data: event.data });
    const hash = sha256Hex(body);
    const rows = hooks.map((webhook) => ({ id: newId(), webhook_id: webhook.id, workspace_id: webhook.workspace_id, event_id: event.id, event: event.type, delivery_key: newDeliveryKey(), payload: body, body_hash: hash, state: 'pending' as const, created_at: nowMs() }));
    // One statement for every webhook; plain Knex because Objection cannot tell which rows an
    // insert that ignores conflicts inserted (nor insert several rows on SQLite).
    const inserted = rows.length
      ? new Set(((await trx('webhook_messages').insert(rows).onConflict(['event_id', 'webhook_id']).ignore().returning(['id'])) as Array<{ id: string }>).map((r) => r.id))
      : new Set<string>();
    const created = rows.flatMap((row, i) => (inserted.has(row.id) ? [{ message: WebhookMessage.fromJson(row, { skipValidation: true }), webhook: hooks[i] }] : []));
    await markDispatched(trx, eventId);
    return created;
  });
}

interface Exchange {
  status: 'success' | 'failed';
  responseStatus: number | null;
  responseBody: string | null;
  durationMs: number;
  /** Seconds the receiver asked us to wait (Retry-After on 429 or 503). */
  retryAfterSeconds: number | null;
  error: string | null;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The spellings of a sent secret a receiver may echo: as sent, JSON-escaped (a JSON body quoting
 * a header with `"` or `\\` in it) and percent-encoded. Matched exactly, at any length: a short
 * value is as secret as a long one.
 */
function echoedForms(value: string): string[] {
  return [...new Set([value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)])];
}

/** Response text as stored: 500 characters, the secrets and custom header values replaced. */
function redactedText(text: string, webhook: Webhook, secrets: OpenedSecrets): string {
  const sent = [...secrets.all, ...webhook.headers.map(([, v]) => v)].filter((s) => !!s);
  // One pass, longest first: a value containing another is replaced whole, and a short value
  // never matches inside a [REDACTED] already written.
  const hidden = [...new Set(sent.flatMap(echoedForms))].sort((a, b) => b.length - a.length);
  const out = hidden.length ? text.replace(new RegExp(hidden.map(escapeRegExp).join('|'), 'g'), '[REDACTED]') : text;
  return redactSecrets(out).slice(0, RESPONSE_TEXT_LIMIT);
}

function retryAfter(value: string | string[] | undefined, now: number): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, Math.round((at - now) / 1000)) : null;
}

/** Sends one message once: signed, to the checked address, no redirects followed. */
async function send(webhook: Webhook, message: WebhookMessage, s: DeliverySettings): Promise<Exchange> {
  const now = nowMs();
  let secrets: OpenedSecrets;
  try {
    // Opened per attempt, never cached: an AES-GCM open is some 20 µs against an HTTPS exchange.
    secrets = openSecrets(webhook, s.keyring, now);
  } catch {
    // Sealed, but SECRETS_KEY is unset or no longer lists the key that sealed it: nothing can be
    // signed, so nothing is sent, and the attempt fails like any other (retries, pause rule)
    // until the key is back or the secret is rotated (docs/operating.md#rotating-secrets_key).
    const error = s.keyring.configured
      ? "the webhook's signing secret cannot be opened: SECRETS_KEY does not list the key that sealed it"
      : "the webhook's signing secret is sealed, and this process has no SECRETS_KEY to open it";
    return { status: 'failed', responseStatus: null, responseBody: error, durationMs: 0, retryAfterSeconds: null, error };
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of webhook.headers) headers[name] = value;
  Object.assign(headers, signatureHeaders({ secrets: secrets.signing, id: message.delivery_key, timestamp: now / 1000, body: message.payload }));
  const started = performance.now();
  try {
    const res = await guardedFetch(webhook.url, {
      method: 'POST',
      headers,
      body: message.payload,
      httpsOnly: true,
      followRedirects: false,
      allowPrivateNetwork: s.allowPrivateNetwork,
      timeoutMs: s.timeoutMs,
      maxBodyBytes: RESPONSE_READ_LIMIT,
      truncate: true,
      signal: s.signal,
      ca: s.ca,
    });
    const ok = res.status >= 200 && res.status < 300;
    return {
      status: ok ? 'success' : 'failed',
      responseStatus: res.status,
      responseBody: redactedText(res.body.toString('utf8'), webhook, secrets),
      durationMs: Math.round(performance.now() - started),
      retryAfterSeconds: res.status === 429 || res.status === 503 ? retryAfter(res.headers['retry-after'], nowMs()) : null,
      error: ok ? null : `the receiver answered ${res.status}`,
    };
  } catch (err) {
    if (!(err instanceof FetchError) || err.code === 'aborted') throw err;
    if (err.refusedAddress) s.log?.debug({ webhookId: webhook.id, refusedAddress: err.refusedAddress }, 'webhook receiver refused: not a public address');
    return { status: 'failed', responseStatus: null, responseBody: redactedText(err.message, webhook, secrets), durationMs: Math.round(performance.now() - started), retryAfterSeconds: null, error: redactedText(err.message, webhook, secrets) };
  }
}

/** The delay before retry `n` (1-based): the schedule's, within ±10% jitter, or the receiver's Retry-After within the schedule's bounds. */
function retryDelayMs(n: number, x: Exchange, s: DeliverySettings): number {
  const schedule = s.retryScheduleSeconds;
  const planned = schedule[n - 1] * 1000;
  if (x.retryAfterSeconds !== null) {
    const min = Math.min(...schedule) * 1000;
    const max = Math.max(...schedule) * 1000;
    return Math.min(max, Math.max(min, x.retryAfterSeconds * 1000));
  }
  return Math.round(planned * (0.9 + 0.2 * (s.random ?? Math.random)()));
}

type Origin = WebhookDelivery['origin'];

interface Streak {
  failure_count: number;
  failing_since: number | null;
  active: boolean;
  workspace_id: string;
}

/**
 * Records an attempt with its consequences, in one transaction: the attempt row (numbered after
 * the message's last), the webhook's failure streak and last attempt time, the pause rule, the
 * next attempt of an automatic delivery, and the activity rows. The message row is locked (its
 * attempts are numbered one after the other); the webhook row only from its update on, so
 * deliveries of other messages to the same webhook overlap as much as they can.
 */
async function record(db: Db, webhookId: string, message: WebhookMessage, x: Exchange, origin: Origin, s: DeliverySettings, actor: Actor): Promise<WebhookDelivery | null> {
  let outcome: DeliveryOutcome = 'failed';
  const row = await withTransaction(db, async (trx) => {
    const now = nowMs();
    // SQL text (runSql) for a row lock and a counting upsert, measured in bench:webhooks.
    // The message row locked first, then its attempts counted in a statement of their own: on
    // PostgreSQL a statement that waited for the lock still reads with the snapshot it began
    // with, so counting in the locking statement would miss the attempt whose transaction the
    // wait was for, and two redeliveries would take the same number. (SQLite writes one
    // transaction at a time: the lock is the database's.)
    if (isPostgres(trx)) {
      const locked = await runSql<{ id: string }>(trx, 'SELECT id FROM webhook_messages WHERE id = ? FOR UPDATE', [message.id]);
      if (!locked.length) return null; // deleted with its webhook while we sent
    }
    const [counts] = await runSql<{ last: number | null; automatic: number | string | null }>(
      trx,
      `SELECT (SELECT MAX(attempt) FROM webhook_deliveries d WHERE d.message_id = m.id) AS last,
              (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.message_id = m.id AND d.origin IN ('event', 'retry')) AS automatic
       FROM webhook_messages m WHERE m.id = ?`,
      [message.id],
    );
    if (!counts) return null; // deleted with its webhook while we sent
    const attempt = Number(counts?.last ?? 0) + 1;
    const automatic = origin === 'event' || origin === 'retry';
    const failed = x.status === 'failed';
    // One statement moves the streak and returns it, so concurrent attempts count each other.
    const [streak] = await runSql<Streak>(
      trx,
      `UPDATE webhooks SET
         failure_count = CASE WHEN ? = 1 THEN failure_count + 1 ELSE 0 END,
         failing_since = CASE WHEN ? = 1 THEN COALESCE(failing_since, CAST(? AS BIGINT)) ELSE NULL END,
         last_triggered_at = CAST(? AS BIGINT)
       WHERE id = ?
       RETURNING failure_count, failing_since, active, workspace_id`,
      [failed ? 1 : 0, failed ? 1 : 0, now, now, webhookId],
    );
    if (!streak) return null;
    const failureCount = Number(streak.failure_count);
    const gone = x.responseStatus === 410;
    const streakOld = streak.failing_since !== null && now - Number(streak.failing_since) >= s.pauseAfterHours * 3_600_000;
    const pause = Boolean(streak.active) && failed && (gone || (failureCount >= s.pauseAfterFailures && streakOld));

    const automaticSoFar = Number(counts?.automatic ?? 0);
    const retry = automatic && failed && !pause && automaticSoFar + 1 < 1 + s.retryScheduleSeconds.length;
    const nextRetryAt = retry ? now + retryDelayMs(automaticSoFar + 1, x, s) : null;
    const row = await WebhookDelivery.query(trx).insert({
      id: newId(),
      message_id: message.id,
      webhook_id: webhookId,
      event: message.event,
      delivery_key: message.delivery_key,
      attempt,
      origin,
      status: x.status,
      response_status: x.responseStatus,
      response_body: x.responseBody,
      duration_ms: x.durationMs,
      body_hash: message.body_hash,
      next_retry_at: nextRetryAt,
      created_at: now,
    });
    if (automatic) {
      await WebhookMessage.query(trx).findById(message.id).patch({ state: x.status === 'success' ? 'delivered' : retry ? 'pending' : 'failed' });
      if (retry) await enqueue(trx, 'webhook_delivery', { messageId: message.id, attempt: automaticSoFar + 2 }, { runAt: nextRetryAt!, dedupeKey: deliveryJobKey(message.id, automaticSoFar + 2), workspaceId: message.workspace_id });
    } else if (x.status === 'success' && message.state !== 'once') {
      await WebhookMessage.query(trx).findById(message.id).whereIn('state', ['failed', 'cancelled']).patch({ state: 'delivered' });
    }
    const fields = {
      workspaceId: streak.workspace_id,
      webhookId,
      deliveryId: row.id,
      deliveryKey: message.delivery_key,
      event: message.event,
      attempt,
      responseStatus: x.responseStatus,
      durationMs: x.durationMs,
      error: x.error,
      nextRetryAt,
      actor,
      at: now,
    };
    if (failed) await webhookDeliveryFailed(trx, fields);
    else await webhookDeliverySucceeded(trx, fields);
    if (pause) {
      await Webhook.query(trx).findById(webhookId).patch({ active: false });
      await cancelPendingDeliveries(trx, webhookId);
      await webhookPaused(trx, { workspaceId: streak.workspace_id, webhookId, reason: gone ? 'gone' : 'failure_streak', failureCount, actor: SYSTEM_ACTOR, at: now });
    }
    outcome = !failed ? 'delivered' : pause ? 'paused' : retry ? 'retrying' : 'failed';
    return row;
  });
  if (row) s.onAttempt?.(outcome, x.durationMs);
  return row;
}

/**
 * Automatic attempt `attempt` (1 for the first) of a pending message. Nothing happens when that
 * attempt was made already (the fan-out made it, or a job for it ran twice), or when the message
 * is no longer pending (delivered, given up, cancelled by a pause) or its webhook is paused or
 * gone.
 */
export async function deliverMessage(db: Db, messageId: string, attempt: number, s: DeliverySettings): Promise<WebhookDelivery | null> {
  const message = await WebhookMessage.query(db).findById(messageId);
  if (!message || message.state !== 'pending') return null;
  const webhook = await Webhook.query(db).findById(message.webhook_id);
  if (!webhook) return null;
  if (!webhook.active) {
    await WebhookMessage.query(db).findById(messageId).where('state', 'pending').patch({ state: 'cancelled' });
    return null;
  }
  const made = await WebhookDelivery.query(db).where({ message_id: messageId }).whereIn('origin', ['event', 'retry']).resultSize();
  if (made !== attempt - 1) return null;
  const x = await send(webhook, message, s);
  return record(db, webhook.id, message, x, attempt === 1 ? 'event' : 'retry', s, SYSTEM_ACTOR);
}

/**
 * An event's fan-out and the first attempt of each of its messages, sent side by side. The
 * fan-out hands over the messages and webhooks it just read, so nothing is read twice.
 */
export async function fanOutAndDeliver(db: Db, eventId: string, s: DeliverySettings): Promise<number> {
  const todo = await fanOutEvent(db, eventId);
  await Promise.all(
    todo.map(async ({ message, webhook }) => {
      if (!webhook.active) return;
      const x = await send(webhook, message, s);
      await record(db, webhook.id, message, x, 'event', s, SYSTEM_ACTOR);
    }),
  );
  return todo.length;
}

/**
 * `POST /v1/webhooks/{id}/test`: a `webhook.test` event to this endpoint only, sent now, never
 * retried. Null when the webhook was deleted meanwhile (before the send or while it was out).
 */
export async function sendTest(db: Db, webhook: Webhook, s: DeliverySettings, actor: Actor): Promise<WebhookDelivery | null> {
  const now = nowMs();
  const body = eventBody({ id: newId(), type: 'webhook.test', createdAt: now, workspaceId: webhook.workspace_id, data: { webhookId: webhook.id, message: 'This is a test event from sitehealth.' } });
  const message = await WebhookMessage.query(db).insert({
    id: newId(),
    webhook_id: webhook.id,
    workspace_id: webhook.workspace_id,
    event_id: null,
    event: 'webhook.test',
    delivery_key: newDeliveryKey(),
    payload: body,
    body_hash: sha256Hex(body),
    state: 'once',
    created_at: now,
  }).catch((err: unknown) => {
    if (isForeignKeyViolation(err)) return null;
    throw err;
  });
  if (!message) return null;
  const x = await send(webhook, message, s);
  return record(db, webhook.id, message, x, 'test', s, actor);
}

/**
 * Sends a message again exactly as before (same body and delivery key, so the same body
 * signature; a new timestamp and timestamped signature), as its next attempt, never retried.
 */
export async function redeliver(db: Db, webhook: Webhook, message: WebhookMessage, s: DeliverySettings, actor: Actor): Promise<WebhookDelivery | null> {
  const x = await send(webhook, message, s);
  // Null when the webhook (and with it the message) was deleted while the attempt was out.
  return record(db, webhook.id, message, x, 'redelivery', s, actor);
}

/** The message an attempt of this webhook belongs to. */
export async function messageOfAttempt(db: DbOrTrx, webhookId: string, attemptId: string): Promise<{ attempt: WebhookDelivery; message: WebhookMessage } | null> {
  const attempt = await WebhookDelivery.query(db).findById(attemptId);
  if (!attempt || attempt.webhook_id !== webhookId) return null;
  const message = await WebhookMessage.query(db).findById(attempt.message_id);
  return message ? { attempt, message } : null;
}

/** The delivery settings of the service's configuration (README, Configuration). */
export function deliverySettings(c: {
  secretsKeys: readonly Buffer[];
  allowPrivateNetwork: boolean;
  webhookTimeoutMs: number;
  webhookRetryScheduleSeconds: number[];
  webhookPauseAfterFailures: number;
  webhookPauseAfterHours: number;
}, signal?: AbortSignal, onAttempt?: DeliveryObserver, log?: DeliverySettings['log']): DeliverySettings {
  return {
    keyring: keyringFor(c),
    allowPrivateNetwork: c.allowPrivateNetwork,
    timeoutMs: c.webhookTimeoutMs,
    retryScheduleSeconds: c.webhookRetryScheduleSeconds,
    pauseAfterFailures: c.webhookPauseAfterFailures,
    pauseAfterHours: c.webhookPauseAfterHours,
    signal,
    onAttempt,
    log,
  };
}
