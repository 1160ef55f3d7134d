import { type DbOrTrx, runSql } from '../db/index.ts';

/**
 * Graceful shutdown: give every job `workerId` still runs back to the queue, due now, without
 * counting the interrupted attempt. Still fenced: the attempt number goes back down, but
 * locked_by is cleared, so the stopped attempt's late result matches no row.
 */
export async function releaseJobs(db: DbOrTrx, workerId: string, now: number): Promise<string[]> {
  const rows = await runSql<{ id: string }>(
    db,
    `UPDATE jobs SET state = 'queued', attempts = attempts - 1, run_at = ?, locked_by = NULL,
       lease_expires_at = NULL, last_error = 'released: the worker shut down before the job finished',
       updated_at = ?
     WHERE state = 'running' AND locked_by = ?
     RETURNING id`,
    [now, now, workerId],
  );
  return rows.map((r) => r.id);
}
