import type { Knex } from 'knex';
import type { DbOrTrx } from '../db/connection.ts';

/** Rows of a raw statement on either engine (pg returns {rows}, better-sqlite3 an array). */
export async function rawRows<T>(db: DbOrTrx, sql: string, bindings: readonly unknown[] = []): Promise<T[]> {
  const res = (await db.raw(sql, bindings as Knex.RawBinding[])) as unknown;
  if (Array.isArray(res)) return res as T[];
  return ((res as { rows?: T[] }).rows ?? []) as T[];
}

/** "?, ?, ?" */
export function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

/** Longest last_error we keep. */
export const MAX_ERROR_LENGTH = 2000;

export function errorText(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}
