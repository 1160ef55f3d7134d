import type { Db } from './connection.ts';
import { isPostgres } from './connection.ts';
import { rawRows } from './sql.ts';

// A statement run on every request, prepared once per connection instead of parsed and planned
// each time. knex sends every statement unnamed, so PostgreSQL plans it anew: for the
// authentication query (four tables) planning took longer than running it (about 440 µs a call
// against 150 µs prepared, .tmp/authq.ts on this machine). better-sqlite3 likewise compiles a
// statement per call through knex. Reads only, outside transactions.

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

/** Rows of a read statement (`?` placeholders) known by a stable `name`. */
export async function preparedRows<T>(db: Db, name: string, sql: string, bindings: unknown[]): Promise<T[]> {
  const client = db.client as unknown as PooledClient & { emit(event: 'query', obj: object): void };
  // Announced like every knex statement, so query counts (tests, benchmarks) see it.
  client.emit('query', { sql, bindings, method: 'raw', prepared: name });
  if (isPostgres(db)) {
    let text = pgText.get(name);
    if (text === undefined) {
      let n = 0;
      text = sql.replace(/\?/g, () => `$${++n}`);
      pgText.set(name, text);
    }
    const conn = (await client.acquireConnection()) as PgClient;
    try {
      return (await conn.query({ name, text, values: bindings })).rows as T[];
    } finally {
      await client.releaseConnection(conn);
    }
  }
  const conn = (await client.acquireConnection()) as SqliteConnection;
  try {
    let cache = sqliteStatements.get(conn);
    if (!cache) sqliteStatements.set(conn, (cache = new Map()));
    let stmt = cache.get(name);
    if (!stmt) cache.set(name, (stmt = conn.prepare(sql)));
    return stmt.all(bindings) as T[];
  } catch (err) {
    // The statement could not be prepared (e.g. its table is missing): answer as knex would.
    if ((err as { code?: string }).code === undefined) return rawRows<T>(db, sql, bindings);
    throw err;
  } finally {
    await client.releaseConnection(conn);
  }
}
