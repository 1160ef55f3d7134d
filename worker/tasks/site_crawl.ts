import { finishCrawl, runSiteCrawl } from '../../core/crawls/index.ts';
import { safeErrorText } from '../../core/platform/index.ts';
import type { TaskHandler } from '../task.ts';

/** A deploy's crawl (core/crawls/run.ts). Its last failed attempt fails the crawl too. */
export const site_crawl: TaskHandler<'site_crawl'> = async (payload, ctx) => {
  const base = ctx.config;
  try {
    await runSiteCrawl(ctx.db, payload.crawlId, {
      allowPrivateNetwork: base.allowPrivateNetwork,
      timeoutMs: base.fetchTimeoutMs,
      maxPages: base.crawlMaxPages,
      concurrency: base.crawlConcurrency,
      delayMs: base.crawlDelayMs,
      signal: ctx.signal,
      log: ctx.logger,
    });
  } catch (err) {
    if (ctx.job.attempts >= ctx.job.maxAttempts && !ctx.signal.aborted) {
      await finishCrawl(ctx.db, payload.crawlId, { error: `the crawl could not run: ${safeErrorText(err)}` });
    }
    throw err;
  }
};
