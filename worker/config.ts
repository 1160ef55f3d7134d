import { loadConfig, type Config } from '../core/platform/index.ts';

// Worker settings: README.md#configuration (WORKER_CONCURRENCY, WORKER_POLL_MS) plus the queue's own.
//
// | variable                  | default          | meaning                                          |
// | JOB_LEASE_MS              | 60000            | a claimed job belongs to its worker this long    |
// | JOB_HEARTBEAT_MS          | JOB_LEASE_MS / 3 | how often a worker renews its leases             |
// | JOB_SHUTDOWN_MS           | 25000            | SIGTERM: how long running jobs may finish        |
// | JOB_MAINTENANCE_PERIOD_MS | 3600000          | retention and cleanup run once per period        |
// | JOB_ASYNC_COMMIT          | 1                | PostgreSQL: queue bookkeeping without WAL flush  |
// | WORKER_METRICS_PORT       | (off)            | serve GET /metrics there, on METRICS_HOST        |

export interface WorkerConfig {
  base: Config;
  concurrency: number;
  pollMs: number;
  leaseMs: number;
  heartbeatMs: number;
  shutdownMs: number;
  maintenancePeriodMs: number;
  asyncCommit: boolean;
  /** WORKER_METRICS_PORT: the metrics listener's port; null: no listener (the default). */
  metricsPort: number | null;
}

function num(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number >= ${min}, got "${raw}"`);
  return n;
}

function port(env: NodeJS.ProcessEnv, name: string): number | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${name} must be a port number from 1 to 65535, got "${raw}"`);
  return n;
}

export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const base = loadConfig(env);
  const leaseMs = num(env, 'JOB_LEASE_MS', 60_000, 100);
  const heartbeatMs = num(env, 'JOB_HEARTBEAT_MS', Math.floor(leaseMs / 3), 10);
  if (heartbeatMs >= leaseMs) throw new Error('JOB_HEARTBEAT_MS must be shorter than JOB_LEASE_MS');
  return {
    base,
    concurrency: base.workerConcurrency,
    pollMs: base.workerPollMs,
    leaseMs,
    heartbeatMs,
    shutdownMs: num(env, 'JOB_SHUTDOWN_MS', 25_000, 0),
    maintenancePeriodMs: num(env, 'JOB_MAINTENANCE_PERIOD_MS', 3_600_000, 1000),
    asyncCommit: env.JOB_ASYNC_COMMIT !== '0' && env.JOB_ASYNC_COMMIT !== 'false',
    metricsPort: port(env, 'WORKER_METRICS_PORT'),
  };
}

/**
 * The PostgreSQL URL for the queue's own pool (claim, complete, fail, heartbeat, recovery,
 * release), with session settings for those statements only:
 *
 * - `enable_sort=off`: the claim must walk jobs_claim_idx in order and stop after N rows. With
 *   stale statistics (a burst of jobs before autovacuum analyzes the table) the planner may
 *   otherwise pick a bitmap scan of every due job plus a sort: a scan of the whole backlog for
 *   every claim. The claim's few sorts (its fair-share ranking of a few dozen candidates)
 *   stay, as nothing else can compute them, but their cost estimate becomes huge.
 * - `jit=off`: that estimate would otherwise pass jit_above_cost, and compiling the claim took
 *   about 350 ms per execution against 0.7 ms without (EXPLAIN ANALYZE, PostgreSQL 15). No
 *   queue statement runs long enough for JIT to pay.
 * - `synchronous_commit=off` (JOB_ASYNC_COMMIT, default on): commits return without waiting for
 *   the WAL flush, which on a slow disk is most of their cost. Consistency is unchanged; a
 *   PostgreSQL crash can lose the last fraction of a second of claims and completions, so those
 *   jobs run again (at-least-once, as after a worker crash). WAL is flushed in order, so a
 *   handler's own synchronous writes are never lost while its job's completion survives.
 *   Enqueue runs in the caller's transaction, synchronous.
 */
export function queueSessionUrl(url: string, o: { asyncCommit: boolean }): string {
  const u = new URL(url);
  const settings = [u.searchParams.get('options'), '-c enable_sort=off -c jit=off'];
  if (o.asyncCommit) settings.push('-c synchronous_commit=off');
  u.searchParams.set('options', settings.filter(Boolean).join(' '));
  return u.toString();
}
