import type { TaskHandler } from '../task.ts';

// Placeholder until the site_crawl capability lands: logs and completes.
export const site_crawl: TaskHandler<'site_crawl'> = async (payload, ctx) => {
  ctx.logger.warn({ crawlId: payload.crawlId }, 'site_crawl has not landed yet; completing the job without doing anything');
};
