import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';

// The one file that touches knex's undocumented parts: its better-sqlite3 dialect class (which
// sqliteDialect extends), the pooled client's connection lending and its 'query' event, a
// transaction's completion promise and the client's connection settings. knex is pinned exactly
// in package.json, and test/knex-internals.test.ts fails when an upgrade moves any of them.
// Everything else in core/ reaches knex through core/db's public functions.

const require = createRequire(import.meta.url);

type DbOrTrx = Knex | Knex.Transaction;

interface PooledClient {
  config: Knex.Config;
  connectionSettings?: { filename?: string };
  acquireConnection(): Promise<unknown>;
  releaseConnection(conn: unknown): Promise<void>;
  emit(event: 'query', obj: object): void;
}

const clientOf = (db: DbOrTrx) => db.client as PooledClient;

/**
 * How long a request may wait for a pooled connection, as knex's setting (`createDb`), and the
 * error knex throws when that wait runs out (`isDatabaseUnavailable` answers it 503): the two
 * halves of one rule, kept beside each other.
 */
export function poolWait(ms: number): Pick<Knex.Config, 'acquireConnectionTimeout'> {
  return { acquireConnectionTimeout: ms };
}

export function isPoolWaitTimeout(err: { name?: unknown }): boolean {
  return err.name === 'KnexTimeoutError';
}

/** The knex configuration a Knex instance was built from (a transaction reports its parent's). */
export function configOf(db: DbOrTrx): Knex.Config {
  return clientOf(db).config;
}

/**
 * An object that stands for a Knex instance (each transaction has its own), to keep state per
 * database handle against: the SQLite reader connection, a group commit's queue.
 */
export function poolKey(db: DbOrTrx): object {
  return clientOf(db);
}

/** The SQLite file a Knex instance opened, if any. */
export function sqliteFileOf(db: DbOrTrx): string | undefined {
  return clientOf(db).connectionSettings?.filename;
}

/**
 * A finished transaction's handle still lends its connection (knex's transaction client hands it
 * out whatever the state), but that connection is back in the pool, perhaps mid-statement for
 * its next user: a statement sent on it would run in that user's transaction, or queue behind
 * its query on a busy client (pg: "Calling client.query() when the client is already executing
 * a query"). knex refuses such a statement from its own builder; so does every direct use here.
 */
function assertOpen(db: DbOrTrx): void {
  const trx = db as Knex.Transaction;
  if (trx.isTransaction && trx.isCompleted()) throw new Error('Transaction query already complete: its connection belongs to the pool again');
}

/**
 * Runs `use` on a connection of `db`: a transaction's own connection (knex lends it without
 * giving it up) while the transaction lasts, or one taken from the pool and given back afterwards.
 */
export async function withConnection<C, T>(db: DbOrTrx, use: (conn: C) => Promise<T> | T): Promise<T> {
  assertOpen(db);
  const client = clientOf(db);
  const conn = (await client.acquireConnection()) as C;
  try {
    return await use(conn);
  } finally {
    await client.releaseConnection(conn);
  }
}

/** A transaction's own connection, for statements the knex API cannot send (COPY), while it lasts. */
export async function connectionOf<C>(trx: Knex.Transaction): Promise<C> {
  assertOpen(trx);
  return (await clientOf(trx).acquireConnection()) as C;
}

/**
 * Announces a statement that bypasses knex's runner as a knex 'query' event, so whoever counts
 * statements (tests, benchmarks, debug logs) sees every one.
 */
export function announce(db: DbOrTrx, sql: string, bindings: readonly unknown[], how: object): void {
  clientOf(db).emit('query', { sql, bindings, method: 'raw', ...how });
}

const roots = new WeakMap<Knex.Config, Knex>();

/** Records a Knex instance as the pool its transactions come from (createDb calls it). */
export function registerPool(db: Knex): void {
  roots.set(configOf(db), db);
}

/**
 * The Knex instance (the pool) a handle belongs to: itself, or the one a transaction was opened
 * on. Work that must not run on a transaction's connection once it has ended (knex lends that
 * connection to the next user of the pool) goes here. A transaction shares its pool's
 * configuration object, which is how it is found.
 */
export function poolOf(db: DbOrTrx): Knex {
  const root = roots.get(configOf(db));
  if (!root) throw new Error('a database handle not made by createDb');
  return root;
}

