import { isPostgres, type DbOrTrx, rawRows } from '../db/index.ts';
import type { JobKind, JobPayloads } from './kinds.ts';

export interface ClaimedJob<K extends JobKind = JobKind> {
  id: string;
  /** A JobKind, unless a newer release enqueued a kind this one does not know. */
  kind: K;
  payload: JobPayloads[K];
  /** This attempt's number (1 for the first run); with id and lockedBy it fences the result. */
  attempts: number;
  maxAttempts: number;
  lockedBy: string;
  runAt: number;
  createdAt: number;
  leaseExpiresAt: number;
}

interface Row {
  id: string;
  kind: string;
  payload: string;
  attempts: number;
  max_attempts: number;
  run_at: number;
  created_at: number;
}

export interface ClaimOptions {
  workerId: string;
  /** Up to this many jobs (the worker's free slots). */
  limit: number;
  leaseMs: number;
  now: number;
}

// PostgreSQL: one statement. The CTE walks jobs_claim_idx (run_at, id WHERE state = 'queued')
// in order, skips rows other workers have locked, stops after `limit`, and the UPDATE takes
// the lease and counts the attempt.
export const PG_CLAIM = `
WITH due AS (
  SELECT id FROM jobs
  WHERE state = 'queued' AND run_at <= ?
  ORDER BY run_at, id
  LIMIT ?
  FOR UPDATE SKIP LOCKED
)
UPDATE jobs AS j
SET state = 'running', attempts = j.attempts + 1, locked_by = ?, lease_expires_at = ?,
    started_at = ?, updated_at = ?
FROM due
WHERE j.id = due.id
RETURNING j.id, j.kind, j.payload, j.attempts, j.max_attempts, j.run_at, j.created_at`;

// SQLite: the same single statement. A write statement takes the database's write lock before
// it reads (as BEGIN IMMEDIATE would), waiting through busy_timeout, so the subquery and the
// update see the same rows and two processes can never claim the same job.
const SQLITE_CLAIM = `
UPDATE jobs
SET state = 'running', attempts = attempts + 1, locked_by = ?, lease_expires_at = ?,
    started_at = ?, updated_at = ?
WHERE id IN (
  SELECT id FROM jobs
  WHERE state = 'queued' AND run_at <= ?
  ORDER BY run_at, id
  LIMIT ?
)
RETURNING id, kind, payload, attempts, max_attempts, run_at, created_at`;

/** Take up to `limit` due jobs, oldest run_at first, and lease them to `workerId`. */
export async function claimJobs(db: DbOrTrx, o: ClaimOptions): Promise<ClaimedJob[]> {
  if (o.limit <= 0) return [];
  const lease = o.now + o.leaseMs;
  const rows = isPostgres(db)
    ? await rawRows<Row>(db, PG_CLAIM, [o.now, o.limit, o.workerId, lease, o.now, o.now])
    : await rawRows<Row>(db, SQLITE_CLAIM, [o.workerId, lease, o.now, o.now, o.now, o.limit]);
  // RETURNING order is unspecified on both engines: restore the claim order.
  rows.sort((a, b) => a.run_at - b.run_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind as JobKind,
    payload: JSON.parse(r.payload) as JobPayloads[JobKind],
    attempts: Number(r.attempts),
    maxAttempts: Number(r.max_attempts),
    lockedBy: o.workerId,
    runAt: Number(r.run_at),
    createdAt: Number(r.created_at),
    leaseExpiresAt: lease,
  }));
}
