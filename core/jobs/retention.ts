import { DAY_MS, type RetentionRule } from '../db/index.ts';

// Finished jobs are kept a week (operators read recent history with `jobs list`), failed ones a
// month so their last error can still be read and retried.
export const jobRetention: RetentionRule[] = [
  { name: 'jobs_done', table: 'jobs', column: 'finished_at', maxAgeMs: 7 * DAY_MS, where: (q) => q.whereIn('state', ['done', 'cancelled']) },
  { name: 'jobs_failed', table: 'jobs', column: 'finished_at', maxAgeMs: 30 * DAY_MS, where: (q) => q.where('state', 'failed') },
];
