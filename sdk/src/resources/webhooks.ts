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
import { Resource, everyRow, unwrap } from './resource.js';

/** `/v1/webhooks`: endpoints that receive signed events, and their delivery attempts. */
export class Webhooks extends Resource {
  /** `Webhooks_list`: every webhook the caller can see (or one workspace's), oldest first. */
  list(query: WebhookListQuery = {}): Promise<WebhookList> {
    return unwrap(this.client.GET('/v1/webhooks', { params: { query } }));
  }

  /** `Webhooks_create`: admin or owner. The answer carries the signing `secret`, shown only here. Never retried. */
  create(body: WebhookCreate): Promise<WebhookWithSecret> {
    return unwrap(this.client.POST('/v1/webhooks', { body }));
  }

  /** `Webhooks_get`. */
  get(id: string): Promise<Webhook> {
    return unwrap(this.client.GET('/v1/webhooks/{id}', { params: { path: { id } } }));
  }

  /** `Webhooks_update`: admin or owner. A new `secret` is returned once in the answer. Not retried. */
  update(id: string, body: WebhookUpdate): Promise<Webhook | WebhookWithSecret> {
    return unwrap(this.client.PUT('/v1/webhooks/{id}', { params: { path: { id } }, body }));
  }

  /** `Webhooks_delete`: admin or owner. Not retried. */
  async delete(id: string): Promise<void> {
    await unwrap(this.client.DELETE('/v1/webhooks/{id}', { params: { path: { id } } }));
  }

  /** `Webhooks_test`: sends a `webhook.test` event now (even when paused) and returns the attempt. Never retried. */
  test(id: string): Promise<DeliveryAttempt> {
    return unwrap(this.client.POST('/v1/webhooks/{id}/test', { params: { path: { id } } }));
  }

  /**
   * `Webhooks_listDeliveries`: one page of the webhook's delivery attempts, newest first,
   * optionally only `status` `success`/`failed` or one `event` type; `meta.next_cursor` is null on
   * the last page.
   */
  listDeliveries(id: string, query: DeliveryListQuery = {}): Promise<DeliveryAttemptList> {
    return unwrap(this.client.GET('/v1/webhooks/{id}/deliveries', { params: { path: { id }, query } }));
  }

  /**
   * Every delivery attempt matching `query`, newest first, following `meta.next_cursor` page
   * after page (`query.limit` is the page size).
   *
   * ```ts
   * for await (const a of client.webhooks.iterateDeliveries(hookId, { status: 'failed' })) console.log(a.event, a.responseStatus);
   * ```
   */
  iterateDeliveries(id: string, query: DeliveryListQuery = {}): AsyncGenerator<DeliveryAttempt, void, undefined> {
    return everyRow((q: DeliveryListQuery) => this.listDeliveries(id, q), query);
  }

  /** `Webhooks_getDelivery`: one attempt, with the `payload` exactly as sent. */
  getDelivery(id: string, deliveryId: string): Promise<DeliveryAttemptDetail> {
    return unwrap(this.client.GET('/v1/webhooks/{id}/deliveries/{deliveryId}', { params: { path: { id, deliveryId } } }));
  }

  /** `Webhooks_redeliver`: sends that delivery's payload again now (409 `webhook_paused` when paused). Never retried. */
  redeliver(id: string, deliveryId: string): Promise<DeliveryAttempt> {
    return unwrap(this.client.POST('/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver', { params: { path: { id, deliveryId } } }));
  }
}
