import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Db } from '../core/db/index.ts';
import { DEPTH_STATES, JOB_KINDS, queueDepth, type QueueDepth } from '../core/jobs/index.ts';
import { EXPOSITION_CONTENT_TYPE, METRIC_PREFIX, MetricsUnauthorized, exposition, metricsGate, newRegistry } from '../core/metrics/index.ts';
import { DomainError, NotFound, nowMs, problem, problemOf, safeErrorText, type ProblemDocument } from '../core/platform/index.ts';
import type { DeliveryOutcome } from '../core/webhooks/index.ts';
import type { JobMetrics, JobOutcome } from './runner.ts';

/** Queue latency: from a few ms (a hot queue) to an hour (a backlog). */
const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600];
/** A webhook attempt takes ms; a crawl of 500 pages takes minutes. */
const DURATION_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600];
/** Up to WEBHOOK_TIMEOUT_MS (10 s by default). */
const DELIVERY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface WorkerMetricsOptions {
  db: Db;
  log: Logger;
  /** How long a scrape waits for the queue-depth query before it reports without it. */
  depthTimeoutMs?: number;
}

/**
 * The worker's metrics: what the runner and the webhook deliveries report as they happen, and
 * the queue's depth, read from the database when Prometheus scrapes.
 */
export class WorkerMetrics implements JobMetrics {
  readonly registry = newRegistry();
  private readonly o: Required<WorkerMetricsOptions>;
  /** The depth statement in flight: one at a time, however many scrapes wait for it. */
  private reading: Promise<QueueDepth[]> | null = null;
  /** The depth of the scrape in progress, shared by the collect() of the metrics it feeds. */
  private scrape: Promise<QueueDepth[] | null> | null = null;

