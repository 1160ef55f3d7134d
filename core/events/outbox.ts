import { OutboxEvent, type DbOrTrx } from '../db/index.ts';
import { enumValues, type Schemas } from '../contract/index.ts';
import { newId, nowMs } from '../platform/index.ts';

/** Event types a webhook can subscribe to: the contract's `WebhookEvent` enum. */
export const SUBSCRIBABLE_EVENTS = enumValues('WebhookEvent');
export type EventType = Schemas['WebhookEvent'];

/**
 * Writes a domain event to the outbox inside the caller's transaction, so the event exists
 * exactly when the change it describes does. Delivery to webhooks happens later, in the worker.
 */
export async function recordEvent(trx: DbOrTrx, workspaceId: string, type: EventType, data: Record<string, unknown>): Promise<string> {
  const id = newId();
  await OutboxEvent.query(trx).insert({ id, workspace_id: workspaceId, type, data, created_at: nowMs(), dispatched_at: null });
  return id;
}
