import type { Knex } from 'knex';
import { announce, withConnection } from './knex-adapter.ts';
import { isPostgres, type DbOrTrx } from './connection.ts';
import { isSqliteBusy, readerOf } from './sqlite-client.ts';

// Every statement core/ writes as SQL text runs through runSql; the models and the knex builder
// are the data layer for everything that is not a measured hot path. Statements use `?`
// placeholders on both engines (and no `?` that is not one).

export interface RunOptions {
  /**
   * Prepares the statement once per connection under this name rather than parsing and
   * planning it on every call. Only for a statement on a measured hot path: its caller names
   * the benchmark. On SQLite a named read outside a transaction goes to the process's reader
   * connection, which needs no turn on the one writing connection.
   */
  prepared?: string;
  /** SQLite, outside a transaction: how long to retry while the database is locked (default: the database's own). */
  busyWaitMs?: number;
}

interface PgConnection {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
}

interface SqliteStatement {
  /** It returns rows. */
  reader: boolean;
  /** It changes nothing. */
  readonly: boolean;
  all(bindings: readonly unknown[]): unknown[];
  run(bindings: readonly unknown[]): unknown;
}

interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}

const pgTexts = new Map<string, string>();

/** A statement's `?` placeholders as PostgreSQL's `$1, $2, ...`, for statements sent to pg directly. */
export function pgPlaceholders(sql: string): string {
  let text = pgTexts.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    // Statements are written out in the code, so the map stays small; the bound is a safeguard.
    if (pgTexts.size < 1000) pgTexts.set(sql, text);
  }
  return text;
}

function rowsOf<T>(res: unknown): T[] {
  if (Array.isArray(res)) return res as T[];
  return ((res as { rows?: T[] }).rows ?? []) as T[];
}

// better-sqlite3 binds neither booleans nor undefined.
const sqliteValue = (b: unknown) => (typeof b === 'boolean' ? Number(b) : b === undefined ? null : b);

function runOn<T>(conn: SqliteConnection, sql: string, values: readonly unknown[]): T[] {
  // Compiled once per connection: sqlite-client.ts caches every connection's statements by text.
  const stmt = conn.prepare(sql);
  if (stmt.reader) return stmt.all(values) as T[];
  stmt.run(values);
  return [];
}

/**
 * Rows of one statement (none for a write without RETURNING), on either engine, in or outside a
 * transaction.
 */
export async function runSql<T>(db: DbOrTrx, sql: string, bindings: readonly unknown[] = [], opts: RunOptions = {}): Promise<T[]> {
  if (isPostgres(db)) {
    const name = opts.prepared;
    if (name === undefined) return rowsOf<T>(await db.raw(sql, bindings as Knex.RawBinding[]));
    announce(db, sql, bindings, { prepared: name });
    const text = pgPlaceholders(sql);
    return withConnection<PgConnection, T[]>(db, async (conn) => (await conn.query({ name, text, values: bindings })).rows as T[]);
  }
  const values = bindings.map(sqliteValue);
  if ((db as Knex.Transaction).isTransaction) {
    // The transaction holds the write lock from its BEGIN IMMEDIATE, so its statements go
    // straight to its connection, without knex's builder and runner around each: on the
    // deploy write path that machinery cost more than SQLite itself (bench:deploys).
    announce(db, sql, values, { direct: true });
    return withConnection<SqliteConnection, T[]>(db, (conn) => runOn<T>(conn, sql, values));
  }
  if (opts.prepared !== undefined) {
    const reader = readerOf(db) as SqliteConnection | null;
    const stmt = reader?.prepare(sql);
    if (stmt?.reader && stmt.readonly) {
      try {
        const rows = stmt.all(values) as T[];
        announce(db, sql, values, { prepared: opts.prepared });
        return rows;
      } catch (err) {
        if (!isSqliteBusy(err)) throw err; // a checkpoint or recovery in the way: take the pool's turn
      }
    }
  }
  const query = db.raw(sql, values as Knex.RawBinding[]);
  return rowsOf<T>(await (opts.busyWaitMs === undefined ? query : query.options({ busyWaitMs: opts.busyWaitMs })));
}
