import { deliverySettings, fanOutAndDeliver } from '../../core/webhooks/index.ts';
import type { TaskHandler } from '../task.ts';

/**
 * One outbox event into a message per subscribed active webhook, then each message's first
 * attempt at once (core/webhooks/deliver.ts); failed ones schedule their retries as jobs.
 */
export const webhook_fanout: TaskHandler<'webhook_fanout'> = async (payload, ctx) => {
  const messages = await fanOutAndDeliver(ctx.db, payload.eventId, deliverySettings(ctx.config, ctx.signal, ctx.observeDelivery, ctx.logger));
  if (messages > 0) ctx.logger.info({ eventId: payload.eventId, messages }, 'event fanned out');
};
