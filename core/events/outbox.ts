import { OutboxEvent, runPlan, type DbOrTrx, type PlanShape, type PlanStep, type PlannedRow } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { newId, nowMs } from '../platform/index.ts';
import { jobRow, jobStep } from '../jobs/index.ts';

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

/**
 * The steps that write an event in a write plan: the event, then its fan-out job. The outbox
 * serves webhooks only, so a workspace without an active webhook (most have none) gets no event:
 * nobody would receive it, and a webhook created or resumed later receives the events from then
 * on. An event whose idempotency key exists already is not written again, nor fanned out.
 */
export function eventSteps(after: readonly string[]): { event: PlanStep; event_fanout: PlanStep } {
  return {
    event: {
      table: 'events',
      columns: ['id', 'workspace_id', 'type', 'data', 'created_at', 'idempotency_key'],
      fixed: { dispatched_at: null },
      after,
      onlyIf: 'EXISTS (SELECT 1 FROM webhooks w WHERE w.workspace_id = :workspace_id AND w.active)',
      skipOnConflict: '(idempotency_key)',
    },
    event_fanout: jobStep('webhook_fanout', ['event']),
  };
}

/** The rows of `eventSteps`. */
export function eventRows<T extends EventType>(
  workspaceId: string,
  type: T,
  data: EventData[T],
  opts: { idempotencyKey?: string; now?: number } = {},
): { event: PlannedRow; event_fanout: PlannedRow } {
  const id = newId();
  const now = opts.now ?? nowMs();
  return {
    event: { id, workspace_id: workspaceId, type, data: JSON.stringify(data), created_at: now, idempotency_key: opts.idempotencyKey ?? null },
    event_fanout: jobRow('webhook_fanout', { eventId: id }, { id: newId(), runAt: now, dedupeKey: `webhook_fanout:${id}`, workspaceId, now }),
  };
}

const EVENT_PLAN: PlanShape = { name: 'record_event', steps: eventSteps([]) };

/**
 * Writes a domain event to the outbox inside the caller's transaction, so the event exists
 * exactly when the change it describes does, with its fan-out job (eventSteps). Delivery to
 * webhooks happens later, in the worker. `idempotencyKey` names the fact the event reports
 * (e.g. `site_check.completed:<check id>`): a job that runs twice writes its event once.
 * Returns the event's id, or null when nothing was written (no active webhook, or an event
 * with the key exists).
 */
export async function recordEvent<T extends EventType>(
  trx: DbOrTrx,
  workspaceId: string,
  type: T,
  data: EventData[T],
  opts: { idempotencyKey?: string } = {},
): Promise<string | null> {
  const rows = eventRows(workspaceId, type, data, opts);
  const inserted = await runPlan(trx, EVENT_PLAN, rows);
  return inserted.has('event') ? String(rows.event.id) : null;
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
