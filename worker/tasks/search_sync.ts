import { runSync, searchConsoleSettings } from '../../core/search-console/index.ts';
import type { TaskHandler } from '../task.ts';

/** One Search Console sync (core/search-console/sync.ts); a transient failure throws, so the queue retries it. */
export const search_sync: TaskHandler<'search_sync'> = async (payload, ctx) => {
  const result = await runSync(
    ctx.db,
    payload.connectionId,
    { ...searchConsoleSettings(ctx.config), backfillDays: ctx.config.google.backfillDays },
    { now: ctx.now(), signal: ctx.signal, lastAttempt: ctx.job.attempts >= ctx.job.maxAttempts },
  );
  if (result.outcome === 'synced') {
    ctx.logger.info({ connectionId: payload.connectionId, from: result.from, to: result.to, rows: result.rows, ms: result.ms }, 'search console synced');
  } else if (result.outcome !== 'skipped') {
    ctx.logger.warn({ connectionId: payload.connectionId, outcome: result.outcome, status: result.failure?.status ?? null }, 'search console sync failed');
  }
};
