import type { TaskHandler } from '../task.ts';

// Placeholder until the webhook_delivery capability lands: logs and completes.
export const webhook_delivery: TaskHandler<'webhook_delivery'> = async (payload, ctx) => {
  ctx.logger.warn({ deliveryId: payload.deliveryId }, 'webhook_delivery has not landed yet; completing the job without doing anything');
};
