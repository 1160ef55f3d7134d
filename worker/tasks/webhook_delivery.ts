import type { TaskHandler } from '../task.ts';

// Not built yet. The job must not complete without its effect, so it fails with a retryable
// error and waits (its record stays queued) until a release that runs it.
export const webhook_delivery: TaskHandler<'webhook_delivery'> = async () => {
  throw new Error('webhook_delivery jobs are not run by this release yet');
};
