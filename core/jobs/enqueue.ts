import { type DbOrTrx, runSql } from '../db/index.ts';
import { nowMs, newId } from '../platform/index.ts';
import { retryPolicy, type JobKind, type JobPayloads } from './kinds.ts';
import { wakeWorkersAfterCommit } from './wake.ts';

export { JOBS_CHANNEL } from './channel.ts';

export interface EnqueueOptions {
  /** Epoch ms; default now. */
  runAt?: number;
  /** Default: the kind's retry policy (core/jobs/kinds.ts). */
  maxAttempts?: number;
  /**
   * At most one queued or running job holds a given key (finished jobs never block a new one).
   * Namespace keys by what they identify, e.g. `site_check:<checkId>`.
   */
  dedupeKey?: string;
  /**
   * When a job with the same dedupe key is queued or running:
   * - `ignore` (default): keep it as it is;
   * - `replace`: if it is still queued (and of the same kind), move it to the new runAt with
   *   the new payload and maxAttempts, keeping its id. A running job is never changed.
   */
  onDuplicate?: 'ignore' | 'replace';
  /** The workspace the job works for: workers share their slots fairly between workspaces (claim.ts). */
  workspaceId?: string;
}

export interface EnqueueResult {
  /** The job that now stands for this request: the new one, or the existing duplicate. */
  id: string;
  /** `inserted` a new row; `replaced` moved a queued duplicate; `ignored` left a duplicate alone. */
  outcome: 'inserted' | 'replaced' | 'ignored';
}

/**
 * Add a job inside the caller's transaction, so the job commits or rolls back with the rows it
 * is about. On PostgreSQL a due job wakes listening workers once (and only if) it commits
 * (see wake.ts).
 */
export function enqueue<K extends JobKind>(trx: DbOrTrx, kind: K, payload: JobPayloads[K], options: EnqueueOptions = {}): Promise<EnqueueResult> {
  return enqueueKind(trx, kind, payload, options);
}

/**
 * `enqueue` for a kind outside core's list: tests and benchmarks run workers whose registry adds
 * their own kinds (see worker/process.ts).
 */
export async function enqueueKind(trx: DbOrTrx, kind: string, payload: unknown, options: EnqueueOptions = {}): Promise<EnqueueResult> {
  const now = nowMs();
  const runAt = Math.round(options.runAt ?? now);
  const maxAttempts = options.maxAttempts ?? retryPolicy(kind).maxAttempts;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new Error('maxAttempts must be a positive integer');
  const id = newId();
  const values = [id, kind, JSON.stringify(payload), runAt, maxAttempts, options.dedupeKey ?? null, options.workspaceId ?? null, now, now];
  const insert = `INSERT INTO jobs (id, kind, payload, state, run_at, attempts, max_attempts, dedupe_key, workspace_id, created_at, updated_at)
    VALUES (?, ?, ?, 'queued', ?, 0, ?, ?, ?, ?, ?)`;

  // Without a dedupe key there is no conflict to handle; with one, the conflict target names
  // the partial unique index (same predicate) on both engines.
  let sql = insert;
  if (options.dedupeKey !== undefined) {
    sql +=
      (options.onDuplicate ?? 'ignore') === 'replace'
        ? ` ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL AND state IN ('queued', 'running')
            DO UPDATE SET payload = excluded.payload, run_at = excluded.run_at,
              max_attempts = excluded.max_attempts, updated_at = excluded.updated_at
            WHERE jobs.state = 'queued' AND jobs.kind = excluded.kind`
        : ` ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL AND state IN ('queued', 'running') DO NOTHING`;
  }
  sql += ' RETURNING id';
  const bindings: unknown[] = values;
  const rows = await runSql<{ id: string }>(trx, sql, bindings);
  // Future jobs are found by the workers' poll.
  if (rows.length && runAt <= now) wakeWorkersAfterCommit(trx);
  if (rows.length) return { id: rows[0].id, outcome: rows[0].id === id ? 'inserted' : 'replaced' };
  const existing = (await trx('jobs')
    .select('id')
    .where({ dedupe_key: options.dedupeKey ?? null })
    .orderBy('created_at', 'desc')
    .first()) as { id: string } | undefined;
  return { id: existing?.id ?? id, outcome: 'ignored' };
}
