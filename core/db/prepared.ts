import type { DbOrTrx } from './connection.ts';
import { isPostgres } from './connection.ts';
import { rawRows } from './sql.ts';
import { isSqliteBusy, readerOf } from './sqlite-client.ts';

// A statement run on every request, prepared once per connection instead of parsed and planned
// each time. knex sends every statement unnamed, so PostgreSQL plans it anew: for the
// authentication query (four tables) planning took longer than running it (about 440 µs a call
// against 150 µs prepared, in a one-off measurement on the development machine that was not kept;
// `npm run bench:api` measures the authenticated request end to end). better-sqlite3 likewise compiles a
// statement per call through knex. On a transaction, the statement runs on its connection (knex
// hands a transaction's client that one connection).

interface PgClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

interface SqliteConnection {
  prepare(sql: string): { all(bindings: unknown[]): unknown[] };
}

interface PooledClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(conn: unknown): Promise<void>;
}

const pgText = new Map<string, string>();
const sqliteStatements = new WeakMap<SqliteConnection, Map<string, { all(bindings: unknown[]): unknown[] }>>();

type Client = PooledClient & { emit(event: 'query', obj: object): void };

async function runPg<T>(client: Client, name: string, text: string, values: unknown[]): Promise<T[]> {
  const conn = (await client.acquireConnection()) as PgClient;
  try {
    return (await conn.query({ name, text, values })).rows as T[];
  } finally {
    await client.releaseConnection(conn);
  }
}

/**
 * Rows of a PostgreSQL statement written with `$n` parameters (so one value may be used several
 * times), prepared once per connection under a stable `name`.
 */
export async function preparedPgRows<T>(db: DbOrTrx, name: string, text: string, values: unknown[]): Promise<T[]> {
  const client = db.client as unknown as Client;
  client.emit('query', { sql: text, bindings: values, method: 'raw', prepared: name });
  return runPg<T>(client, name, text, values);
}

function statementOn(conn: SqliteConnection, name: string, sql: string): { all(bindings: unknown[]): unknown[] } {
  let cache = sqliteStatements.get(conn);
  if (!cache) sqliteStatements.set(conn, (cache = new Map()));
  let stmt = cache.get(name);
  if (!stmt) cache.set(name, (stmt = conn.prepare(sql)));
  return stmt;
}

/** Rows of a statement (`?` placeholders) known by a stable `name`. */
export async function preparedRows<T>(db: DbOrTrx, name: string, sql: string, bindings: unknown[]): Promise<T[]> {
  const client = db.client as unknown as Client;
  // Announced like every knex statement, so query counts (tests, benchmarks) see it.
  client.emit('query', { sql, bindings, method: 'raw', prepared: name });
  if (isPostgres(db)) {
    let text = pgText.get(name);
    if (text === undefined) {
      let n = 0;
      text = sql.replace(/\?/g, () => `$${++n}`);
      pgText.set(name, text);
    }
    return runPg<T>(client, name, text, bindings);
  }
  // Outside a transaction, a read goes to the process's reader connection: it needs no turn on
  // the one pooled (writing) connection, so requests read while another request's write
  // transaction is open, and their own writes can join the next group commit.
  const reader = (db as { isTransaction?: boolean }).isTransaction ? null : readerOf(db);
  if (reader) {
    try {
      return statementOn(reader, name, sql).all(bindings) as T[];
    } catch (err) {
      if (!isSqliteBusy(err)) throw err; // a checkpoint or recovery in the way: take the pool's turn
    }
  }
  const conn = (await client.acquireConnection()) as SqliteConnection;
  try {
    return statementOn(conn, name, sql).all(bindings) as T[];
  } catch (err) {
    // The statement could not be prepared (e.g. its table is missing): answer as knex would.
    if ((err as { code?: string }).code === undefined) return rawRows<T>(db, sql, bindings);
    throw err;
  } finally {
    await client.releaseConnection(conn);
  }
}
