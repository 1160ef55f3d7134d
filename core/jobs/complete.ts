import { isPostgres, type DbOrTrx, runSql } from '../db/index.ts';

/** One attempt of a job as its worker holds it: (id, lockedBy, attempts) fences its result. */
export interface JobLease {
  id: string;
  attempts: number;
}

/**
 * Mark attempts of `workerId` done, in one statement. Fenced: a row changes only while it is
 * still running under this worker and this attempt number, so a worker whose lease expired (and
 * whose job was requeued or claimed again) changes nothing. Returns the ids that were updated.
 */
export async function completeJobs(db: DbOrTrx, workerId: string, leases: JobLease[], now: number): Promise<string[]> {
  if (!leases.length) return [];
  const set = `SET state = 'done', lease_expires_at = NULL, finished_at = ?, updated_at = ?`;
  const rows = isPostgres(db)
    ? await runSql<{ id: string }>(
        db,
        `UPDATE jobs ${set}
         WHERE state = 'running' AND locked_by = ?
           AND (id, attempts) IN (SELECT * FROM unnest(?::uuid[], ?::int[]))
         RETURNING id`,
        [now, now, workerId, leases.map((l) => l.id), leases.map((l) => l.attempts)],
      )
    : await runSql<{ id: string }>(
        db,
        `UPDATE jobs ${set}
         WHERE state = 'running' AND locked_by = ?
           AND (id, attempts) IN (VALUES ${leases.map(() => '(?, ?)').join(', ')})
         RETURNING id`,
        [now, now, workerId, ...leases.flatMap((l) => [l.id, l.attempts])],
      );
  return rows.map((r) => r.id);
}
