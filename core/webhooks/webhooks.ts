import { Webhook, WebhookMessage, isPostgres, withTransaction, type DbOrTrx } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { cancelJobs } from '../jobs/index.ts';
import { webhookEnabled, webhookPaused, type Actor } from '../activity/index.ts';
import { NotFound, isUuid, newId, nowMs, redactSecrets, toIso } from '../platform/index.ts';
import { Keyring } from '../secrets/index.ts';
import { generateSecret } from './signing.ts';
import { assertWebhookUrl, headerPairs } from './validate.ts';

/** After a rotation, the previous secret signs too for this long. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export function webhookToApi(w: Webhook): Schemas['Webhook'] {
  return {
    id: w.id,
    workspaceId: w.workspace_id,
    name: w.name ?? null,
    url: w.url,
    events: w.events,
    headerNames: w.headers.map(([name]) => name),
    // SQLite stores booleans as 0/1.
    active: Boolean(w.active),
    lastTriggeredAt: toIso(w.last_triggered_at),
    failureCount: Number(w.failure_count),
    createdAt: toIso(w.created_at)!,
  };
}

// Signing secrets are sealed at rest with SECRETS_KEY when it is set (core/secrets,
// docs/operating.md#rotating-secrets_key): the database alone, or a backup of it, then signs
// nothing. A sealed value names its row and column, so one copied to another webhook or column
// does not open. Without SECRETS_KEY they are stored as given, as before sealing (webhooks are
// part of the interface a plain `npm start` serves; the processes warn at start), and
// `secrets reseal` seals them once a key is set: a column holds either shape (Keyring.isSealed).
type SecretColumn = 'secret' | 'previous_secret';
const sealContext = (id: string, column: SecretColumn) => `webhooks/${id}/${column}`;

/** A secret as stored: sealed when SECRETS_KEY is set, as given otherwise. */
function storedSecret(plaintext: string, id: string, column: SecretColumn, keyring: Keyring): string {
  return keyring.configured ? keyring.seal(plaintext, sealContext(id, column)) : plaintext;
}

/** The plaintext secrets of a webhook, for signing and for redacting echoes; never stored, logged or returned. */
export interface OpenedSecrets {
  /** The current one first, then the previous one while it still signs (24 hours after a rotation). */
  signing: string[];
  /** Every secret a receiver might echo: the previous one too, after its overlap. */
  all: string[];
}

/** One secret column of a webhook, opened if sealed (throws when SECRETS_KEY does not list the key that sealed it, or is unset). */
function openColumn(w: Webhook, column: SecretColumn, keyring: Keyring): string | null {
  const stored = w[column];
  if (stored === null || !Keyring.isSealed(stored)) return stored;
  return keyring.open(stored, sealContext(w.id, column));
}

/** Opens a webhook's secrets (throws when SECRETS_KEY does not list the key that sealed them, or is unset). */
export function openSecrets(w: Webhook, keyring: Keyring, now: number): OpenedSecrets {
  const current = openColumn(w, 'secret', keyring)!;
  const previous = openColumn(w, 'previous_secret', keyring);
  return {
    signing: previous !== null && (w.previous_secret_until ?? 0) > now ? [current, previous] : [current],
    all: previous === null ? [current] : [current, previous],
  };
}

/**
 * `npm run admin -- secrets reseal`: seals again what an older key sealed, and seals any secret
 * stored as it was (while SECRETS_KEY was unset, or by a server of a release before sealing);
 * returns how many webhooks changed.
 */
export async function resealWebhookSecrets(db: DbOrTrx, keyring: Keyring): Promise<number> {
  // Without SECRETS_KEY there is nothing to seal with: secrets stay as they are stored.
  if (!keyring.configured) return 0;
  let count = 0;
  for (const w of await Webhook.query(db).select('id', 'secret', 'previous_secret')) {
    const again = (value: string | null, column: SecretColumn): string | null | undefined => {
      if (value === null) return undefined;
      if (!Keyring.isSealed(value)) return keyring.seal(value, sealContext(w.id, column));
      return keyring.isStale(value) ? keyring.seal(keyring.open(value, sealContext(w.id, column)), sealContext(w.id, column)) : undefined;
    };
    const secret = again(w.secret, 'secret');
    const previous = again(w.previous_secret, 'previous_secret');
    if (secret === undefined && previous === undefined) continue;
    await Webhook.query(db)
      .findById(w.id)
      .patch({ ...(secret ? { secret } : {}), ...(previous ? { previous_secret: previous } : {}) });
    count++;
  }
  return count;
}

export async function getWebhook(db: DbOrTrx, id: string): Promise<Webhook> {
  const w = isUuid(id) ? await Webhook.query(db).findById(id) : undefined;
  if (!w) throw new NotFound();
  return w;
}

/** Webhooks of the given workspaces, oldest first. */
export async function listWebhooks(db: DbOrTrx, workspaceIds: string[]): Promise<Schemas['Webhook'][]> {
  if (workspaceIds.length === 0) return [];
  const rows = await Webhook.query(db)
    .whereIn('workspace_id', workspaceIds)
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map(webhookToApi);
}

