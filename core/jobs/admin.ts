import { isPostgres, Job, type DbOrTrx } from '../db/index.ts';
import { nowMs, toIso } from '../platform/index.ts';
import { JOBS_CHANNEL } from './enqueue.ts';
import type { JobState } from './kinds.ts';

// Operator views of the jobs table (npm run admin -- jobs ...).

export interface JobStats {
  /** Jobs per state, every state present. */
  states: Record<JobState, number>;
  /** Per kind: jobs per state (states with no jobs omitted). */
  kinds: Record<string, Partial<Record<JobState, number>>>;
  /** run_at of the oldest queued job that is due, or null. */
  oldestDueAt: string | null;
}

export async function jobStats(db: DbOrTrx): Promise<JobStats> {
  const rows = (await Job.query(db).select('kind', 'state').count({ n: '*' }).groupBy('kind', 'state')) as unknown as Array<{
    kind: string;
    state: JobState;
    n: number | string;
  }>;
  const states: Record<JobState, number> = { queued: 0, running: 0, done: 0, failed: 0, cancelled: 0 };
  const kinds: JobStats['kinds'] = {};
  for (const r of rows) {
    const n = Number(r.n);
    states[r.state] = (states[r.state] ?? 0) + n;
    (kinds[r.kind] ??= {})[r.state] = n;
  }
  const due = await Job.query(db)
    .where({ state: 'queued' })
    .andWhere('run_at', '<=', nowMs())
    .orderBy([{ column: 'run_at' }, { column: 'id' }])
    .select('run_at')
    .first();
  return { states, kinds, oldestDueAt: due ? toIso(due.run_at) : null };
}

export interface JobView {
  id: string;
  kind: string;
  state: JobState;
  payload: unknown;
  attempts: number;
  maxAttempts: number;
  runAt: string | null;
  lockedBy: string | null;
  leaseExpiresAt: string | null;
  lastError: string | null;
  dedupeKey: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  startedAt: string | null;
  finishedAt: string | null;
}

function view(r: Job): JobView {
  return {
    id: r.id,
    kind: r.kind,
    state: r.state,
    payload: r.payload,
    attempts: Number(r.attempts),
    maxAttempts: Number(r.max_attempts),
    runAt: toIso(r.run_at),
    lockedBy: r.locked_by,
    leaseExpiresAt: toIso(r.lease_expires_at),
    lastError: r.last_error,
    dedupeKey: r.dedupe_key,
    createdAt: toIso(r.created_at),
    updatedAt: toIso(r.updated_at),
    startedAt: toIso(r.started_at),
    finishedAt: toIso(r.finished_at),
  };
}

/** Newest first (ids are time-ordered). */
export async function listJobs(
  db: DbOrTrx,
  f: { state?: JobState; kind?: string; limit?: number } = {},
): Promise<JobView[]> {
  const q = Job.query(db).orderBy('id', 'desc').limit(f.limit ?? 50);
  if (f.state) q.where({ state: f.state });
  if (f.kind) q.where({ kind: f.kind });
  return (await q).map(view);
}

export async function getJob(db: DbOrTrx, id: string): Promise<JobView | null> {
  const row = await Job.query(db).findById(id);
  return row ? view(row) : null;
}

export type RetryResult =
  | { ok: true; job: JobView }
  | { ok: false; reason: 'not_found' | 'not_retryable' | 'duplicate'; detail: string };

/**
 * Re-queue a failed or cancelled job, due now, with its attempts reset to 0. Refused when the
 * job is in another state, or when another job with the same dedupe key is queued or running.
 */
export async function retryJob(db: DbOrTrx, id: string): Promise<RetryResult> {
  const job = await getJob(db, id);
  if (!job) return { ok: false, reason: 'not_found', detail: `No job ${id}.` };
  if (job.state !== 'failed' && job.state !== 'cancelled') {
    return { ok: false, reason: 'not_retryable', detail: `Job ${id} is ${job.state}; only failed or cancelled jobs can be retried.` };
  }
  if (job.dedupeKey !== null) {
    const other = await Job.query(db).where({ dedupe_key: job.dedupeKey }).whereIn('state', ['queued', 'running']).select('id').first();
    if (other) {
      return {
        ok: false,
        reason: 'duplicate',
        detail: `Job ${other.id} with the same dedupe key is already queued or running.`,
      };
    }
  }
  const now = nowMs();
  const n = await Job.query(db)
    .where({ id })
    .whereIn('state', ['failed', 'cancelled'])
    .update({
      state: 'queued',
      attempts: 0,
      run_at: now,
      locked_by: null,
      lease_expires_at: null,
      started_at: null,
      finished_at: null,
      updated_at: now,
    });
  if (n !== 1) return { ok: false, reason: 'not_retryable', detail: `Job ${id} changed meanwhile; try again.` };
  if (isPostgres(db)) await db.raw('SELECT pg_notify(?, ?)', [JOBS_CHANNEL, job.kind]);
  return { ok: true, job: (await getJob(db, id))! };
}
