import { OutboxEvent, type DbOrTrx } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { newId, nowMs } from '../platform/index.ts';
import { enqueue } from '../jobs/index.ts';

/** Event types a webhook can subscribe to: the `WebhookEvent` enum of spec/webhooks.tsp. */
export type EventType = Schemas['WebhookEvent'];

/** Each event's `data`, as spec/events.tsp documents it for partners. */
export interface EventData {
  'deploy.recorded': Schemas['DeployRecordedData'];
  'site_check.completed': Schemas['SiteCheckCompletedData'];
  'site_check.regression': Schemas['SiteCheckRegressionData'];
  'site_crawl.completed': Schemas['SiteCrawlCompletedData'];
  'site_crawl.regression': Schemas['SiteCrawlRegressionData'];
}

async function hasActiveWebhook(trx: DbOrTrx, workspaceId: string): Promise<boolean> {
  return (await trx('webhooks').where({ workspace_id: workspaceId, active: true }).first('id')) !== undefined;
}

/**
 * Writes a domain event to the outbox inside the caller's transaction, so the event exists
 * exactly when the change it describes does. Delivery to webhooks happens later, in the worker.
 * `idempotencyKey` names the fact the event reports (e.g. `site_check.completed:<check id>`):
 * a job that runs twice writes its event once. The outbox serves webhooks only, so a workspace
 * without an active webhook (most have none) gets no event: nobody would receive it, and a
 * webhook created or resumed later receives the events from then on. Returns the event's id, or
 * null when nothing was written (no active webhook, or an event with the key exists).
 */
export async function recordEvent<T extends EventType>(
  trx: DbOrTrx,
  workspaceId: string,
  type: T,
  data: EventData[T],
  opts: { idempotencyKey?: string } = {},
): Promise<string | null> {
  if (!(await hasActiveWebhook(trx, workspaceId))) return null;
  const id = newId();
  const row = {
    id,
    workspace_id: workspaceId,
    type,
    data: data as unknown as Record<string, unknown>,
    created_at: nowMs(),
    dispatched_at: null,
    idempotency_key: opts.idempotencyKey ?? null,
  };
  if (opts.idempotencyKey) {
    // The unique index decides: a second writer of the same fact inserts nothing. (Plain Knex:
    // Objection cannot tell whether an insert that ignores conflicts inserted.)
    const inserted = (await trx('events')
      .insert({ ...row, data: JSON.stringify(data) })
      .onConflict(['idempotency_key'])
      .ignore()
      .returning(['id'])) as Array<{ id: string }>;
    if (inserted.length === 0) return null;
  } else {
    await OutboxEvent.query(trx).insert(row);
  }
  // Its fan-out to webhooks commits (and wakes a worker) with it.
  await enqueue(trx, 'webhook_fanout', { eventId: id }, { dedupeKey: `webhook_fanout:${id}`, workspaceId });
  return id;
}

/** An event of the outbox, as its fan-out reads it; undefined when it is gone. */
export async function readEvent(trx: DbOrTrx, eventId: string): Promise<OutboxEvent | undefined> {
  return OutboxEvent.query(trx).findById(eventId);
}

/**
 * Marks an event as fanned out to its webhooks: a fan-out that runs again then only looks for
 * the messages whose first attempt was never made.
 */
export async function markDispatched(trx: DbOrTrx, eventId: string): Promise<void> {
  await OutboxEvent.query(trx).findById(eventId).patch({ dispatched_at: nowMs() });
}
