import { finishCheck, runSiteCheck } from '../../core/checks/index.ts';
import { safeErrorText } from '../../core/platform/index.ts';
import type { TaskHandler } from '../task.ts';

/** A deploy's site check (core/checks/run.ts). Its last failed attempt fails the check too. */
export const site_check: TaskHandler<'site_check'> = async (payload, ctx) => {
  const base = ctx.config;
  try {
    await runSiteCheck(ctx.db, payload.checkId, {
      allowPrivateNetwork: base.allowPrivateNetwork,
      timeoutMs: base.fetchTimeoutMs,
      concurrency: base.crawlConcurrency,
      render: base.render,
      signal: ctx.signal,
      log: ctx.logger,
    });
  } catch (err) {
    // The record must not stay `running` for ever once no attempt is left.
    if (ctx.job.attempts >= ctx.job.maxAttempts && !ctx.signal.aborted) {
      await finishCheck(ctx.db, payload.checkId, { error: `the check could not run: ${safeErrorText(err)}` });
    }
    throw err;
  }
};