export async function createWebhook(
  db: DbOrTrx,
  input: Schemas['WebhookCreate'],
  o: { allowPrivateNetwork: boolean; keyring: Keyring },
): Promise<Schemas['WebhookWithSecret']> {
  assertWebhookUrl(input.url, o.allowPrivateNetwork);
  const headers = headerPairs(input.headers ?? {});
  const now = nowMs();
  const id = newId();
  const secret = input.secret ?? generateSecret();
  const row = await Webhook.query(db).insert({
    id,
    workspace_id: input.workspaceId,
    name: input.name === undefined ? null : redactSecrets(input.name),
    url: input.url,
    events: [...new Set(input.events)],
    secret: storedSecret(secret, id, 'secret', o.keyring),
    previous_secret: null,
    previous_secret_until: null,
    headers,
    active: true,
    failure_count: 0,
    failing_since: null,
    last_triggered_at: null,
    created_at: now,
    updated_at: now,
  });
  return { ...webhookToApi(row), secret };
}

/**
 * Changes a webhook. `active: true` re-enables a paused one and resets its failure count;
 * `active: false` pauses it (its pending retries are cancelled). A new secret rotates it: the old
 * one keeps signing beside it for 24 hours. `headers` replaces the set (a null value keeps the
 * stored value of that name); `headers: null` clears them.
 */
export async function updateWebhook(
  db: DbOrTrx,
  id: string,
  input: Schemas['WebhookUpdate'],
  o: { allowPrivateNetwork: boolean; actor: Actor; keyring: Keyring },
): Promise<Schemas['Webhook'] | Schemas['WebhookWithSecret']> {
  if (input.url !== undefined) assertWebhookUrl(input.url, o.allowPrivateNetwork);
  return withTransaction(db, async (trx) => {
    const q = Webhook.query(trx).findById(id);
    if (isPostgres(trx)) q.forUpdate();
    const w = await q;
    if (!w) throw new NotFound();
    const now = nowMs();
    const patch: Partial<Webhook> = { updated_at: now };
    if (input.name !== undefined) patch.name = input.name === null ? null : redactSecrets(input.name);
    if (input.url !== undefined) patch.url = input.url;
    if (input.events !== undefined) patch.events = [...new Set(input.events)];
    if (input.headers !== undefined) patch.headers = input.headers === null ? [] : headerPairs(input.headers, w.headers);
    if (input.secret !== undefined) {
      patch.secret = storedSecret(input.secret, w.id, 'secret', o.keyring);
      // A sealed secret whose key SECRETS_KEY does not list (a lost key) signs nothing: it is dropped.
      let previous: string | null = null;
      try {
        previous = openColumn(w, 'secret', o.keyring);
      } catch {
        // it cannot sign: dropped
      }
      patch.previous_secret = previous === null ? null : storedSecret(previous, w.id, 'previous_secret', o.keyring);
      patch.previous_secret_until = now + ROTATION_OVERLAP_MS;
    }
    const wasActive = Boolean(w.active);
    if (input.active === true && !wasActive) {
      Object.assign(patch, { active: true, failure_count: 0, failing_since: null });
      await webhookEnabled(trx, { workspaceId: w.workspace_id, webhookId: w.id, reason: 'user', actor: o.actor });
    } else if (input.active === false && wasActive) {
      patch.active = false;
      await cancelPendingDeliveries(trx, w.id);
      await webhookPaused(trx, { workspaceId: w.workspace_id, webhookId: w.id, reason: 'user', failureCount: w.failure_count, actor: o.actor });
    }
    await Webhook.query(trx).findById(id).patch(patch);
    const updated = (await Webhook.query(trx).findById(id))!;
    const api = webhookToApi(updated);
    return input.secret !== undefined ? { ...api, secret: input.secret } : api;
  });
}

export async function deleteWebhook(db: DbOrTrx, id: string): Promise<void> {
  await withTransaction(db, async (trx) => {
    // The webhook's messages are locked before the webhook itself, in the order an attempt's
    // bookkeeping locks them (its message, then the webhook by the delivery's foreign key), so
    // a delete racing tests and redeliveries waits for them instead of deadlocking with them
    // (PostgreSQL; SQLite writes one transaction at a time).
    if (isPostgres(trx)) await WebhookMessage.query(trx).where({ webhook_id: id }).orderBy('id').select('id').forUpdate();
    await cancelPendingDeliveries(trx, id);
    const n = await Webhook.query(trx).deleteById(id);
    if (n === 0) throw new NotFound();
  });
}

/** A paused (or deleted) webhook's scheduled attempts are cancelled, never sent. */
export async function cancelPendingDeliveries(trx: DbOrTrx, webhookId: string): Promise<number> {
  const pending = await WebhookMessage.query(trx).where({ webhook_id: webhookId, state: 'pending' }).select('id');
  if (pending.length === 0) return 0;
  await WebhookMessage.query(trx)
    .whereIn(
      'id',
      pending.map((m) => m.id),
    )
    .patch({ state: 'cancelled' });
  return cancelJobs(trx, { dedupePrefixes: pending.map((m) => `webhook_delivery:${m.id}:`) });
}

/** The dedupe key of a message's delivery job for one attempt: each attempt is queued once. */
export function deliveryJobKey(messageId: string, attempt: number): string {
  return `webhook_delivery:${messageId}:${attempt}`;
}
