import { raw, type QueryBuilder, type Model } from 'objection';
import { RequestLog, RequestLogHourly, RequestLogRollup, afterKeyset, type DbOrTrx } from '../db/index.ts';
import { ValidationFailed, decodeCursor, encodeCursor, toIso } from '../platform/index.ts';
import type { Schemas } from '../contract/index.ts';
import { DAY_MS, ERROR_STATUS, HOUR_MS, requestLogToApi } from './types.ts';

// GET /v1/logs (docs/api.md#request-logs): a page of rows, newest first by (created_at, id), and
// `meta` over the whole filtered window. The page walks request_logs_list_idx (or the failed
// / status code / route index when that filter applies). `meta` comes from the rollups unless
// `q` is given, so its cost does not depend on the number of requests in the window:
// request_log_hourly for `days`/`status` alone (at most 720 rows), request_log_rollups when
// `method`, `status_code` or `route` is given. With `q` it counts the matching rows, the one
// filter no rollup can answer.

export interface LogFilters {
  workspaceId: string;
  /** 1 to 30. */
  days: number;
  status?: 'success' | 'failed';
  method?: string;
  statusCode?: number;
  route?: string;
  /** Case-insensitive substring of the path or the error message. */
  q?: string;
}

export interface LogQuery extends LogFilters {
  limit: number;
  /** Id of a log row: only rows older than it. */
  before?: string;
  /** A `meta.next_cursor` (core/platform/cursor.ts), instead of `before`. */
  cursor?: string;
  now: number;
}

export interface LogBucket {
  start: string;
  total: number;
  errors: number;
}

