import type { Context, Next } from 'koa';
import { RATE_LIMIT_WINDOW_MS, RateLimiter } from '../../core/access/index.ts';
import type { Db } from '../../core/db/index.ts';
import { problem, sendProblem } from '../problem.ts';
import type { OperationState } from '../state.ts';

/**
 * Counts every authenticated request against its key's allowance, whatever it answers, and puts
 * the RateLimit headers on all of them (docs/api.md#rate-limits). `perMinute` 0: no limit.
 */
export function rateLimit(db: Db, perMinute: number) {
  if (perMinute <= 0) return async (_ctx: Context, next: Next): Promise<void> => next();
  const limiter = new RateLimiter(db, perMinute);
  const policy = `${perMinute};w=${RATE_LIMIT_WINDOW_MS / 1000}`;
  return async (ctx: Context, next: Next): Promise<void> => {
    const { auth } = ctx.state as OperationState;
    const limit = await limiter.take(auth!.keyId);
    ctx.set('ratelimit-limit', String(limit.limit));
    ctx.set('ratelimit-remaining', String(limit.remaining));
    ctx.set('ratelimit-reset', String(limit.resetSeconds));
    ctx.set('ratelimit-policy', policy);
    if (!limit.allowed) {
      ctx.set('retry-after', String(limit.resetSeconds));
      return sendProblem(ctx, problem(429, 'rate_limited', 'Too many requests', `This API key may make ${limit.limit} requests a minute; retry in ${limit.resetSeconds} s.`));
    }
    await next();
  };
}
