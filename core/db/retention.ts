import type { Knex } from 'knex';
import type { Db } from './connection.ts';

// The retention mechanism: each domain declares its own rules (activity, request logs, jobs,
// webhook deliveries, search data) next to its tables, and the worker's maintenance task
// composes them in one list (worker/retention.ts) and applies them here.

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

export interface RetentionRule {
  /** Name in logs, e.g. `activity`. */
  name: string;
  table: string;
  /** Column compared with the cutoff: epoch ms, unless `cutoffValue` says otherwise. */
  column: string;
  maxAgeMs: number;
  /** The cutoff as the column stores it, e.g. a `YYYY-MM-DD` day; default the epoch ms itself. */
  cutoffValue?: (cutoffMs: number) => string | number;
  /** Extra conditions (given the cutoff as the column stores it): rows that match everything are deleted. */
  where?: (q: Knex.QueryBuilder, cutoff: string | number) => void;
  /** Primary key used to delete in batches, one column or several; default `id`. */
  key?: string | string[];
}

export interface RetentionResult {
  name: string;
  deleted: number;
}

/**
 * Apply the rules, deleting in batches of `batchSize` rows (one short statement each, so a large
 * backlog never holds a long lock), until nothing older than each cutoff is left.
 */
export async function applyRetention(
  db: Db,
  o: { now: number; rules: readonly RetentionRule[]; batchSize?: number; signal?: AbortSignal },
): Promise<RetentionResult[]> {
  const { rules } = o;
  const batchSize = o.batchSize ?? 1000;
  const results: RetentionResult[] = [];
  for (const rule of rules) {
    const key = rule.key ?? 'id';
    const cutoffMs = o.now - rule.maxAgeMs;
    const cutoff = rule.cutoffValue ? rule.cutoffValue(cutoffMs) : cutoffMs;
    let deleted = 0;
    for (;;) {
      o.signal?.throwIfAborted();
      const batch = db(rule.table).select(key).where(rule.column, '<', cutoff).limit(batchSize);
      if (rule.where) batch.where((q) => rule.where!(q, cutoff));
      const n = await db(rule.table).whereIn(key as string & string[], batch).del();
      deleted += n;
      if (n < batchSize) break;
      await new Promise((r) => setImmediate(r));
    }
    results.push({ name: rule.name, deleted });
  }
  return results;
}
