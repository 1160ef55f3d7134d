import { Model } from 'objection';
import type { Schemas } from '../../contract/index.ts';

/** A domain event written in the transaction that caused it; webhooks deliver it later. */
export class OutboxEvent extends Model {
  static tableName = 'events';
  static jsonAttributes = ['data'];

  declare id: string;
  declare workspace_id: string;
  declare type: Schemas['WebhookEvent'];
  declare data: Record<string, unknown>;
  declare created_at: number;
  /** Set once the event has been fanned out to the subscribed webhooks. */
  declare dispatched_at: number | null;
  /** The fact the event reports, e.g. `site_check.completed:<check id>`: written once, however often its job runs. */
  declare idempotency_key: string | null;
}
