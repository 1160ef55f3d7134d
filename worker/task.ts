import type { Logger } from 'pino';
import type { Db } from '../core/db/index.ts';
import type { Config } from '../core/platform/index.ts';
import type { JobKind, JobPayloads } from '../core/jobs/index.ts';
import type { DeliveryObserver } from '../core/webhooks/index.ts';

export interface TaskContext {
  /** The worker's database handle (not a transaction: open one if the task needs it). */
  db: Db;
  /**
   * Aborted when the attempt must stop: its kind's timeout passed, its lease was lost to another
   * worker, or the worker is shutting down past its deadline. Pass it to fetch, timers, etc.
   */
  signal: AbortSignal;
  job: { id: string; kind: string; attempts: number; maxAttempts: number };
  /** Child logger carrying kind, jobId and attempt. */
  logger: Logger;
  /** The worker's clock (core/clock.ts unless a test injects one). */
  now(): number;
  /** The service's settings (README.md#configuration). */
  config: Config;
  /** Webhook deliveries report each attempt here (the worker's metrics, when they are on). */
  observeDelivery?: DeliveryObserver;
}

/** Resolve = done. Throw = failed attempt, retried with backoff (PermanentJobError: not retried). */
export type TaskHandler<K extends JobKind> = (payload: JobPayloads[K], ctx: TaskContext) => Promise<void>;

/** One handler per declared kind: a kind without a handler does not compile. */
export type TaskRegistry = { [K in JobKind]: TaskHandler<K> };

/**
 * Handlers for kinds outside core's list, which tests and benchmarks add to a worker's registry
 * (a job that records its runs, a no-op for queue throughput); production workers have none.
 */
export type ExtraTasks = Record<string, (payload: never, ctx: TaskContext) => Promise<void>>;

/** Fails the job at once, whatever attempts remain (bad payload, missing record, ...). */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentJobError';
  }
}
