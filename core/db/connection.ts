import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { Model } from 'objection';
import type { Logger } from 'pino';
import { SYNC_BUSY_TIMEOUT_MS, sqliteClientClass } from './sqlite-client.ts';
import { configOf, poolWait, registerPool } from './knex-adapter.ts';
import { createLogger } from '../platform/index.ts';

let knexLogger: Logger | undefined;

/**
 * knex reports pool trouble (a connection lost when PostgreSQL restarts, an acquire that timed
 * out) with console.log, stack traces included. Routed here, each is one JSON line like every
 * other, its first line only: the request that met the problem logs its own, shorter line.
 */
function knexLog(): Knex.Config['log'] {
  const log = () => (knexLogger ??= createLogger('db'));
  const line = (m: unknown) => String(m instanceof Error ? m.message : m).split('\n')[0];
  return {
    warn: (m: unknown) => log().warn(line(m)),
    error: (m: unknown) => log().error(line(m)),
    deprecate: (m: unknown) => log().warn(line(m)),
    debug: (m: unknown) => log().debug(line(m)),
  };
}

// Timestamps are stored as epoch milliseconds in BIGINT columns on both engines, so
// comparisons, bucketing and ordering behave identically on SQLite and PostgreSQL.
// pg returns int8 as a string by default; epoch milliseconds fit a double exactly.
pg.types.setTypeParser(20, (v: string) => Number(v));
// A calendar day (DATE, search data) is read back as the `YYYY-MM-DD` it is, as on SQLite; pg
// would otherwise make it a Date at local midnight, a different instant in every time zone.
pg.types.setTypeParser(1082, (v: string) => v);

export type Db = Knex;
export type DbOrTrx = Knex | Knex.Transaction;

export function dbClientOf(db: DbOrTrx): 'sqlite' | 'pg' {
  const c = configOf(db).client;
  return c === 'pg' ? 'pg' : 'sqlite';
}

export function isPostgres(db: DbOrTrx): boolean {
  return dbClientOf(db) === 'pg';
}

export interface DbOptions {
  pool?: { max?: number };
  /** How long a statement may wait for a lock or a pooled connection before it fails (then 503). */
  busyWaitMs?: number;
}

function pooled(config: Knex.Config): Db {
  const db = knexFactory(config);
  registerPool(db);
  return db;
}

/** Build a Knex instance from `sqlite:<path>` or `postgres://...`. */
export function createDb(url: string, opts: DbOptions = {}): Db {
  const busyWaitMs = opts.busyWaitMs ?? 5000;
  // Past this, a request waiting for a pooled connection fails (503) instead of hanging: the
  // wait for the lock itself plus headroom for the queue before it.
  const connectionWait = poolWait(busyWaitMs + 5000);
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    return pooled({
      log: knexLog(),
      client: 'pg',
      connection: url,
      pool: {
        min: 0,
        max: opts.pool?.max ?? 10,
        // A statement waiting for a row lock gives up after the same bounded wait as SQLite's
        // write lock (lock_not_available, 55P03 -> 503) instead of hanging its request.
        afterCreate(conn: { query: (sql: string, cb: (err: Error | null) => void) => void }, done: (err: Error | null, c: unknown) => void) {
          conn.query(`SET lock_timeout = ${Math.max(1, Math.round(busyWaitMs))}`, (err) => done(err, conn));
        },
      },
      ...connectionWait,
    });
  }
  if (!url.startsWith('sqlite:')) throw new Error(`DATABASE_URL must be sqlite:<path> or postgres://..., got "${url}"`);
  const file = url.slice('sqlite:'.length) || ':memory:';
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  return pooled({
    log: knexLog(),
    client: sqliteClientClass(busyWaitMs),
    connection: { filename: file },
    useNullAsDefault: true,
    ...connectionWait,
    // One connection per process: better-sqlite3 is synchronous, so more would add no
    // parallelism, only lock contention inside the process. Processes share the file through
    // WAL and the immediate transactions of sqlite-client.ts.
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: { pragma: (s: string) => unknown }, done: (err: Error | null, c: unknown) => void) {
        try {
          conn.pragma('journal_mode = WAL');
          conn.pragma(`busy_timeout = ${SYNC_BUSY_TIMEOUT_MS}`);
          conn.pragma('synchronous = NORMAL');
          conn.pragma('foreign_keys = ON');
          done(null, conn);
        } catch (err) {
          done(err as Error, conn);
        }
      },
    },
  });
}

/** Bind Objection models to this Knex instance (one database per process). */
export function bindModels(db: Db): void {
  Model.knex(db);
}
