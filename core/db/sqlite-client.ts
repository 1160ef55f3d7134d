import { createRequire } from 'node:module';
import { poolKey, sqliteDialect, sqliteFileOf, type KnexClientClass } from './knex-adapter.ts';
import type { DbOrTrx } from './connection.ts';

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

/** Milliseconds better-sqlite3 itself may block on a lock before we retry asynchronously. */
export const SYNC_BUSY_TIMEOUT_MS = 5;

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

export function sqliteClientClass(busyWaitMs: number): KnexClientClass {
  return sqliteDialect({
    busyWaitMs,
    isBusy: isSqliteBusy,
    onConnection: (conn) => cacheStatements(conn as Preparer),
    onDestroy: (client) => closeReaderOf(client),
  });
}

interface ReaderConnection {
  pragma(s: string): unknown;
  prepare(sql: string): { all(bindings: unknown[]): unknown[] };
  close(): void;
}

const readers = new WeakMap<object, ReaderConnection | null>();

/**
 * A read-only connection beside the pool's one connection, opened on first use and closed with
 * the Knex instance. In WAL mode it reads the last committed state without waiting for a
 * writer. None for an in-memory database (another connection would see another database).
 */
export function readerOf(db: DbOrTrx): ReaderConnection | null {
  const key = poolKey(db);
  let reader = readers.get(key);
  if (reader !== undefined) return reader;
  const file = sqliteFileOf(db);
  if (!file || file === ':memory:' || file.startsWith('file::memory:')) {
    readers.set(key, null);
    return null;
  }
  try {
    reader = new Database(file, { readonly: true, fileMustExist: true });
    reader.pragma(`busy_timeout = ${SYNC_BUSY_TIMEOUT_MS}`);
    cacheStatements(reader);
  } catch {
    return null; // not created yet: the pool reads until it is
  }
  readers.set(key, reader);
  return reader;
}

function closeReaderOf(key: object): void {
  const reader = readers.get(key);
  readers.delete(key);
  reader?.close();
}
