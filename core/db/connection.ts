import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { Model } from 'objection';

// Timestamps are stored as epoch milliseconds in BIGINT columns on both engines, so
// comparisons, bucketing and ordering behave identically on SQLite and PostgreSQL.
// pg returns int8 as a string by default; epoch milliseconds fit a double exactly.
pg.types.setTypeParser(20, (v: string) => Number(v));

export type Db = Knex;
export type DbOrTrx = Knex | Knex.Transaction;

export interface DbInfo {
  client: 'sqlite' | 'pg';
  url: string;
}

export function dbClientOf(db: DbOrTrx): 'sqlite' | 'pg' {
  const c = (db.client as { config: Knex.Config }).config.client;
  return c === 'pg' ? 'pg' : 'sqlite';
}

export function isPostgres(db: DbOrTrx): boolean {
  return dbClientOf(db) === 'pg';
}

/** Build a Knex instance from `sqlite:<path>` or `postgres://...`. */
export function createDb(url: string, opts: { pool?: { min?: number; max?: number } } = {}): Db {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    return knexFactory({
      client: 'pg',
      connection: url,
      pool: { min: 0, max: opts.pool?.max ?? 10 },
    });
  }
  if (!url.startsWith('sqlite:')) throw new Error(`DATABASE_URL must be sqlite:<path> or postgres://..., got "${url}"`);
  const file = url.slice('sqlite:'.length) || ':memory:';
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  return knexFactory({
    client: 'better-sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
    // One connection: better-sqlite3 is synchronous, and a single writer avoids SQLITE_BUSY
    // inside one process; other processes are serialised by the busy timeout.
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: { pragma: (s: string) => unknown }, done: (err: Error | null, c: unknown) => void) {
        try {
          conn.pragma('journal_mode = WAL');
          conn.pragma('busy_timeout = 10000');
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
