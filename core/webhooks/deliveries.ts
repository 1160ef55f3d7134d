import { WebhookDelivery, WebhookMessage, type DbOrTrx } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { NotFound, ValidationFailed, isUuid, toIso } from '../platform/index.ts';

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

// Newest first by (created_at, id); the cursor is the last row's pair, opaque (base64url).
function encodeCursor(d: WebhookDelivery): string {
  return Buffer.from(`${Number(d.created_at)}.${d.id}`, 'utf8').toString('base64url');
}

function decodeCursor(raw: string): { createdAt: number; id: string } {
  const m = /^(\d{1,16})\.([0-9a-f-]{36})$/.exec(Buffer.from(raw, 'base64url').toString('utf8'));
  if (!/^[A-Za-z0-9_-]+$/.test(raw) || !m || !isUuid(m[2])) {
    throw new ValidationFailed('cursor is not a meta.next_cursor of this list.', [{ in: 'query', path: '/cursor', message: 'is not a valid cursor' }]);
  }
  return { createdAt: Number(m[1]), id: m[2] };
}

export async function listDeliveries(
  db: DbOrTrx,
  webhookId: string,
  q: { status?: 'success' | 'failed'; event?: string; limit: number; cursor?: string },
): Promise<Schemas['DeliveryAttemptList']> {
  const query = WebhookDelivery.query(db).where({ webhook_id: webhookId });
  if (q.status) query.where({ status: q.status });
  if (q.event) query.where({ event: q.event });
  if (q.cursor) {
    const c = decodeCursor(q.cursor);
    query.where('created_at', '<=', c.createdAt).where((w) => w.where('created_at', '<', c.createdAt).orWhere('id', '<', c.id));
  }
  const rows = await query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  return { data: page.map(deliveryToApi), meta: { next_cursor: rows.length > q.limit ? encodeCursor(page[page.length - 1]) : null } };
}

export async function getDelivery(db: DbOrTrx, webhookId: string, id: string): Promise<Schemas['DeliveryAttemptDetail']> {
  const d = isUuid(id) ? await WebhookDelivery.query(db).findById(id) : undefined;
  if (!d || d.webhook_id !== webhookId) throw new NotFound();
  const message = await WebhookMessage.query(db).findById(d.message_id).select('payload');
  return { ...deliveryToApi(d), payload: message!.payload };
}
