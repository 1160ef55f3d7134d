import crypto from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import type { Logger } from 'pino';
import { isDatabaseUnavailable, isPostgres, type Db } from '../core/db/index.ts';
import { loadConfig, nowMs, safeErrorText as errorText, type Config } from '../core/platform/index.ts';
import {
  JOBS_CHANNEL,
  claimJobs,
  completeJobs,
  extendLeases,
  failJob,
  releaseJobs,
  resetExpiredLeases,
  retryDelayMs,
  retryPolicy,
  type ClaimedJob,
  type FailOutcome,
  type JobLease,
} from '../core/jobs/index.ts';
import type { DeliveryObserver } from '../core/webhooks/index.ts';
import { scheduleMaintenance } from './maintenance.ts';
import { runSchedules } from '../core/monitoring/index.ts';
import { queueDueDigests } from '../core/digests/index.ts';
import { PermanentJobError, type ExtraTasks, type TaskContext, type TaskRegistry } from './task.ts';

export interface RunnerOptions {
  /** The handlers' database handle. */
  db: Db;
  /**
   * Pool for the queue's own statements (claim, complete, fail, heartbeat, recovery, release);
   * default `db`. worker/main.ts gives it asynchronous commit on PostgreSQL (see there).
   */
  queueDb?: Db;
  tasks: TaskRegistry & ExtraTasks;
  logger: Logger;
  /** Settings handed to tasks; default: read from the environment. */
  config?: Config;
  /** Jobs run at once. */
  concurrency: number;
  /** Idle poll interval; on PostgreSQL NOTIFY wakes the runner sooner. */
  pollMs: number;
  leaseMs: number;
  heartbeatMs: number;
  /** How often this runner recovers expired leases; default min(leaseMs / 2, 15 s). */
  recoverMs?: number;
  /** PostgreSQL URL for the LISTEN connection; absent or SQLite: polling only. */
  listenUrl?: string;
  /** Schedule the maintenance job for each period of this length; null: don't. */
  maintenancePeriodMs?: number | null;
  /** Queue the workspaces' scheduled checks and crawls this often (core/monitoring); null: don't. */
  scheduleTickMs?: number | null;
  workerId?: string;
  now?: () => number;
  random?: () => number;
  /** Told of every claim and every attempt's end (worker/metrics.ts); absent: nothing is counted. */
  metrics?: JobMetrics;
}

export type JobOutcome = 'done' | 'retry' | 'failed' | 'stale' | 'lease_lost' | 'released' | 'error';

export interface JobMetrics {
  /** A job was claimed `waitMs` after its run_at. */
  claimed(kind: string, waitMs: number): void;
  /** An attempt ended; `durationMs` is its handler's run time. */
  finished(kind: string, outcome: JobOutcome, durationMs: number): void;
  /** Handed to tasks as TaskContext.observeDelivery. */
  observeDelivery: DeliveryObserver;
}

interface Running {
  job: ClaimedJob;
  ac: AbortController;
  /** Claim batch number: the heartbeat judges only jobs claimed before it started. */
  claimSeq: number;
  /** Set when the worker no longer owns the attempt: its result is not written. */
  gone: 'lease_lost' | 'released' | null;
  done: Promise<void>;
}

export function defaultWorkerId(): string {
  return `${os.hostname().slice(0, 80)}/${process.pid}/${crypto.randomBytes(3).toString('hex')}`;
}

/**
 * Claims due jobs in batches (up to its free slots), runs them, and writes their results,
 * batching completions: a slot is free again as soon as its handler returns, and the
 * completions that pile up while one write is in flight go out together in the next.
 * It claims again at once while claims keep finding work, and otherwise waits for a NOTIFY
 * (PostgreSQL), the poll timer, or a job finishing while the queue may still hold due jobs.
 */
