import { type DbOrTrx, runSql } from '../db/index.ts';

export interface RecoveredJob {
  id: string;
  kind: string;
  state: 'queued' | 'failed';
  attempts: number;
}

/**
 * Recover jobs whose lease ran out (their worker died or stalled): back to `queued`, due now,
 * or `failed` when that was the last allowed attempt (a job that kills its worker every time
 * must not loop forever). Any worker may run it; it uses jobs_running_idx. The SET expressions
 * read the row as it was, so the error names the worker that lost the lease. (Parameters in
 * a CASE are cast: PostgreSQL would otherwise take them for text.)
 */
export async function resetExpiredLeases(db: DbOrTrx, now: number): Promise<RecoveredJob[]> {
  const rows = await runSql<RecoveredJob>(
    db,
    `UPDATE jobs SET
       state = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END,
       run_at = CASE WHEN attempts >= max_attempts THEN run_at ELSE CAST(? AS BIGINT) END,
       finished_at = CASE WHEN attempts >= max_attempts THEN CAST(? AS BIGINT) ELSE NULL END,
       locked_by = CASE WHEN attempts >= max_attempts THEN locked_by ELSE NULL END,
       last_error = 'lease expired: worker ' || COALESCE(locked_by, 'unknown') || ' stopped renewing it',
       lease_expires_at = NULL, updated_at = ?
     WHERE state = 'running' AND lease_expires_at < ?
     RETURNING id, kind, state, attempts`,
    [now, now, now, now],
  );
  return rows.map((r) => ({ ...r, attempts: Number(r.attempts) }));
}
