import { loadConfig, type Config } from '../core/config.ts';

// Worker settings: CONTRACT 1.1 (WORKER_CONCURRENCY, WORKER_POLL_MS) plus the queue's own.
//
// | variable                  | default          | meaning                                          |
// | JOB_LEASE_MS              | 60000            | a claimed job belongs to its worker this long    |
// | JOB_HEARTBEAT_MS          | JOB_LEASE_MS / 3 | how often a worker renews its leases             |
// | JOB_SHUTDOWN_MS           | 25000            | SIGTERM: how long running jobs may finish        |
// | JOB_MAINTENANCE_PERIOD_MS | 3600000          | retention and cleanup run once per period        |

export interface WorkerConfig {
  base: Config;
  concurrency: number;
  pollMs: number;
  leaseMs: number;
  heartbeatMs: number;
  shutdownMs: number;
  maintenancePeriodMs: number;
}

function num(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number >= ${min}, got "${raw}"`);
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
  };
}