export class Runner {
  readonly workerId: string;
  private readonly options: RunnerOptions;
  private readonly queueDb: Db;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly config: Config;
  private readonly running = new Map<string, Running>();
  private readonly writes = new Set<Promise<unknown>>();
  private pendingCompletions: Array<{ lease: JobLease; resolve: (ok: boolean) => void; reject: (e: unknown) => void }> =
    [];
  private completionFlush: Promise<void> | null = null;
  private claiming = false;
  private claimScheduled = false;
  /** The queue may hold due jobs (false once a claim came back short, until woken). */
  private maybeMore = true;
  /**
   * The last claim left slots free while jobs were running here: the fair-share rule
   * (core/jobs/claim.ts) may have held busy workspaces' due jobs back, so a finishing job claims
   * again at once instead of waiting for the poll.
   */
  private heldBack = false;
  /** Counts wake-ups so a wake-up during a claim is not lost. */
  private wakeSeq = 0;
  private claimSeq = 0;
  private stopping = false;
  /** Aborted when stop() begins: result writes waiting to try again stop waiting. */
  private readonly stopped = new AbortController();
  private started = false;
  private timers: NodeJS.Timeout[] = [];
  private listener: pg.Client | null = null;

  constructor(o: RunnerOptions) {
    this.options = o;
    this.workerId = o.workerId ?? defaultWorkerId();
    this.queueDb = o.queueDb ?? o.db;
    this.now = o.now ?? nowMs;
    this.random = o.random ?? Math.random;
    this.config = o.config ?? loadConfig();
  }

  /** Number of jobs whose handlers are running now. */
  get active(): number {
    return this.running.size;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('runner already started');
    this.started = true;
    const o = this.options;
    o.logger.info(
      { workerId: this.workerId, concurrency: o.concurrency, pollMs: o.pollMs, leaseMs: o.leaseMs },
      'worker starting',
    );
    const every = (ms: number, fn: () => unknown) => {
      const t = setInterval(fn, ms);
      t.unref();
      this.timers.push(t);
    };
    every(o.pollMs, () => this.wake());
    every(o.heartbeatMs, () => void this.heartbeat());
    every(o.recoverMs ?? Math.max(50, Math.min(o.leaseMs / 2, 15_000)), () => void this.recover());
    if (o.maintenancePeriodMs) {
      const period = o.maintenancePeriodMs;
      every(Math.max(1000, period / 2), () => void this.scheduleMaintenance(period));
      await this.scheduleMaintenance(period);
    }
    if (o.scheduleTickMs) {
      every(o.scheduleTickMs, () => void this.tickSchedules());
      await this.tickSchedules();
    }
    if (o.listenUrl && isPostgres(this.queueDb)) await this.listen(o.listenUrl);
    await this.recover();
    this.wake();
    o.logger.info({ workerId: this.workerId, listening: this.listener !== null }, 'worker ready');
  }

  /** Something may be due: claim if there are free slots. */
  wake(): void {
    this.wakeSeq++;
    this.maybeMore = true;
    void this.claimLoop();
  }

  /**
   * Claim on the next turn of the event loop, so that the jobs of a batch that finish together
   * free their slots first and one claim refills them all.
   */
  private claimSoon(): void {
    if (this.claimScheduled) return;
    this.claimScheduled = true;
    setImmediate(() => {
      this.claimScheduled = false;
      void this.claimLoop();
    });
  }

  private async claimLoop(): Promise<void> {
    if (this.claiming || this.stopping) return;
    this.claiming = true;
    try {
      while (!this.stopping && this.maybeMore) {
        const free = this.options.concurrency - this.running.size;
        if (free <= 0) break;
        const seq = this.wakeSeq;
        let jobs: ClaimedJob[];
        try {
          jobs = await this.claim(free);
        } catch (err) {
          this.options.logger.error({ err: errorText(err) }, 'claim failed; retrying at the next poll');
          break;
        }
        // Short of the free slots while this worker runs (or just took) jobs: the rule may be
        // what held the rest back, and a job that ends changes what it allows.
        this.heldBack = jobs.length < free && (jobs.length > 0 || this.running.size > 0);
        if (jobs.length < free && seq === this.wakeSeq) this.maybeMore = false;
        const batch = ++this.claimSeq;
        for (const job of jobs) this.startJob(job, batch);
      }
    } finally {
      this.claiming = false;
    }
  }

