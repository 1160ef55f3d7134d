import type { RetryPolicy } from './kinds.ts';

/**
 * Delay before the retry that follows failed attempt number `attempt` (1-based): exponential
 * (base * 2^(attempt-1), capped at max) with "equal jitter": half of it fixed, half random, so
 * retries of many jobs that failed together spread out but never come back sooner than half
 * the schedule. `random` is injectable so tests can pin the schedule.
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const exp = Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** Math.max(0, attempt - 1));
  const r = Math.min(1, Math.max(0, random()));
  return Math.round(exp / 2 + (exp / 2) * r);
}
