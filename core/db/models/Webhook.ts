import { Model } from 'objection';
import type { Schemas } from '../../contract/index.ts';

export class Webhook extends Model {
  static tableName = 'webhooks';
  static jsonAttributes = ['events', 'headers'];

  declare id: string;
  declare workspace_id: string;
  declare name: string | null;
  declare url: string;
  declare events: Schemas['WebhookEvent'][];
  /** The signing secret, sealed with SECRETS_KEY when it is set (core/secrets), as given otherwise; opened only to sign and redact (core/webhooks). */
  declare secret: string;
  /** The secret before the last rotation, sealed likewise; signs beside the current one until `previous_secret_until`. */
  declare previous_secret: string | null;
  declare previous_secret_until: number | null;
  /** [name, value] pairs in the order given; values are never returned by the API. */
  declare headers: Array<[string, string]>;
  declare active: boolean;
  declare failure_count: number;
  declare failing_since: number | null;
  declare last_triggered_at: number | null;
  declare created_at: number;
  declare updated_at: number;
}

/** One event for one webhook: the exact body and its delivery key, shared by every attempt. */
export class WebhookMessage extends Model {
  static tableName = 'webhook_messages';

  declare id: string;
  declare webhook_id: string;
  declare workspace_id: string;
  declare event_id: string | null;
  declare event: Schemas['DeliveryEvent'];
  declare delivery_key: string;
  declare payload: string;
  declare body_hash: string;
  declare state: 'pending' | 'delivered' | 'failed' | 'cancelled' | 'once';
  declare created_at: number;
}

/** One delivery attempt. */
export class WebhookDelivery extends Model {
  static tableName = 'webhook_deliveries';

  declare id: string;
  declare message_id: string;
  declare webhook_id: string;
  declare event: Schemas['DeliveryEvent'];
  declare delivery_key: string;
  declare attempt: number;
  declare origin: 'event' | 'retry' | 'test' | 'redelivery';
  declare status: 'success' | 'failed';
  declare response_status: number | null;
  declare response_body: string | null;
  declare duration_ms: number;
  declare body_hash: string;
  declare next_retry_at: number | null;
  declare created_at: number;
}