  private async claim(limit: number): Promise<ClaimedJob[]> {
    const now = this.now();
    const busyWorkspaces = [...this.running.values()].flatMap((r) => (r.job.workspaceId ? [r.job.workspaceId] : []));
    const jobs = await claimJobs(this.queueDb, { workerId: this.workerId, limit, leaseMs: this.options.leaseMs, now, busyWorkspaces });
    for (const job of jobs) this.options.metrics?.claimed(job.kind, now - job.runAt);
    return jobs;
  }

  private startJob(job: ClaimedJob, claimSeq: number): Running {
    const r: Running = { job, ac: new AbortController(), claimSeq, gone: null, done: Promise.resolve() };
    this.running.set(job.id, r);
    r.done = this.execute(r).finally(() => {
      this.running.delete(job.id);
      if (this.heldBack) {
        this.heldBack = false;
        this.maybeMore = true;
      }
      if (this.started && this.maybeMore) this.claimSoon();
    });
    return r;
  }

  private async execute(r: Running): Promise<void> {
    const { job } = r;
    const log = this.options.logger.child({ kind: job.kind, jobId: job.id, attempt: job.attempts });
    const policy = retryPolicy(job.kind);
    const t0 = performance.now();
    let timer: NodeJS.Timeout | undefined;
    if (policy.timeoutMs > 0) {
      timer = setTimeout(() => r.ac.abort(new Error(`timed out after ${policy.timeoutMs} ms`)), policy.timeoutMs);
    }
    let error: unknown = null;
    try {
      const handler = (this.options.tasks as ExtraTasks)[job.kind] as ((payload: unknown, ctx: TaskContext) => Promise<void>) | undefined;
      if (!handler) throw new Error(`no handler for job kind "${job.kind}"`);
      const ctx: TaskContext = {
        db: this.options.db,
        signal: r.ac.signal,
        job: { id: job.id, kind: job.kind, attempts: job.attempts, maxAttempts: job.maxAttempts },
        logger: log,
        now: this.now,
        config: this.config,
        observeDelivery: this.options.metrics?.observeDelivery,
      };
      await untilAborted(handler(job.payload, ctx), r.ac.signal);
    } catch (err) {
      error = err ?? new Error('job failed');
    } finally {
      clearTimeout(timer);
    }
    const durationMs = Math.round((performance.now() - t0) * 10) / 10;
    const report = (outcome: JobOutcome, extra: Record<string, unknown> = {}) => {
      this.options.metrics?.finished(job.kind, outcome, durationMs);
      const level = outcome === 'done' || outcome === 'retry' ? 'info' : outcome === 'released' ? 'warn' : 'error';
      log[level]({ durationMs, outcome, ...extra }, `job ${outcome}`);
    };
    if (r.gone) {
      report(r.gone);
      return;
    }
    if (error === null) {
      // Not awaited: the slot frees now, the write joins the next completion batch.
      this.track(
        this.recordResult(() => this.complete({ id: job.id, attempts: job.attempts }), log).then(
          (ok) => report(ok ? 'done' : 'stale'),
          (err) => report('error', { error: errorText(err), note: 'completion not recorded; the job will run again' }),
        ),
      );
      return;
    }
    const retryInMs = error instanceof PermanentJobError ? null : retryDelayMs(policy, job.attempts, this.random);
    let outcome: FailOutcome;
    try {
      // The retry is due its delay after the write that records the failure (one clock reading
      // for both), so a write that waited out a database outage does not schedule into the past.
      const fail = () => {
        const now = this.now();
        return failJob(this.queueDb, this.workerId, { id: job.id, attempts: job.attempts }, { error, retryAt: retryInMs === null ? null : now + retryInMs, now });
      };
      outcome = await this.track(this.recordResult(fail, log));
    } catch (err) {
      report('error', { error: errorText(error), writeError: errorText(err) });
      return;
    }
    report(outcome, {
      error: errorText(error),
      ...(outcome === 'retry' && retryInMs !== null ? { retryInMs } : {}),
    });
  }

