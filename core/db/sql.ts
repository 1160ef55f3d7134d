import type { Knex } from 'knex';
import type { DbOrTrx } from './connection.ts';

/** Rows of a raw statement on either engine (pg returns {rows}, better-sqlite3 an array). */
export async function rawRows<T>(db: DbOrTrx, sql: string, bindings: readonly unknown[] = []): Promise<T[]> {
  const res = (await db.raw(sql, bindings as Knex.RawBinding[])) as unknown;
  if (Array.isArray(res)) return res as T[];
  return ((res as { rows?: T[] }).rows ?? []) as T[];
}
