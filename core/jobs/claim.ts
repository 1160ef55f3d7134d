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
  /** The workspace the job works for; null for jobs of no workspace (maintenance). */
  workspaceId: string | null;
}

interface Row {
  id: string;
  kind: string;
  payload: string;
  attempts: number;
  max_attempts: number;
  run_at: number;
  created_at: number;
  workspace_id: string | null;
}

export interface ClaimOptions {
  workerId: string;
  /** Up to this many jobs (the worker's free slots). */
  limit: number;
  leaseMs: number;
  now: number;
  /** Workspaces with a job running in this worker now (the fair-share rule below). */
  busyWorkspaces?: readonly string[];
}

// The fair-share rule ("Fair workers" in docs/operating.md#processes-and-scaling): a workspace
// that already has a job running in this worker, or one in the same claim, never takes the
// worker's last free slot. That slot goes to a workspace with nothing running here (or to a job
// of no workspace), so one or two workspaces whose jobs hang until their timeouts cannot hold every slot while
// another workspace's check is due. `head` takes all but the last slot in queue order; `tail`
// takes the last slot for the oldest due job of a workspace that is neither busy here nor in
// `head`.
//
// PostgreSQL: one statement. Both CTEs walk jobs_claim_idx (run_at, id WHERE state = 'queued')
// in order and skip rows other workers have locked; the UPDATE takes the lease and counts the
// attempt. `tail` skips busy workspaces' due rows one by one: a cost only while the worker is
// full but for one slot.
export const PG_CLAIM = `
WITH head AS (
  SELECT id, workspace_id FROM jobs
  WHERE state = 'queued' AND run_at <= ?
  ORDER BY run_at, id
  LIMIT ?
  FOR UPDATE SKIP LOCKED
),
tail AS (
  SELECT id FROM jobs
  WHERE state = 'queued' AND run_at <= ?
    AND id NOT IN (SELECT id FROM head)
    AND (workspace_id IS NULL OR (
      workspace_id <> ALL(CAST(? AS uuid[]))
      AND workspace_id NOT IN (SELECT workspace_id FROM head WHERE workspace_id IS NOT NULL)))
  ORDER BY run_at, id
  LIMIT ?
  FOR UPDATE SKIP LOCKED
),
due AS (SELECT id FROM head UNION ALL SELECT id FROM tail)
UPDATE jobs AS j
SET state = 'running', attempts = j.attempts + 1, locked_by = ?, lease_expires_at = ?,
    started_at = ?, updated_at = ?
FROM due
WHERE j.id = due.id
RETURNING j.id, j.kind, j.payload, j.attempts, j.max_attempts, j.run_at, j.created_at, j.workspace_id`;

// SQLite: the same rule in a single statement. A write statement takes the database's write
// lock before it reads (as BEGIN IMMEDIATE would), waiting through busy_timeout, so the
// subqueries and the update see the same rows and two processes can never claim the same job.
const SQLITE_CLAIM = `
WITH head AS (
  SELECT id, workspace_id FROM jobs
  WHERE state = 'queued' AND run_at <= ?
  ORDER BY run_at, id
  LIMIT ?
),
tail AS (
  SELECT id FROM jobs
  WHERE state = 'queued' AND run_at <= ?
    AND id NOT IN (SELECT id FROM head)
    AND (workspace_id IS NULL OR (
      workspace_id NOT IN (SELECT value FROM json_each(?))
      AND workspace_id NOT IN (SELECT workspace_id FROM head WHERE workspace_id IS NOT NULL)))
  ORDER BY run_at, id
  LIMIT ?
)
UPDATE jobs
SET state = 'running', attempts = attempts + 1, locked_by = ?, lease_expires_at = ?,
    started_at = ?, updated_at = ?
WHERE id IN (SELECT id FROM head UNION ALL SELECT id FROM tail)
RETURNING id, kind, payload, attempts, max_attempts, run_at, created_at, workspace_id`;

/**
 * Take up to `limit` due jobs, oldest run_at first, under the fair-share rule above, and lease
 * them to `workerId`.
 */
export async function claimJobs(db: DbOrTrx, o: ClaimOptions): Promise<ClaimedJob[]> {
  if (o.limit <= 0) return [];
  const lease = o.now + o.leaseMs;
  const busy = o.busyWorkspaces ?? [];
  const head = o.limit - 1;
  const rows = isPostgres(db)
    ? await rawRows<Row>(db, PG_CLAIM, [o.now, head, o.now, busy, 1, o.workerId, lease, o.now, o.now])
    : await rawRows<Row>(db, SQLITE_CLAIM, [o.now, head, o.now, JSON.stringify(busy), 1, o.workerId, lease, o.now, o.now]);
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
    workspaceId: r.workspace_id ?? null,
  }));
}
