import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';

// Knex's better-sqlite3 client with two changes that let several processes (API servers, the
// worker, the operator CLI) write one SQLite file at once without `database is locked`:
//
// 1. Every transaction begins IMMEDIATE. In WAL mode a deferred transaction that reads and then
//    writes fails at once with SQLITE_BUSY(_SNAPSHOT) when another connection wrote in between,
//    and the busy timeout is never consulted. IMMEDIATE takes the write lock up front, before
//    anything is read, so the transaction either waits for the lock or never starts.
// 2. Waiting happens off the event loop. better-sqlite3 is synchronous: its busy timeout sleeps
//    inside the call and freezes the whole process (every other request) for as long as it
//    waits. So the timeout stays tiny (absorbing sub-millisecond contention) and a statement
//    that still finds the database locked is retried after an asynchronous pause, up to
//    `busyWaitMs`; past that the SQLITE_BUSY error surfaces and the HTTP layer answers 503.
//    Only statements that hold no lock yet are retried: a BEGIN, or a statement outside a
//    transaction (SQLite rolled it back as a whole). Inside a transaction the lock is already
//    held, so nothing there waits.

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3') as new (file: string, opts: { readonly: boolean; fileMustExist: boolean }) => ReaderConnection;
/** The part of knex's better-sqlite3 dialect class this file extends (knex is pinned exactly). */
interface KnexSqliteClient {
  destroy(callback?: unknown): unknown;
  acquireRawConnection(): Promise<unknown>;
  _query(connection: SqliteConnection, obj: QueryObject): Promise<unknown>;
}
// knex's dialect classes are CommonJS and untyped.
const BetterSqlite3Client = require('knex/lib/dialects/better-sqlite3/index.js') as new (config: unknown) => KnexSqliteClient;

/** Milliseconds better-sqlite3 itself may block on a lock before we retry asynchronously. */
export const SYNC_BUSY_TIMEOUT_MS = 5;

interface SqliteConnection {
  inTransaction: boolean;
}

interface QueryObject {
  sql: string;
  options?: { busyWaitMs?: number };
}

export function isSqliteBusy(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** Compiled statements kept per connection (least recently used dropped past this). */
export const STATEMENT_CACHE_SIZE = 500;

interface Preparer {
  prepare(sql: string): unknown;
}

/**
 * knex prepares (compiles) every statement anew on each call; on the deploy write path that was
 * an eighth of the server's CPU. A connection keeps its compiled statements by SQL text instead:
 * better-sqlite3 statements are reusable, and SQLite recompiles one by itself if the schema
 * changed under it.
 */
export function cacheStatements(conn: Preparer): void {
  const compile = conn.prepare.bind(conn);
  const cache = new Map<string, unknown>();
  conn.prepare = (sql: string) => {
    let stmt = cache.get(sql);
    if (stmt === undefined) {
      stmt = compile(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    } else {
      cache.delete(sql); // re-inserted below: most recently used last
    }
    cache.set(sql, stmt);
    return stmt;
  };
}

export function sqliteClientClass(busyWaitMs: number): unknown {
  return class SqliteImmediateClient extends BetterSqlite3Client {
    destroy(callback?: unknown): unknown {
      closeReader({ client: this });
      return super.destroy(callback);
    }

    async acquireRawConnection(): Promise<unknown> {
      const conn = (await super.acquireRawConnection()) as Preparer;
      cacheStatements(conn);
      return conn;
    }

    async _query(connection: SqliteConnection, obj: QueryObject): Promise<unknown> {
      if (obj.sql === 'BEGIN;') obj.sql = 'BEGIN IMMEDIATE;';
      // `.options({ busyWaitMs: 0 })` on a query: try once (bookkeeping that may be skipped).
      const wait = obj.options?.busyWaitMs ?? busyWaitMs;
      const deadline = Date.now() + wait;
      for (let attempt = 0; ; attempt++) {
        const holdsNoLock = !connection.inTransaction;
        try {
          return await super._query(connection, obj);
        } catch (err) {
          if (!isSqliteBusy(err) || !holdsNoLock || Date.now() >= deadline) throw err;
          // Short, jittered pauses: a write transaction here takes about a millisecond, so the
          // lock is usually free within a few; jitter keeps waiting processes from colliding.
          const pause = Math.min(25, 2 + attempt * 2) * (0.5 + Math.random());
          await sleep(Math.min(pause, Math.max(0, deadline - Date.now())));
        }
      }
    }
  };
}

interface ReaderConnection {
  pragma(s: string): unknown;
  prepare(sql: string): { all(bindings: unknown[]): unknown[] };
  close(): void;
}

const readers = new WeakMap<object, ReaderConnection | null>();

/**
 * A read-only connection beside the pool's one connection, opened on first use and closed with
 * the Knex instance (closeReader). In WAL mode it reads the last committed state without waiting
 * for a writer. None for an in-memory database (another connection would see another database).
 */
export function readerOf(db: { client: unknown }): ReaderConnection | null {
  const client = db.client as { connectionSettings?: { filename?: string } };
  let reader = readers.get(client);
  if (reader !== undefined) return reader;
  const file = client.connectionSettings?.filename;
  if (!file || file === ':memory:' || file.startsWith('file::memory:')) {
    readers.set(client, null);
    return null;
  }
  try {
    reader = new Database(file, { readonly: true, fileMustExist: true });
    reader.pragma(`busy_timeout = ${SYNC_BUSY_TIMEOUT_MS}`);
  } catch {
    return null; // not created yet: the pool reads until it is
  }
  readers.set(client, reader);
  return reader;
}

export function closeReader(db: { client: unknown }): void {
  const reader = readers.get(db.client as object);
  readers.delete(db.client as object);
  reader?.close();
}