export interface LogMeta {
  total: number;
  errors: number;
  buckets: LogBucket[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface LogWindow {
  /** First bucket's start (inclusive), epoch ms. */
  start: number;
  /** Last bucket's end (exclusive). */
  end: number;
  bucketMs: number;
}

/** `days=1`: 24 hourly buckets ending with the current UTC hour; `days=N`: N UTC days ending today. */
export function logWindow(now: number, days: number): LogWindow {
  const bucketMs = days === 1 ? HOUR_MS : DAY_MS;
  const count = days === 1 ? 24 : days;
  const end = Math.floor(now / bucketMs) * bucketMs + bucketMs;
  return { start: end - count * bucketMs, end, bucketMs };
}

/** `q` as a LIKE pattern: lower case, `\`, `%` and `_` escaped, wrapped in `%`. */
function likePattern(q: string): string {
  return `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The filters both request_logs and request_log_rollups understand (same column names).
 * The status conditions are literal SQL so the planner can match request_logs_failed_idx.
 */
function applyColumnFilters<M extends Model>(q: QueryBuilder<M, M[]>, f: LogFilters): void {
  if (f.status === 'failed') q.whereRaw(`status_code >= ${ERROR_STATUS}`);
  if (f.status === 'success') q.whereRaw(`status_code < ${ERROR_STATUS}`);
  if (f.method) q.where('method', f.method);
  if (f.statusCode !== undefined) q.where('status_code', f.statusCode);
  if (f.route) q.where('route', f.route);
}

function applyRowFilters(q: QueryBuilder<RequestLog, RequestLog[]>, f: LogFilters, w: LogWindow): void {
  q.where('workspace_id', f.workspaceId).where('created_at', '>=', w.start).where('created_at', '<', w.end);
  applyColumnFilters(q, f);
  if (f.q) {
    const pattern = likePattern(f.q);
    q.where((w2) =>
      w2
        .whereRaw(`LOWER(path) LIKE ? ESCAPE '\\'`, [pattern])
        .orWhereRaw(`LOWER(error_message) LIKE ? ESCAPE '\\'`, [pattern]),
    );
  }
}

/** Where the `before` cursor sits: its row, or the time a UUID v7 carries if the row is gone. */
async function cursorOf(db: DbOrTrx, workspaceId: string, before: string): Promise<{ createdAt: number; id: string }> {
  const id = before.toLowerCase();
  const row = await RequestLog.query(db).where({ id, workspace_id: workspaceId }).select('created_at').first();
  if (row) return { createdAt: Number(row.created_at), id };
  // Pruned (or never here): log ids are UUID v7 minted from created_at (store.ts), so the
  // id alone still says where the page ends; answering the same way whether or not the id
  // exists elsewhere leaks nothing about other workspaces.
  if (id[14] === '7') return { createdAt: parseInt(id.slice(0, 8) + id.slice(9, 13), 16), id };
  throw new ValidationFailed('before must be the id of a log row.', [
    { in: 'query', path: '/before', message: 'is not the id of a log row' },
  ]);
}

/** `days` and `status` alone: one row per hour. */
async function metaFromHourly(db: DbOrTrx, f: LogFilters, w: LogWindow): Promise<Array<{ at: number; total: number; errors: number }>> {
  const rows = await RequestLogHourly.query(db)
    .where('workspace_id', f.workspaceId)
    .where('hour_start', '>=', w.start)
    .where('hour_start', '<', w.end)
    .select('hour_start', 'total', 'errors');
  return rows.map((r) => {
    const total = Number(r.total);
    const errors = Number(r.errors);
    if (f.status === 'success') return { at: Number(r.hour_start), total: total - errors, errors: 0 };
    if (f.status === 'failed') return { at: Number(r.hour_start), total: errors, errors };
    return { at: Number(r.hour_start), total, errors };
  });
}

/** With `method`, `status_code` or `route`: summed over the matching (method, route, status) rows of each hour. */
async function metaFromRollups(db: DbOrTrx, f: LogFilters, w: LogWindow): Promise<Array<{ at: number; total: number; errors: number }>> {
  const q = RequestLogRollup.query(db)
    .where('workspace_id', f.workspaceId)
    .where('hour_start', '>=', w.start)
    .where('hour_start', '<', w.end)
    .select('hour_start as at', raw('SUM(total) AS total'), raw(`SUM(CASE WHEN status_code >= ${ERROR_STATUS} THEN total ELSE 0 END) AS errors`))
    .groupBy('hour_start');
  applyColumnFilters(q, f);
  const rows = (await q) as unknown as Array<{ at: number | string; total: number | string; errors: number | string }>;
  return rows.map((r) => ({ at: Number(r.at), total: Number(r.total), errors: Number(r.errors) }));
}

async function metaFromRows(db: DbOrTrx, f: LogFilters, w: LogWindow): Promise<Array<{ at: number; total: number; errors: number }>> {
  const bucket = `created_at - (created_at % ${w.bucketMs})`;
  const q = RequestLog.query(db)
    .select(raw(`${bucket} AS at`), raw('COUNT(*) AS total'), raw(`SUM(CASE WHEN status_code >= ${ERROR_STATUS} THEN 1 ELSE 0 END) AS errors`))
    .groupByRaw(bucket);
  applyRowFilters(q, f, w);
  const rows = (await q) as unknown as Array<{ at: number | string; total: number | string; errors: number | string }>;
  return rows.map((r) => ({ at: Number(r.at), total: Number(r.total), errors: Number(r.errors) }));
}

/** Totals, errors and every bucket of the window (empty ones too), oldest first. */
export async function logMeta(db: DbOrTrx, f: LogFilters, w: LogWindow): Promise<Omit<LogMeta, 'has_more' | 'next_cursor'>> {
  const counts = f.q
    ? await metaFromRows(db, f, w)
    : f.method || f.statusCode !== undefined || f.route
      ? await metaFromRollups(db, f, w)
      : await metaFromHourly(db, f, w);
  const n = Math.round((w.end - w.start) / w.bucketMs);
  const buckets: LogBucket[] = Array.from({ length: n }, (_, i) => ({ start: toIso(w.start + i * w.bucketMs)!, total: 0, errors: 0 }));
  let total = 0;
  let errors = 0;
  for (const c of counts) {
    const i = Math.floor((c.at - w.start) / w.bucketMs);
    if (i < 0 || i >= n) continue;
    buckets[i].total += c.total;
    buckets[i].errors += c.errors;
    total += c.total;
    errors += c.errors;
  }
  return { total, errors, buckets };
}

/** One page of rows plus meta. */
export async function listRequestLogs(db: DbOrTrx, query: LogQuery): Promise<{ data: Schemas['LogRow'][]; meta: LogMeta }> {
  const w = logWindow(query.now, query.days);
  const page = RequestLog.query(db)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(query.limit + 1);
  applyRowFilters(page, query, w);
  if (query.before && query.cursor) {
    throw new ValidationFailed('Give before or cursor, not both.', [{ in: 'query', path: '/cursor', message: 'cannot be combined with before' }]);
  }
  if (query.cursor) afterKeyset(page, 'created_at', decodeCursor(query.cursor, 'this list'));
  else if (query.before) {
    const c = await cursorOf(db, query.workspaceId, query.before);
    afterKeyset(page, 'created_at', { at: c.createdAt, id: c.id });
  }
  const [rows, meta] = await Promise.all([page, logMeta(db, query, w)]);
  const hasMore = rows.length > query.limit;
  const data = hasMore ? rows.slice(0, query.limit) : rows;
  const last = data[data.length - 1];
  return {
    data: data.map(requestLogToApi),
    meta: { ...meta, has_more: hasMore, next_cursor: hasMore ? encodeCursor({ at: Number(last.created_at), id: last.id }) : null },
  };
}
