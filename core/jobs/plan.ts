import type { PlanStep, PlannedRow } from '../db/index.ts';
import { nowMs } from '../platform/index.ts';
import { retryPolicy, type JobKind, type JobPayloads } from './kinds.ts';
import { wakeWorkersAfterCommit } from './wake.ts';

// Jobs as part of another domain's write plan (core/db/write-plan.ts): the job commits with the
// rows it is about, in the same statement on PostgreSQL.

const JOB_COLUMNS = ['id', 'payload', 'run_at', 'dedupe_key', 'workspace_id', 'created_at', 'updated_at'];

/**
 * A plan step that queues one job of `kind`, with its kind's retry policy, once the steps in
 * `after` went in. For a job whose dedupe key
 * names a row the same plan creates, so no other job can hold it (enqueue handles duplicates).
 * A due job wakes listening workers once it is committed.
 */
export function jobStep(kind: JobKind, after: readonly string[]): PlanStep {
  return {
    table: 'jobs',
    columns: JOB_COLUMNS,
    fixed: { kind, state: 'queued', attempts: 0, max_attempts: retryPolicy(kind).maxAttempts },
    after,
    onInserted: (db, row) => {
      if (Number(row.run_at) <= nowMs()) wakeWorkersAfterCommit(db);
    },
  };
}

export interface PlannedJob {
  id: string;
  runAt: number;
  dedupeKey: string;
  workspaceId: string | null;
  now: number;
}

/** The row of a `jobStep(kind)`. */
export function jobRow<K extends JobKind>(_kind: K, payload: JobPayloads[K], job: PlannedJob): PlannedRow {
  return {
    id: job.id,
    payload: JSON.stringify(payload),
    run_at: job.runAt,
    dedupe_key: job.dedupeKey,
    workspace_id: job.workspaceId,
    created_at: job.now,
    updated_at: job.now,
  };
}
