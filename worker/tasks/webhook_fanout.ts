import { fanOutEvent } from '../../core/webhooks/index.ts';
import type { TaskHandler } from '../task.ts';

/** One outbox event into a message per subscribed active webhook (core/webhooks/deliver.ts). */
export const webhook_fanout: TaskHandler<'webhook_fanout'> = async (payload, ctx) => {
  const messages = await fanOutEvent(ctx.db, payload.eventId);
  if (messages > 0) ctx.logger.info({ eventId: payload.eventId, messages }, 'event fanned out');
};
