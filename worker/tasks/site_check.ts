import type { TaskHandler } from '../task.ts';

// Not built yet. The job must not complete without its effect, so it fails with a retryable
// error and waits (its record stays queued) until a release that runs it.
export const site_check: TaskHandler<'site_check'> = async () => {
  throw new Error('site_check jobs are not run by this release yet');
};
