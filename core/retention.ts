import type { Knex } from 'knex';
import type { Db } from './db/connection.ts';

// What the maintenance job prunes (interface.md section 8: deliveries and request logs 30 days,
// activity 90 days except security rows, which are never pruned; plus finished jobs).
// Features add their tables here. A rule whose table may not exist yet sets `optional`.

const DAY = 86_400_000;
const HOUR = 3_600_000;

export interface RetentionRule {
  /** Name in logs, e.g. `activity`. */
  name: string;
  table: string;
  /** Epoch-ms column compared with the cutoff. */
  column: string;
  maxAgeMs: number;
  /** Extra conditions: rows that match everything are deleted. */
  where?: (q: Knex.QueryBuilder) => void;
  /** Skip the rule (instead of failing) when the table does not exist. */
  optional?: boolean;
  /** Primary key used to delete in batches; default `id`. */
  key?: string;
}

export const retentionRules: RetentionRule[] = [
  {
    name: 'activity',
    table: 'activity',
    column: 'created_at',
    maxAgeMs: 90 * DAY,
    where: (q) => q.whereNot('kind', 'security'),
  },
  { name: 'request_logs', table: 'request_logs', column: 'created_at', maxAgeMs: 30 * DAY, optional: true },
  // An hour's rollups go once all of the hour is past the logs' cutoff, so they are never dropped
  // while rows they count remain; no GET /v1/logs window (at most 30 UTC days) reaches them then.
  { name: 'request_log_hourly', table: 'request_log_hourly', column: 'hour_start', maxAgeMs: 30 * DAY + HOUR, optional: true },
  { name: 'request_log_rollups', table: 'request_log_rollups', column: 'hour_start', maxAgeMs: 30 * DAY + HOUR, optional: true },
  { name: 'webhook_deliveries', table: 'webhook_deliveries', column: 'created_at', maxAgeMs: 30 * DAY, optional: true },
  {
    name: 'jobs_done',
    table: 'jobs',
    column: 'finished_at',
    maxAgeMs: 7 * DAY,
    where: (q) => q.whereIn('state', ['done', 'cancelled']),
  },
  {
    name: 'jobs_failed',
    table: 'jobs',
    column: 'finished_at',
    maxAgeMs: 30 * DAY,
    where: (q) => q.where('state', 'failed'),
  },
];

export interface RetentionResult {
  name: string;
  deleted: number;
  /** True when the table does not exist (optional rules only). */
  skipped?: boolean;
}

/**
 * Apply the rules, deleting in batches of `batchSize` rows (one short statement each, so a large
 * backlog never holds a long lock), until nothing older than each cutoff is left.
 */
export async function applyRetention(
  db: Db,
  o: { now: number; rules?: RetentionRule[]; batchSize?: number; signal?: AbortSignal },
): Promise<RetentionResult[]> {
  const rules = o.rules ?? retentionRules;
  const batchSize = o.batchSize ?? 1000;
  const exists = new Map<string, boolean>();
  for (const table of new Set(rules.map((r) => r.table))) exists.set(table, await db.schema.hasTable(table));
  const results: RetentionResult[] = [];
  for (const rule of rules) {
    if (!exists.get(rule.table)) {
      if (!rule.optional) throw new Error(`retention rule ${rule.name}: table ${rule.table} does not exist`);
      results.push({ name: rule.name, deleted: 0, skipped: true });
      continue;
    }
    const key = rule.key ?? 'id';
    const cutoff = o.now - rule.maxAgeMs;
    let deleted = 0;
    for (;;) {
      o.signal?.throwIfAborted();
      const batch = db(rule.table).select(key).where(rule.column, '<', cutoff).limit(batchSize);
      if (rule.where) batch.where(rule.where);
      const n = await db(rule.table).whereIn(key, batch).del();
      deleted += n;
      if (n < batchSize) break;
      await new Promise((r) => setImmediate(r));
    }
    results.push({ name: rule.name, deleted });
  }
  return results;
}
