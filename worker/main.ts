// Worker process: `npm run start:worker` (any number of them on one database).
import { createDb, isPostgres } from '../core/db/connection.ts';
import { errorText } from '../core/jobs/sql.ts';
import { migrateLatest } from '../core/db/migrate.ts';
import { loadWorkerConfig, queueSessionUrl } from './config.ts';
import { createLogger } from '../core/logger.ts';
import { Runner } from './runner.ts';
import { tasks } from './tasks/index.ts';

const config = loadWorkerConfig();
const logger = createLogger('worker', config.base.logLevel);
const url = config.base.databaseUrl;
// Handlers, the claim and the completion writes run side by side: a few connections more
// than the concurrency (SQLite keeps its single connection).
const db = createDb(url, { pool: { max: config.concurrency + 3 } });
// PostgreSQL: the queue's own statements get a small pool with their own session settings
// (see queueSessionUrl).
const queueDb = isPostgres(db) ? createDb(queueSessionUrl(url, { asyncCommit: config.asyncCommit }), { pool: { max: 4 } }) : db;

// Like the server, a worker brings the schema up to date (servers and workers starting
// together queue on the migration lock), so start order does not matter.
await migrateLatest(db);

const runner = new Runner({
  db,
  queueDb,
  tasks,
  logger,
  concurrency: config.concurrency,
  pollMs: config.pollMs,
  leaseMs: config.leaseMs,
  heartbeatMs: config.heartbeatMs,
  listenUrl: url,
  maintenancePeriodMs: config.maintenancePeriodMs,
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) {
    // A second signal: stop now; unfinished jobs return when their lease expires.
    logger.warn({ signal }, 'second signal: exiting at once');
    process.exit(1);
  }
  stopping = true;
  logger.info({ signal }, 'shutting down');
  try {
    await runner.stop(config.shutdownMs);
  } catch (err) {
    logger.error({ err: errorText(err) }, 'error while stopping');
  }
  await db.destroy().catch(() => {});
  if (queueDb !== db) await queueDb.destroy().catch(() => {});
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

await runner.start();
