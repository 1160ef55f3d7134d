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
// knex's dialect classes are CommonJS and untyped.
const BetterSqlite3Client = require('knex/lib/dialects/better-sqlite3/index.js') as any;

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

export function sqliteClientClass(busyWaitMs: number): unknown {
  return class SqliteImmediateClient extends BetterSqlite3Client {
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
