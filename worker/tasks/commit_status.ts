import { connectionSettings, postCheckStatus } from '../../core/connections/index.ts';
import type { TaskHandler } from '../task.ts';

/** A site check's state as a commit status on its deploy's connected repository (core/connections/statuses.ts). */
export const commit_status: TaskHandler<'commit_status'> = async (payload, ctx) => {
  const posted = await postCheckStatus(ctx.db, payload.checkId, connectionSettings(ctx.config), ctx.signal);
  if (posted) ctx.logger.info({ checkId: payload.checkId, state: posted.state }, 'commit status posted');
};
