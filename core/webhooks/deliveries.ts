import { WebhookDelivery, WebhookMessage, afterKeyset, type DbOrTrx } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { NotFound, decodeCursor, encodeCursor, isUuid, toIso } from '../platform/index.ts';

export function deliveryToApi(d: WebhookDelivery): Schemas['DeliveryAttempt'] {
  const out: Schemas['DeliveryAttempt'] = {
    id: d.id,
    webhookId: d.webhook_id,
    event: d.event,
    deliveryKey: d.delivery_key,
    attempt: Number(d.attempt),
    status: d.status,
    responseStatus: d.response_status ?? null,
    responseBody: d.response_body ?? null,
    durationMs: Number(d.duration_ms),
    bodyHash: d.body_hash,
    createdAt: toIso(d.created_at)!,
  };
  if (d.next_retry_at !== null && d.next_retry_at !== undefined) out.nextRetryAt = toIso(d.next_retry_at)!;
  return out;
}

// Newest first by (created_at, id), one cursor per page (core/platform/cursor.ts).

export async function listDeliveries(
  db: DbOrTrx,
  webhookId: string,
  q: { status?: 'success' | 'failed'; event?: string; limit: number; cursor?: string },
): Promise<Schemas['DeliveryAttemptList']> {
  const query = WebhookDelivery.query(db).where({ webhook_id: webhookId });
  if (q.status) query.where({ status: q.status });
  if (q.event) query.where({ event: q.event });
  if (q.cursor) afterKeyset(query, 'created_at', decodeCursor(q.cursor, 'this list'));
  const rows = await query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  return { data: page.map(deliveryToApi), meta: { next_cursor: rows.length > q.limit ? encodeCursor({ at: Number(page[page.length - 1].created_at), id: page[page.length - 1].id }) : null } };
}

export async function getDelivery(db: DbOrTrx, webhookId: string, id: string): Promise<Schemas['DeliveryAttemptDetail']> {
  const d = isUuid(id) ? await WebhookDelivery.query(db).findById(id) : undefined;
  if (!d || d.webhook_id !== webhookId) throw new NotFound();
  const message = await WebhookMessage.query(db).findById(d.message_id).select('payload');
  return { ...deliveryToApi(d), payload: message!.payload };
}