  private readonly wait = new Histogram({
    name: `${METRIC_PREFIX}job_wait_seconds`,
    help: 'From a job being due (run_at) to a worker claiming it: queue latency.',
    labelNames: ['kind'] as const,
    buckets: WAIT_BUCKETS,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: `${METRIC_PREFIX}job_duration_seconds`,
    help: 'Run time of job attempts by outcome: done, retry, failed, stale, lease_lost, released, error.',
    labelNames: ['kind', 'outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly failed = new Counter({
    name: `${METRIC_PREFIX}jobs_failed_total`,
    help: 'Jobs that failed for good: their last attempt failed, or the failure was permanent.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly deliveries = new Counter({
    name: `${METRIC_PREFIX}webhook_deliveries_total`,
    help: 'Webhook delivery attempts by outcome: delivered, retrying, failed, paused.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly deliveryDuration = new Histogram({
    name: `${METRIC_PREFIX}webhook_delivery_duration_seconds`,
    help: 'Time of a webhook delivery attempt, from the request to the receiver answering or failing.',
    buckets: DELIVERY_BUCKETS,
    registers: [this.registry],
  });
  private readonly jobs = new Gauge({
    name: `${METRIC_PREFIX}jobs`,
    help: 'Unfinished jobs by kind and state: due (waiting for a worker), scheduled (for later), running. Read at scrape time.',
    labelNames: ['kind', 'state'] as const,
    registers: [this.registry],
    collect: async () => {
      const rows = await this.depth();
      this.jobs.reset();
      if (!rows) return; // no samples rather than zeros that would look true
      // Every declared kind and state, so a series never vanishes when its count drops to zero.
      for (const kind of JOB_KINDS) for (const state of DEPTH_STATES) this.jobs.set({ kind, state }, 0);
      for (const r of rows) this.jobs.set({ kind: r.kind, state: r.state }, r.jobs);
    },
  });
  private readonly oldestDue = new Gauge({
    name: `${METRIC_PREFIX}jobs_oldest_due_seconds`,
    help: 'How long the oldest due job of each kind has waited for a worker (0 when none is due). Read at scrape time.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
    collect: async () => {
      const rows = await this.depth();
      this.oldestDue.reset();
      if (!rows) return;
      const now = nowMs();
      for (const kind of JOB_KINDS) this.oldestDue.set({ kind }, 0);
      for (const r of rows) if (r.state === 'due') this.oldestDue.set({ kind: r.kind }, Math.max(0, now - r.oldestRunAt) / 1000);
    },
  });
  private readonly scrapeErrors = new Counter({
    name: `${METRIC_PREFIX}jobs_scrape_errors_total`,
    help: 'Scrapes whose queue-depth query failed or timed out; sitehealth_jobs had no samples then.',
    registers: [this.registry],
    collect: async () => {
      await this.depth();
    },
  });

  constructor(o: WorkerMetricsOptions) {
    this.o = { depthTimeoutMs: 3000, ...o };
  }

  claimed(kind: string, waitMs: number): void {
    this.wait.observe({ kind }, waitMs / 1000);
  }

  finished(kind: string, outcome: JobOutcome, durationMs: number): void {
    this.duration.observe({ kind, outcome }, durationMs / 1000);
    if (outcome === 'failed') this.failed.inc({ kind });
  }

  /** An arrow function: tasks receive it detached from the instance. */
  readonly observeDelivery = (outcome: DeliveryOutcome, durationMs: number): void => {
    this.deliveries.inc({ outcome });
    this.deliveryDuration.observe(durationMs / 1000);
  };

  text(): Promise<string> {
    return exposition(this.registry);
  }

  /**
   * The depth for this scrape. Registry.metrics() starts every metric's collect() in the same
   * turn, so the gauges and the error counter all wait for one read, and the counter already
   * includes a failure of the scrape it is part of.
   */
  private depth(): Promise<QueueDepth[] | null> {
    this.scrape ??= this.readDepth().finally(() => {
      this.scrape = null;
    });
    return this.scrape;
  }

  /** The depth, or null (counted) when the database fails or is slower than depthTimeoutMs. */
  private async readDepth(): Promise<QueueDepth[] | null> {
    this.reading ??= queueDepth(this.o.db, nowMs()).finally(() => {
      this.reading = null;
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.reading,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`queue depth took longer than ${this.o.depthTimeoutMs} ms`)), this.o.depthTimeoutMs);
        }),
      ]);
    } catch (err) {
      this.scrapeErrors.inc();
      this.o.log.warn({ err: safeErrorText(err) }, 'metrics: queue depth unavailable');
      return null;
    } finally {
      clearTimeout(timer);
    }
  }
}

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

/**
 * The worker's `GET /metrics` on a port of its own (it has no other HTTP). Anything else is the
 * 404 problem document the API answers for an unknown path.
 */
export async function startMetricsListener(o: {
  metrics: WorkerMetrics;
  host: string;
  port: number;
  token: string | null;
  log: Logger;
}): Promise<MetricsListener> {
  const allow = metricsGate(o.token);
  const server = http.createServer((req, res) => {
    void answer(req).then(({ status, headers, body }) => {
      res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body), 'x-content-type-options': 'nosniff' });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
  });
  async function answer(req: http.IncomingMessage): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    try {
      const path = (req.url ?? '/').split('?')[0];
      if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) throw new NotFound();
      allow({ remoteAddress: req.socket.remoteAddress, authorization: req.headers.authorization });
      return { status: 200, headers: { 'content-type': EXPOSITION_CONTENT_TYPE }, body: await o.metrics.text() };
    } catch (err) {
      let doc: ProblemDocument;
      if (err instanceof DomainError) doc = problemOf(err);
      else {
        o.log.error({ err: safeErrorText(err) }, 'metrics: scrape failed');
        doc = problem(500, 'internal_error', 'Internal error', 'The metrics could not be collected.');
      }
      const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
      if (err instanceof MetricsUnauthorized) headers['www-authenticate'] = err.challenge;
      return { status: doc.status, headers, body: JSON.stringify(doc) };
    }
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  o.log.info({ address, port }, 'worker metrics listening');
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
