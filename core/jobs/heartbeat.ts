import { type DbOrTrx, runSql } from '../db/index.ts';
import type { JobLease } from './complete.ts';

/**
 * Extend the lease of every job `workerId` is running, in one statement (one heartbeat per
 * worker, however many jobs it runs). Returns the leases it still holds: a job the worker
 * thinks it runs but that is missing here was recovered by another worker, and its attempt
 * should be aborted. A lease that ran out but that no one recovered yet is simply renewed:
 * no other attempt exists, so this one may go on.
 */
export async function extendLeases(db: DbOrTrx, workerId: string, o: { now: number; leaseMs: number }): Promise<JobLease[]> {
  const rows = await runSql<{ id: string; attempts: number }>(
    db,
    `UPDATE jobs SET lease_expires_at = ?
     WHERE state = 'running' AND locked_by = ?
     RETURNING id, attempts`,
    [o.now + o.leaseMs, workerId],
  );
  return rows.map((r) => ({ id: r.id, attempts: Number(r.attempts) }));
}
