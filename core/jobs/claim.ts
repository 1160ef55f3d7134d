import { isPostgres, type DbOrTrx, runSql } from '../db/index.ts';
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
  /** The workspace of each job running in this worker now, repeated per job (the fair-share rule below). */
  busyWorkspaces?: readonly string[];
}

// The fair-share rule ("Fair workers" in docs/operating.md#processes-and-scaling): a workspace
// running k jobs in this worker takes another only while more than k slots are free. So one
// workspace alone holds half the slots (rounded up: 2 of 4, 4 of 8), the next one half of what
// is left, and so on: two workspaces whose jobs hang hold at most 3 of 4 slots, and a third
// workspace with nothing running finds the last one. Jobs of no workspace (maintenance) are
// exempt.
//
// As a single statement: `candidates` is a short run of the due queue in order (workspaces that
// can take nothing now are skipped in the scan, so a long backlog of one workspace cannot hide
// another's job behind it); each candidate's `share` is what its workspace would be running
// when it starts (jobs running here plus its earlier candidates); ordered by share, then queue
// order, the candidate at `position` p is taken while `free - (p - 1) > share`. Taken in that
// order the condition only gets harder, so what is taken is a prefix: the rule applied one job
// at a time, least-loaded workspace first.
const SHARED_CTES = `
busy AS (SELECT key AS workspace_id, CAST(value AS integer) AS k FROM %JSON_EACH%),
candidates AS (
  SELECT id, workspace_id, run_at FROM jobs
  WHERE state = 'queued' AND run_at <= ?
    AND (workspace_id IS NULL OR workspace_id NOT IN (SELECT %BUSY_ID% FROM busy WHERE k >= ?))
  ORDER BY run_at, id
  LIMIT ?%LOCK%
),
ranked AS (
  SELECT c.id, c.run_at,
    CASE WHEN c.workspace_id IS NULL THEN 0
      ELSE COALESCE(b.k, 0) + row_number() OVER (PARTITION BY c.workspace_id ORDER BY c.run_at, c.id) - 1 END AS share
  FROM candidates c LEFT JOIN busy b ON %BUSY_ID_B% = c.workspace_id
),
ordered AS (SELECT id, share, row_number() OVER (ORDER BY share, run_at, id) AS position FROM ranked)`;

// PostgreSQL: the candidates are locked as the scan walks the queue, skipping rows other
// workers hold, so concurrent claims rank disjoint runs of the queue; the few candidates the
// rule does not take are unlocked when the statement ends.
export const PG_CLAIM = `
WITH ${SHARED_CTES.replace('%JSON_EACH%', 'json_each_text(CAST(? AS json))').replace('%BUSY_ID%', 'CAST(workspace_id AS uuid)').replace('%BUSY_ID_B%', 'CAST(b.workspace_id AS uuid)').replace('%LOCK%', '\n  FOR UPDATE SKIP LOCKED')},
chosen AS MATERIALIZED (
  SELECT id FROM ordered WHERE ? - (position - 1) > share ORDER BY position LIMIT ?
)
UPDATE jobs AS j
SET state = 'running', attempts = j.attempts + 1, locked_by = ?, lease_expires_at = ?,
    started_at = ?, updated_at = ?
FROM chosen
WHERE j.id = chosen.id
RETURNING j.id, j.kind, j.payload, j.attempts, j.max_attempts, j.run_at, j.created_at, j.workspace_id`;

// SQLite: the same statement. A write statement takes the database's write lock before it
// reads (as BEGIN IMMEDIATE would), waiting through busy_timeout, so the subqueries and the
// update see the same rows and two processes can never claim the same job.
const SQLITE_CLAIM = `
WITH ${SHARED_CTES.replace('%JSON_EACH%', 'json_each(?)').replace('%BUSY_ID%', 'workspace_id').replace('%BUSY_ID_B%', 'b.workspace_id').replace('%LOCK%', '')},
picked AS (SELECT id FROM ordered WHERE ? - (position - 1) > share ORDER BY position LIMIT ?)
UPDATE jobs
SET state = 'running', attempts = attempts + 1, locked_by = ?, lease_expires_at = ?,
    started_at = ?, updated_at = ?
WHERE id IN (SELECT id FROM picked)
RETURNING id, kind, payload, attempts, max_attempts, run_at, created_at, workspace_id`;

/**
 * How far into the due queue one claim looks, and so how many rows it locks: as many as it may
 * take, as before the rule. That is enough: a workspace the rule stops is left out of the next
 * claim's scan, so a busy workspace's backlog holds another workspace back by one claim at most.
 */
const scanLength = (free: number) => free;

/**
 * Take up to `limit` due jobs, oldest run_at first, under the fair-share rule above, and lease
 * them to `workerId`.
 */
export async function claimJobs(db: DbOrTrx, o: ClaimOptions): Promise<ClaimedJob[]> {
  if (o.limit <= 0) return [];
  const lease = o.now + o.leaseMs;
  const busy: Record<string, number> = {};
  for (const id of o.busyWorkspaces ?? []) busy[id] = (busy[id] ?? 0) + 1;
  const bindings = [JSON.stringify(busy), o.now, o.limit, scanLength(o.limit), o.limit, o.limit, o.workerId, lease, o.now, o.now];
  const rows = await runSql<Row>(db, isPostgres(db) ? PG_CLAIM : SQLITE_CLAIM, bindings);
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
