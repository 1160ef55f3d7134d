import type { TaskHandler } from '../task.ts';

// Placeholder until the site_check capability lands: logs and completes.
export const site_check: TaskHandler<'site_check'> = async (payload, ctx) => {
  ctx.logger.warn({ checkId: payload.checkId }, 'site_check has not landed yet; completing the job without doing anything');
};
