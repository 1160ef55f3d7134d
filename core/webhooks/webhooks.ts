import { Webhook, WebhookMessage, isPostgres, withTransaction, type DbOrTrx } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { cancelJobs } from '../jobs/index.ts';
import { webhookEnabled, webhookPaused, type Actor } from '../activity/index.ts';
import { NotFound, isUuid, newId, nowMs, redactSecrets, toIso } from '../platform/index.ts';
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

/** The secrets that sign a delivery now: the current one, and the previous one during its overlap. */
export function signingSecrets(w: Webhook, now: number): string[] {
  return w.previous_secret && (w.previous_secret_until ?? 0) > now ? [w.secret, w.previous_secret] : [w.secret];
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
  o: { allowPrivateNetwork: boolean },
): Promise<Schemas['WebhookWithSecret']> {
  assertWebhookUrl(input.url, o.allowPrivateNetwork);
  const headers = headerPairs(input.headers ?? {});
  const now = nowMs();
  const secret = input.secret ?? generateSecret();
  const row = await Webhook.query(db).insert({
    id: newId(),
    workspace_id: input.workspaceId,
    name: input.name === undefined ? null : redactSecrets(input.name),
    url: input.url,
    events: [...new Set(input.events)],
    secret,
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
  o: { allowPrivateNetwork: boolean; actor: Actor },
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
      patch.secret = input.secret;
      patch.previous_secret = w.secret;
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
