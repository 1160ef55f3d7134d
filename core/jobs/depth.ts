import { type DbOrTrx, runSql } from '../db/index.ts';

/**
 * Where the live part of the queue stands: `due` (queued, run_at reached: waiting for a free
 * worker slot), `scheduled` (queued for later: a check's delay, a webhook retry) or `running`.
 * Finished jobs are not counted.
 */
export type DepthState = 'due' | 'scheduled' | 'running';

export const DEPTH_STATES: readonly DepthState[] = ['due', 'scheduled', 'running'];

export interface QueueDepth {
  kind: string;
  state: DepthState;
  jobs: number;
  /** The smallest run_at of the group: for `due`, how long the oldest has waited. */
  oldestRunAt: number;
}

/**
 * One grouped statement for the metrics scrape. `state = 'queued' OR state = 'running'` lets
 * PostgreSQL read the two partial indexes (jobs_claim_idx, jobs_running_idx) instead of every
 * finished job the table still holds.
 */
export async function queueDepth(db: DbOrTrx, now: number): Promise<QueueDepth[]> {
  const rows = await runSql<{ kind: string; depth_state: DepthState; jobs: number | string; oldest_run_at: number | string }>(
    db,
    `SELECT kind,
            CASE WHEN state = 'running' THEN 'running' WHEN run_at <= CAST(? AS BIGINT) THEN 'due' ELSE 'scheduled' END AS depth_state,
            COUNT(*) AS jobs, MIN(run_at) AS oldest_run_at
     FROM jobs
     WHERE state = 'queued' OR state = 'running'
     GROUP BY 1, 2`,
    [now],
  );
  return rows.map((r) => ({ kind: r.kind, state: r.depth_state, jobs: Number(r.jobs), oldestRunAt: Number(r.oldest_run_at) }));
}
