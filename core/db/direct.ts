import type { Knex } from 'knex';
import { isPostgres } from './connection.ts';
import { rawRows } from './sql.ts';

/** Statements run on a transaction's own connection, `?` placeholders, rows back (or none). */
export interface Statements {
  rows<T>(sql: string, bindings: readonly unknown[]): Promise<T[]>;
}

interface SqliteStatement {
  reader: boolean;
  all(bindings: unknown[]): unknown[];
  run(bindings: unknown[]): unknown;
}

interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}

// On SQLite a transaction holds the write lock from its BEGIN IMMEDIATE, so its statements can
// go straight to the connection (compiled once, see sqlite-client.ts) without knex's builder and
// runner around each: on the deploy write path that machinery cost more than SQLite itself.
// On PostgreSQL they go through knex as raw statements. Either way each is announced as a knex
// 'query' event, so statement counts (tests, benchmarks) see it.
export async function directStatements(trx: Knex.Transaction): Promise<Statements> {
  if (isPostgres(trx)) return { rows: (sql, bindings) => rawRows(trx, sql, bindings) };
  const client = trx.client as unknown as { acquireConnection(): Promise<unknown>; emit(event: 'query', obj: object): void };
  const conn = (await client.acquireConnection()) as SqliteConnection;
  return {
    rows<T>(sql: string, bindings: readonly unknown[]): Promise<T[]> {
      client.emit('query', { sql, bindings, method: 'raw', direct: true });
      // better-sqlite3 binds neither booleans nor undefined.
      const values = bindings.map((b) => (typeof b === 'boolean' ? Number(b) : b === undefined ? null : b));
      try {
        const stmt = conn.prepare(sql);
        if (stmt.reader) return Promise.resolve(stmt.all(values) as T[]);
        stmt.run(values);
        return Promise.resolve([]);
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    },
  };
}