  /**
   * Writes an attempt's result (its completion or failure), again and again while the database
   * cannot take it (restarting, a lost connection, a lock held past the bounded wait). Until the
   * write lands the job stays leased to this worker: the write is tracked in `writes`, so the
   * heartbeat keeps renewing the lease and nobody else runs the job meanwhile; once it lands the
   * attempt counts as it ended. (Giving up after one try left the job `running` under a worker
   * that had forgotten it: a job that had succeeded ran again once the lease lapsed, and, while
   * the worker stayed busy, never, since every heartbeat renewed the lease of every job it held.)
   * Other errors are not retried, and the tries end when the worker stops: its jobs are released.
   */
  private async recordResult<T>(write: () => Promise<T>, log: Logger): Promise<T> {
    let delayMs = 250;
    for (let tries = 1; ; tries++) {
      try {
        const out = await write();
        if (tries > 1) log.warn({ tries }, 'job result recorded once the database could take it');
        return out;
      } catch (err) {
        if (this.stopping || !isDatabaseUnavailable(err)) throw err;
        if (tries === 1) log.warn({ err: errorText(err) }, 'job result not recorded: the database cannot take it now; trying again');
        await pause(delayMs, this.stopped.signal);
        delayMs = Math.min(delayMs * 2, 5000);
      }
    }
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.writes.add(p);
    const untrack = () => this.writes.delete(p);
    p.then(untrack, untrack);
    return p;
  }

