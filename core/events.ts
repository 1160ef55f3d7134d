import type { DbOrTrx } from './db/connection.ts';
import { newId } from './ids.ts';
import { nowMs } from './clock.ts';

/** Event types a webhook can subscribe to (CONTRACT section 3). */
export const SUBSCRIBABLE_EVENTS = [
  'site_check.regression',
  'site_crawl.regression',
  'site_check.completed',
  'site_crawl.completed',
  'deploy.recorded',
] as const;
export type EventType = (typeof SUBSCRIBABLE_EVENTS)[number];

/**
 * Writes a domain event to the outbox inside the caller's transaction, so the event exists
 * exactly when the change it describes does. Delivery to webhooks happens later, in the worker.
 */
export async function recordEvent(trx: DbOrTrx, workspaceId: string, type: EventType, data: unknown): Promise<string> {
  const id = newId();
  await trx('events').insert({ id, workspace_id: workspaceId, type, data: JSON.stringify(data), created_at: nowMs(), dispatched_at: null });
  return id;
}
