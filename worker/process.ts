import { createDb, isPostgres } from '../core/db/index.ts';
import { createLogger, stopGracefully } from '../core/platform/index.ts';
import { migrateLatest } from '../core/db/index.ts';
import { loadWorkerConfig, queueSessionUrl } from './config.ts';
import { startMetricsListener, WorkerMetrics, type MetricsListener } from './metrics.ts';
import { Runner } from './runner.ts';
import { tasks } from './tasks/index.ts';
import type { ExtraTasks } from './task.ts';

/**
 * Runs a worker process until it is told to stop (SIGTERM, SIGINT, or its `npm start` parent
 * exiting). `extraTasks` is for tests and benchmarks that run kinds of their own.
 */
export async function runWorkerProcess(extraTasks: ExtraTasks = {}): Promise<void> {
  const config = loadWorkerConfig();
  const logger = createLogger('worker', config.base.logLevel);
  const url = config.base.databaseUrl;
  // Handlers, the claim and the completion writes run side by side: a few connections more
  // than the concurrency (SQLite keeps its single connection).
  const db = createDb(url, { pool: { max: config.concurrency + 3 }, busyWaitMs: config.base.dbBusyWaitMs });
  // PostgreSQL: the queue's own statements get a small pool with their own session settings
  // (see queueSessionUrl).
  const queueDb = isPostgres(db) ? createDb(queueSessionUrl(url, { asyncCommit: config.asyncCommit }), { pool: { max: 4 } }) : db;

  // Like the server, a worker brings the schema up to date (servers and workers starting
  // together queue on the migration lock), so start order does not matter.
  await migrateLatest(db);

  // Only when asked for: several workers on one host would otherwise fight over one port.
  let metrics: WorkerMetrics | undefined;
  let listener: MetricsListener | null = null;
  if (config.metricsPort !== null) {
    metrics = new WorkerMetrics({ db, log: logger });
    listener = await startMetricsListener({ metrics, host: config.base.metricsHost, port: config.metricsPort, token: config.base.metricsToken, log: logger });
  }

  const runner = new Runner({
    db,
    queueDb,
    tasks: { ...extraTasks, ...tasks },
    logger,
    config: config.base,
    concurrency: config.concurrency,
    pollMs: config.pollMs,
    leaseMs: config.leaseMs,
    heartbeatMs: config.heartbeatMs,
    listenUrl: url,
    maintenancePeriodMs: config.maintenancePeriodMs,
    metrics,
  });

  stopGracefully(
    logger,
    async () => {
      await runner.stop(config.shutdownMs);
      await listener?.close();
      await db.destroy().catch(() => {});
      if (queueDb !== db) await queueDb.destroy().catch(() => {});
    },
    // Running jobs get JOB_SHUTDOWN_MS, then release and cleanup a little more.
    { hardTimeoutMs: config.shutdownMs + 10_000 },
  );

  await runner.start();
}