/** Calls `fn` once `trx` has committed; never if it rolls back. */
export function afterCommit(trx: Knex.Transaction, fn: () => void): void {
  trx.executionPromise.then(fn, () => {});
}

interface SqliteConnection {
  inTransaction: boolean;
}

interface QueryObject {
  sql: string;
  options?: { busyWaitMs?: number };
}

interface KnexSqliteClient {
  destroy(callback?: unknown): unknown;
  acquireRawConnection(): Promise<unknown>;
  _query(connection: SqliteConnection, obj: QueryObject): Promise<unknown>;
}

// knex's dialect classes are CommonJS and untyped.
const BetterSqlite3Client = require('knex/lib/dialects/better-sqlite3/index.js') as new (config: unknown) => KnexSqliteClient;

/** The knex installed: package.json pins one exact version, as this file relies on its internals. */
export const INSTALLED_KNEX_VERSION = (require('knex/package.json') as { version: string }).version;

/** The private methods this file relies on, each `[owner, method]`. */
const RELIED_ON: Array<[string, object, string]> = [
  ['better-sqlite3 dialect', BetterSqlite3Client.prototype, 'destroy'],
  ['better-sqlite3 dialect', BetterSqlite3Client.prototype, 'acquireRawConnection'],
  ['better-sqlite3 dialect', BetterSqlite3Client.prototype, '_query'],
  ['client', Object.getPrototypeOf(BetterSqlite3Client.prototype) as object, 'acquireConnection'],
  ['client', Object.getPrototypeOf(BetterSqlite3Client.prototype) as object, 'releaseConnection'],
];

/**
 * The private parts of knex this file uses that the installed knex lacks: empty unless an
 * upgrade moved or renamed one (test/knex-internals.test.ts asserts it is empty).
 */
export function missingKnexInternals(): string[] {
  return RELIED_ON.filter(([, proto, method]) => typeof (proto as Record<string, unknown>)[method] !== 'function').map(([owner, , method]) => `${owner}.${method}`);
}

/** A Knex client class, as knex's `client` option takes one. */
export type KnexClientClass = typeof Knex.Client;

export interface SqliteDialectOptions {
  /** How long a statement that holds no lock yet retries while the database is locked. */
  busyWaitMs: number;
  isBusy(err: unknown): boolean;
  /** Each new connection, before first use (e.g. to cache its compiled statements). */
  onConnection(conn: unknown): void;
  /** The Knex instance is being destroyed (e.g. to close connections opened beside its pool). */
  onDestroy(client: object): void;
}

/**
 * Knex's better-sqlite3 client with every transaction begun IMMEDIATE, and a statement that
 * finds the database locked (and holds no lock itself) retried after asynchronous pauses, up to
 * `busyWaitMs`. Why both: see sqlite-client.ts.
 */
export function sqliteDialect(opts: SqliteDialectOptions): KnexClientClass {
  return class SqliteImmediateClient extends BetterSqlite3Client {
    destroy(callback?: unknown): unknown {
      opts.onDestroy(this);
      return super.destroy(callback);
    }

    async acquireRawConnection(): Promise<unknown> {
      const conn = await super.acquireRawConnection();
      opts.onConnection(conn);
      return conn;
    }

    async _query(connection: SqliteConnection, obj: QueryObject): Promise<unknown> {
      if (obj.sql === 'BEGIN;') obj.sql = 'BEGIN IMMEDIATE;';
      // `.options({ busyWaitMs: 0 })` on a query: try once (bookkeeping that may be skipped).
      const wait = obj.options?.busyWaitMs ?? opts.busyWaitMs;
      const deadline = Date.now() + wait;
      for (let attempt = 0; ; attempt++) {
        const holdsNoLock = !connection.inTransaction;
        try {
          return await super._query(connection, obj);
        } catch (err) {
          if (!opts.isBusy(err) || !holdsNoLock || Date.now() >= deadline) throw err;
          // Short, jittered pauses: a write transaction here takes about a millisecond, so the
          // lock is usually free within a few; jitter keeps waiting processes from colliding.
          const pause = Math.min(25, 2 + attempt * 2) * (0.5 + Math.random());
          await sleep(Math.min(pause, Math.max(0, deadline - Date.now())));
        }
      }
    }
  } as unknown as KnexClientClass;
}
