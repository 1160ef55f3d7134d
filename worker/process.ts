import { createDb, isPostgres } from '../core/db/index.ts';
import { createLogger, loadConfig, stopGracefully } from '../core/platform/index.ts';
import { migrateLatest } from '../core/db/index.ts';
import { missingKeyWarning } from '../core/secrets/index.ts';
import { queueSessionUrl } from './config.ts';
import { startMetricsListener, WorkerMetrics, type MetricsListener } from './metrics.ts';
import { Runner } from './runner.ts';
import { tasks } from './tasks/index.ts';
import type { ExtraTasks } from './task.ts';

/**
 * Runs a worker process until it is told to stop (SIGTERM, SIGINT, or its `npm start` parent
 * exiting). `extraTasks` is for tests and benchmarks that run kinds of their own.
 */
export async function runWorkerProcess(extraTasks: ExtraTasks = {}): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('worker', config.logLevel);
  const unsealed = missingKeyWarning(config);
  if (unsealed) logger.warn(unsealed);
  const url = config.databaseUrl;
  // Handlers, the claim and the completion writes run side by side: a few connections more
  // than the concurrency (SQLite keeps its single connection).
  const db = createDb(url, { pool: { max: config.workerConcurrency + 3 }, busyWaitMs: config.dbBusyWaitMs });
  // PostgreSQL: the queue's own statements get a small pool with their own session settings
  // (see queueSessionUrl).
  const queueDb = isPostgres(db) ? createDb(queueSessionUrl(url, { asyncCommit: config.worker.asyncCommit }), { pool: { max: 4 } }) : db;

  // Like the server, a worker brings the schema up to date (servers and workers starting
  // together queue on the migration lock), so start order does not matter.
  await migrateLatest(db);

  // Only when asked for: several workers on one host would otherwise fight over one port.
  let metrics: WorkerMetrics | undefined;
  let listener: MetricsListener | null = null;
  if (config.worker.metricsPort !== null) {
    metrics = new WorkerMetrics({ db, log: logger });
    listener = await startMetricsListener({ metrics, host: config.metricsHost, port: config.worker.metricsPort, token: config.metricsToken, log: logger });
  }

  const runner = new Runner({
    db,
    queueDb,
    tasks: { ...extraTasks, ...tasks },
    logger,
    config,
    concurrency: config.workerConcurrency,
    pollMs: config.workerPollMs,
    leaseMs: config.worker.leaseMs,
    heartbeatMs: config.worker.heartbeatMs,
    listenUrl: url,
    maintenancePeriodMs: config.worker.maintenancePeriodMs,
    // Slots are minutes apart at the finest: a check runs within 30 s of its slot.
    scheduleTickMs: 30_000,
    metrics,
  });

  stopGracefully(
    logger,
    async () => {
      await runner.stop(config.worker.shutdownMs);
      await listener?.close();
      await db.destroy().catch(() => {});
      if (queueDb !== db) await queueDb.destroy().catch(() => {});
    },
    // Running jobs get JOB_SHUTDOWN_MS, then release and cleanup a little more.
    { hardTimeoutMs: config.worker.shutdownMs + 10_000 },
  );

  await runner.start();
}
