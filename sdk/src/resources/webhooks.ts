import type {
  DeliveryAttempt,
  DeliveryAttemptDetail,
  DeliveryAttemptList,
  DeliveryListQuery,
  Webhook,
  WebhookCreate,
  WebhookList,
  WebhookListQuery,
  WebhookUpdate,
  WebhookWithSecret,
} from '../types.js';
import { Resource, everyRow, unwrap, unwrapDeleted, type Deleted, type RequestOptions, type WithResponse } from './resource.js';

/** `/v1/webhooks`: endpoints that receive signed events, and their delivery attempts. */
export class Webhooks extends Resource {
  /** `Webhooks_list`: every webhook the caller can see (or one workspace's), oldest first. */
  list(query: WebhookListQuery = {}, options?: RequestOptions): Promise<WithResponse<WebhookList>> {
    return unwrap(this.client.GET('/v1/webhooks', { params: { query }, ...this.call(options) }));
  }

  /** `Webhooks_create`: admin or owner. The answer carries the signing `secret`, shown only here. Retried safely under its `Idempotency-Key` (a repeat replays the first answer, secret included). */
  create(body: WebhookCreate, options?: RequestOptions): Promise<WithResponse<WebhookWithSecret>> {
    return unwrap(this.client.POST('/v1/webhooks', { body, ...this.call(options) }));
  }

  /** `Webhooks_get`. */
  get(id: string, options?: RequestOptions): Promise<WithResponse<Webhook>> {
    return unwrap(this.client.GET('/v1/webhooks/{id}', { params: { path: { id } }, ...this.call(options) }));
  }

  /** `Webhooks_update`: admin or owner. A new `secret` is returned once in the answer. Not retried. */
  update(id: string, body: WebhookUpdate, options?: RequestOptions): Promise<WithResponse<Webhook | WebhookWithSecret>> {
    return unwrap(this.client.PUT('/v1/webhooks/{id}', { params: { path: { id } }, body, ...this.call(options) }));
  }

  /** `Webhooks_delete`: admin or owner. Not retried. */
  delete(id: string, options?: RequestOptions): Promise<WithResponse<Deleted>> {
    return unwrapDeleted(this.client.DELETE('/v1/webhooks/{id}', { params: { path: { id } }, ...this.call(options) }), id);
  }

  /** `Webhooks_test`: sends a `webhook.test` event now (even when paused) and returns the attempt. Retried safely under its `Idempotency-Key`. */
  test(id: string, options?: RequestOptions): Promise<WithResponse<DeliveryAttempt>> {
    return unwrap(this.client.POST('/v1/webhooks/{id}/test', { params: { path: { id } }, ...this.call(options) }));
  }

  /**
   * `Webhooks_listDeliveries`: one page of the webhook's delivery attempts, newest first,
   * optionally only `status` `success`/`failed` or one `event` type; `meta.next_cursor` is null on
   * the last page.
   */
  listDeliveries(id: string, query: DeliveryListQuery = {}, options?: RequestOptions): Promise<WithResponse<DeliveryAttemptList>> {
    return unwrap(this.client.GET('/v1/webhooks/{id}/deliveries', { params: { path: { id }, query }, ...this.call(options) }));
  }

  /**
   * Every delivery attempt matching `query`, newest first, following `meta.next_cursor` page
   * after page (`query.limit` is the page size).
   *
   * ```ts
   * for await (const a of client.webhooks.iterateDeliveries(hookId, { status: 'failed' })) console.log(a.event, a.responseStatus);
   * ```
   */
  iterateDeliveries(id: string, query: DeliveryListQuery = {}, options?: RequestOptions): AsyncGenerator<DeliveryAttempt, void, undefined> {
    return everyRow((q: DeliveryListQuery) => this.listDeliveries(id, q, options), query);
  }

  /** `Webhooks_getDelivery`: one attempt, with the `payload` exactly as sent. */
  getDelivery(id: string, deliveryId: string, options?: RequestOptions): Promise<WithResponse<DeliveryAttemptDetail>> {
    return unwrap(this.client.GET('/v1/webhooks/{id}/deliveries/{deliveryId}', { params: { path: { id, deliveryId } }, ...this.call(options) }));
  }

  /** `Webhooks_redeliver`: sends that delivery's payload again now (409 `webhook_paused` when paused). Retried safely under its `Idempotency-Key`. */
  redeliver(id: string, deliveryId: string, options?: RequestOptions): Promise<WithResponse<DeliveryAttempt>> {
    return unwrap(this.client.POST('/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver', { params: { path: { id, deliveryId } }, ...this.call(options) }));
  }
}
