import { connectionSettings, recordFromDelivery } from '../../core/connections/index.ts';
import type { TaskHandler } from '../task.ts';

/**
 * A connected repository's push or deployment into a deploy, its changes read from the host's
 * compare API (core/connections/record.ts). The last attempt records the deploy without changes
 * when the host still fails, saying why.
 */
export const repository_deploy: TaskHandler<'repository_deploy'> = async (payload, ctx) => {
  const recorded = await recordFromDelivery(ctx.db, payload.deliveryId, connectionSettings(ctx.config), {
    delays: { siteCheckDelaySeconds: ctx.config.siteCheckDelaySeconds, crawlDelaySeconds: ctx.config.crawlDelaySeconds },
    lastAttempt: ctx.job.attempts >= ctx.job.maxAttempts,
    signal: ctx.signal,
  });
  if (recorded) ctx.logger.info({ deliveryId: payload.deliveryId, deployId: recorded.deployId }, 'deploy recorded from a connected repository');
};
