import { type DbOrTrx, runSql } from '../db/index.ts';
import { safeErrorText } from '../platform/index.ts';
import type { JobLease } from './complete.ts';

export type FailOutcome = 'retry' | 'failed' | 'stale';

/**
 * Record a failed attempt, fenced like completion. While attempts < max_attempts and `retryAt`
 * is given, the job goes back to `queued` at `retryAt`; otherwise it is `failed` for good,
 * keeping `error` as its last_error. `stale` means the lease was no longer this worker's.
 */
export async function failJob(
  db: DbOrTrx,
  workerId: string,
  lease: JobLease,
  o: { error: unknown; retryAt: number | null; now: number },
): Promise<FailOutcome> {
  const retry = o.retryAt === null ? 0 : 1;
  const rows = await runSql<{ state: string }>(
    db,
    `UPDATE jobs SET
       state = CASE WHEN CAST(? AS INTEGER) = 1 AND attempts < max_attempts THEN 'queued' ELSE 'failed' END,
       run_at = CASE WHEN CAST(? AS INTEGER) = 1 AND attempts < max_attempts THEN CAST(? AS BIGINT) ELSE run_at END,
       finished_at = CASE WHEN CAST(? AS INTEGER) = 1 AND attempts < max_attempts THEN NULL ELSE CAST(? AS BIGINT) END,
       locked_by = CASE WHEN CAST(? AS INTEGER) = 1 AND attempts < max_attempts THEN NULL ELSE locked_by END,
       lease_expires_at = NULL, last_error = ?, updated_at = ?
     WHERE id = ? AND locked_by = ? AND attempts = ? AND state = 'running'
     RETURNING state`,
    [retry, retry, o.retryAt ?? o.now, retry, o.now, retry, safeErrorText(o.error), o.now, lease.id, workerId, lease.attempts],
  );
  if (!rows.length) return 'stale';
  return rows[0].state === 'queued' ? 'retry' : 'failed';
}
