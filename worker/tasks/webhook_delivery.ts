import { deliverMessage, deliverySettings } from '../../core/webhooks/index.ts';
import type { TaskHandler } from '../task.ts';

/** One delivery attempt of a message; a failed one schedules the next per WEBHOOK_RETRY_SCHEDULE. */
export const webhook_delivery: TaskHandler<'webhook_delivery'> = async (payload, ctx) => {
  const attempt = await deliverMessage(ctx.db, payload.messageId, payload.attempt, deliverySettings(ctx.config, ctx.signal, ctx.observeDelivery, ctx.logger));
  if (attempt) ctx.logger.info({ messageId: payload.messageId, attempt: attempt.attempt, status: attempt.status, responseStatus: attempt.response_status }, 'webhook attempt');
};