  private complete(lease: JobLease): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.pendingCompletions.push({ lease, resolve, reject });
      // Start on the next turn so that jobs finishing in the same turn share one statement.
      if (!this.completionFlush) this.completionFlush = new Promise<void>((r) => setImmediate(r)).then(() => this.flushCompletions());
    });
  }

  private async flushCompletions(): Promise<void> {
    try {
      while (this.pendingCompletions.length) {
        const batch = this.pendingCompletions.splice(0, 500);
        try {
          const ids = new Set(await completeJobs(this.queueDb, this.workerId, batch.map((b) => b.lease), this.now()));
          for (const b of batch) b.resolve(ids.has(b.lease.id));
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      }
    } finally {
      this.completionFlush = null;
    }
  }

  /** Wait for every result write this runner has started. */
  private async flushWrites(): Promise<void> {
    while (this.writes.size || this.completionFlush) {
      await Promise.allSettled([...this.writes, this.completionFlush]);
    }
  }

  /** Renew this worker's leases; abort the attempts it turns out to have lost. */
  private async heartbeat(): Promise<void> {
    if (!this.running.size && !this.writes.size) return;
    const seq = this.claimSeq;
    try {
      const held = await extendLeases(this.queueDb, this.workerId, { now: this.now(), leaseMs: this.options.leaseMs });
      const keys = new Set(held.map((l) => `${l.id}:${l.attempts}`));
      for (const r of this.running.values()) {
        if (r.claimSeq <= seq && !r.gone && !keys.has(`${r.job.id}:${r.job.attempts}`)) {
          r.gone = 'lease_lost';
          r.ac.abort(new Error('lease lost: another worker recovered this job'));
        }
      }
    } catch (err) {
      this.options.logger.error({ err: errorText(err) }, 'heartbeat failed');
    }
  }

  /** Any worker recovers expired leases (of workers that died or stalled). */
  private async recover(): Promise<void> {
    try {
      const recovered = await resetExpiredLeases(this.queueDb, this.now());
      for (const j of recovered) {
        this.options.logger.warn({ kind: j.kind, jobId: j.id, attempt: j.attempts, state: j.state }, 'recovered a job whose lease expired');
      }
      if (recovered.some((j) => j.state === 'queued')) this.wake();
    } catch (err) {
      this.options.logger.error({ err: errorText(err) }, 'lease recovery failed');
    }
  }

  /** Every worker ticks; the slot claims make each slot run once however many do. */
  private async tickSchedules(): Promise<void> {
    await this.queueDue('scheduled checks and crawls', () => runSchedules(this.options.db, this.now()));
    await this.queueDue('digests', () => queueDueDigests(this.options.db, this.now()));
  }

  private async queueDue(what: string, queue: () => Promise<unknown[]>): Promise<void> {
    try {
      const queued = await queue();
      if (queued.length > 0) {
        this.options.logger.info({ queued: queued.length }, `${what} queued`);
        this.wake();
      }
    } catch (err) {
      this.options.logger.error({ err: errorText(err) }, `could not queue ${what}`);
    }
  }

  private async scheduleMaintenance(periodMs: number): Promise<void> {
    try {
      await scheduleMaintenance(this.options.db, this.now(), periodMs);
    } catch (err) {
      this.options.logger.error({ err: errorText(err) }, 'could not schedule maintenance');
    }
  }

  private async listen(url: string): Promise<void> {
    const connect = async (): Promise<void> => {
      const client = new pg.Client({ connectionString: url });
      client.on('notification', () => this.wake());
      client.on('error', (err) => {
        void client.end().catch(() => {});
        // Before it listens, the failed connect() or LISTEN is what retries: reconnecting here
        // too would start a second loop, and a second client nobody ends.
        if (this.listener !== client) return;
        this.options.logger.warn({ err: errorText(err) }, 'LISTEN connection lost; reconnecting');
        this.listener = null;
        if (!this.stopping) setTimeout(() => void connect().catch(retry), 1000).unref();
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${JOBS_CHANNEL}`);
      } catch (err) {
        void client.end().catch(() => {});
        throw err;
      }
      if (this.stopping) {
        await client.end();
        return;
      }
      this.listener = client;
      this.wake(); // jobs enqueued while we were not listening
    };
    const retry = (err: unknown) => {
      this.options.logger.warn({ err: errorText(err) }, 'LISTEN failed; polling until it is back');
      if (!this.stopping) setTimeout(() => void connect().catch(retry), 1000).unref();
    };
    await connect().catch(retry);
  }

  /**
   * Tests and one-shot use: claim and run due jobs until a claim finds none, waiting for each
   * batch and its writes. Needs no start().
   */
  async runDue(): Promise<number> {
    let n = 0;
    for (;;) {
      const free = this.options.concurrency - this.running.size;
      const jobs = await this.claim(free);
      if (!jobs.length) break;
      const batch = ++this.claimSeq;
      await Promise.all(jobs.map((j) => this.startJob(j, batch).done));
      n += jobs.length;
    }
    await this.flushWrites();
    return n;
  }

  /**
   * Graceful stop: claim nothing more, let running jobs finish for up to `deadlineMs`, then abort
   * the rest and give them back to the queue (without counting their attempt).
   */
  async stop(deadlineMs: number): Promise<{ finished: number; released: string[] }> {
    if (this.stopping) return { finished: 0, released: [] };
    this.stopping = true;
    this.stopped.abort();
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => {});
    const before = this.running.size;
    this.options.logger.info({ running: before, deadlineMs }, 'stopping: waiting for running jobs');
    // Keep renewing leases while we wait, so jobs are not recovered under our feet.
    const hb = setInterval(() => void this.heartbeat(), this.options.heartbeatMs);
    let deadline: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.running.values()].map((r) => r.done)),
      new Promise((r) => (deadline = setTimeout(r, deadlineMs))),
    ]);
    clearTimeout(deadline);
    clearInterval(hb);
    const unfinished = [...this.running.values()];
    for (const r of unfinished) {
      r.gone ??= 'released';
      r.ac.abort(new Error('worker shutting down'));
    }
    await this.flushWrites();
    let released: string[] = [];
    try {
      released = await releaseJobs(this.queueDb, this.workerId, this.now());
    } catch (err) {
      this.options.logger.error({ err: errorText(err) }, 'could not release jobs; they return when their lease expires');
    }
    // Give the aborted handlers a moment to settle (their results are not written).
    await Promise.race([Promise.allSettled(unfinished.map((r) => r.done)), new Promise((r) => setTimeout(r, 200))]);
    this.options.logger.info({ finished: before - unfinished.length, released: released.length }, 'worker stopped');
    return { finished: before - unfinished.length, released };
  }
}

/** Resolves after `ms`, or at once when `signal` is aborted. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Settles with `p`, or rejects with the signal's reason as soon as it is aborted. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
