// GET /v1/search-performance (spec/search-performance.tsp): totals, the compared period's totals
// and one row per value of a dimension, read at request time. Requests by date or page without a
// query, country or device filter read the per-day-per-page totals (search_data, which include
// anonymized queries); every other request reads the sums of the detailed rows
// (search_performance). Where sums kept per day answer the same, they are read instead
// (core/search-data/rollups.ts, written with the rows): with no filter at all, search_rollups
// (a day's totals, the sums of its detailed rows, and its sums per query, country and device;
// rows by page come from search_data); with only country and device filters, search_cube (a day's
// sums per country and device), except rows by query or page. A query filter reads the detailed
// rows through their index by query (workspace_id, query, date), that query's rows only. Every
// statement is one range of a key, grouped; the statements of one request run at once on the
// pool. bench/search-performance.ts measures them.

import { runSql, type DbOrTrx } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { ValidationFailed } from '../platform/index.ts';
import { normalizeUrl } from '../pages/index.ts';
import { addDays, daysBetween } from './days.ts';

/** The longest period, in days: 16 months, the depth Search Console keeps (and search data is kept). */
export const MAX_PERIOD_DAYS = 487;

export type SearchDimension = Schemas['SearchDimension'];

export interface PerformanceQuery {
  workspaceId: string;
  from: string;
  to: string;
  dimension: SearchDimension;
  page?: string;
  query?: string;
  country?: string;
  device?: Schemas['SearchDevice'];
  compare?: Schemas['SearchCompare'];
  limit: number;
  cursor?: string;
}

interface Sums {
  clicks: number | string | null;
  impressions: number | string | null;
  /** SUM(position * impressions) over the rows that carry a position. */
  pw: number | string | null;
  /** SUM(impressions) over the rows that carry a position. */
  pi: number | string | null;
}

// position is a single-precision column: CAST before multiplying, or long sums lose digits.
const SUMS = `SUM(clicks) AS clicks, SUM(impressions) AS impressions,
  SUM(CAST(position AS DOUBLE PRECISION) * impressions) AS pw, SUM(CASE WHEN position IS NULL THEN 0 ELSE impressions END) AS pi`;

/** The same sums over search_rollups, whose rows carry them already. */
const ROLLUP_SUMS = 'SUM(clicks) AS clicks, SUM(impressions) AS impressions, SUM(pw) AS pw, SUM(pi) AS pi';

function totalsOf(s: Sums | undefined): Schemas['SearchTotals'] {
  const clicks = Number(s?.clicks ?? 0);
  const impressions = Number(s?.impressions ?? 0);
  const pi = Number(s?.pi ?? 0);
  return {
    clicks,
    impressions,
    ctr: impressions > 0 ? clicks / impressions : null,
    position: pi > 0 ? Number(s?.pw ?? 0) / pi : null,
  };
}

/** The keyset of the last row of a page: its clicks (not for `date`) and key. */
interface Cursor {
  clicks: number | null;
  key: string;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.clicks, c.key]), 'utf8').toString('base64url');
}

function decodeCursor(raw: string, dimension: SearchDimension): Cursor {
  let parsed: unknown = null;
  if (/^[A-Za-z0-9_-]+$/.test(raw)) {
    try {
      parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    } catch {
      parsed = null;
    }
  }
  const ok =
    Array.isArray(parsed) &&
    parsed.length === 2 &&
    typeof parsed[1] === 'string' &&
    (dimension === 'date' ? parsed[0] === null : Number.isSafeInteger(parsed[0]) && (parsed[0] as number) >= 0);
  if (!ok) {
    throw new ValidationFailed('cursor is not a meta.next_cursor of this search performance query.', [
      { in: 'query', path: '/cursor', message: 'is not a valid cursor: pass meta.next_cursor of the previous page as it is, with the same dimension' },
    ]);
  }
  const [clicks, key] = parsed as [number | null, string];
  return { clicks, key };
}

/** Checks the period: `to` not before `from`, at most MAX_PERIOD_DAYS days. */
export function checkPeriod(from: string, to: string): number {
  const days = daysBetween(from, to) + 1;
  if (days < 1) throw new ValidationFailed('to is before from.', [{ in: 'query', path: '/to', message: `must be on or after from (${from})` }]);
  if (days > MAX_PERIOD_DAYS) {
    throw new ValidationFailed(`The period holds ${days} days; at most ${MAX_PERIOD_DAYS} (16 months, what Search Console keeps) may be asked for at once.`, [
      { in: 'query', path: '/to', message: `makes a period of ${days} days; at most ${MAX_PERIOD_DAYS} (16 months)` },
    ]);
  }
  return days;
}

export async function searchPerformance(db: DbOrTrx, q: PerformanceQuery): Promise<Schemas['SearchPerformanceResult']> {
  const days = checkPeriod(q.from, q.to);
  const cursor = q.cursor === undefined ? null : decodeCursor(q.cursor, q.dimension);
  let page: string | undefined;
  if (q.page !== undefined) {
    const normal = normalizeUrl(q.page);
    if (normal === null) throw new ValidationFailed('page is not an absolute http(s) URL.', [{ in: 'query', path: '/page', message: 'must be an absolute http(s) URL' }]);
    page = normal;
  }
  const detailFilter = q.query !== undefined || q.country !== undefined || q.device !== undefined;
  const byDetail = q.dimension === 'query' || q.dimension === 'country' || q.dimension === 'device';

  // Where the rows and the totals come from (see the file's header): a source is a table, the
  // column the rows are grouped by, its sums and its filters.
  interface Source {
    table: string;
    column: string;
    sums: string;
    where: string[];
    values: string[];
  }
  const raw = (table: string, column: string): Source => ({ table, column, sums: SUMS, where: [], values: [] });
  const rollup = (dimension: string, column: string): Source => ({ table: 'search_rollups', column, sums: ROLLUP_SUMS, where: ['AND dimension = ?'], values: [dimension] });
  const cube = (column: string): Source => ({ table: 'search_cube', column, sums: ROLLUP_SUMS, where: [], values: [] });
  let rowsFrom: Source;
  let totalsFrom: Source;
  if (!detailFilter && page === undefined) {
    // Unfiltered: the per-day rollups, except rows by page, which search_data has per day and page.
    rowsFrom = q.dimension === 'date' ? rollup('total', 'date') : q.dimension === 'page' ? raw('search_data', 'page') : rollup(q.dimension, 'key');
    totalsFrom = byDetail ? rollup('detail', 'date') : rollup('total', 'date');
  } else if (page === undefined && q.query === undefined) {
    // Only country and device filters: the per-day cube of country x device has every sum they
    // need, except rows by query or page, which only the detailed rows have.
    totalsFrom = cube('date');
    rowsFrom = q.dimension === 'query' || q.dimension === 'page' ? raw('search_performance', q.dimension) : cube(q.dimension);
  } else {
    const table = detailFilter || byDetail ? 'search_performance' : 'search_data';
    rowsFrom = raw(table, q.dimension);
    totalsFrom = raw(table, q.dimension);
  }
  const filter = (s: Source, column: string, value: string | undefined) => {
    if (value === undefined) return;
    s.where.push(`AND ${column} = ?`);
    s.values.push(value);
  };
  for (const s of new Set([rowsFrom, totalsFrom])) {
    if (s.table === 'search_rollups') continue;
    filter(s, 'page', page);
    filter(s, 'query', q.query);
    filter(s, 'country', q.country?.toLowerCase());
    filter(s, 'device', q.device);
  }
  const whereOf = (s: Source) => `workspace_id = ? AND date >= ? AND date <= ? ${s.where.join(' ')}`;
  const valuesOf = (s: Source, from: string, to: string) => [q.workspaceId, from, to, ...s.values];

  const comparePeriod = q.compare === 'previous' ? { from: addDays(q.from, -days), to: addDays(q.from, -1) } : null;

  const column = rowsFrom.column;
  const order = q.dimension === 'date' ? `${column} ASC` : `SUM(clicks) DESC, ${column} ASC`;
  let having = '';
  const havingValues: Array<string | number> = [];
  if (cursor) {
    if (q.dimension === 'date') {
      having = `HAVING ${column} > ?`;
      havingValues.push(cursor.key);
    } else {
      having = `HAVING SUM(clicks) < ? OR (SUM(clicks) = ? AND ${column} > ?)`;
      havingValues.push(cursor.clicks!, cursor.clicks!, cursor.key);
    }
  }
  const totalsSql = `SELECT ${totalsFrom.sums} FROM ${totalsFrom.table} WHERE ${whereOf(totalsFrom)}`;

  const [rows, totals, compareTotals, provisional] = await Promise.all([
    runSql<Sums & { k: string }>(
      db,
      `SELECT ${column} AS k, ${rowsFrom.sums} FROM ${rowsFrom.table} WHERE ${whereOf(rowsFrom)} GROUP BY ${column} ${having} ORDER BY ${order} LIMIT ?`,
      [...valuesOf(rowsFrom, q.from, q.to), ...havingValues, q.limit + 1],
    ),
    runSql<Sums>(db, totalsSql, valuesOf(totalsFrom, q.from, q.to)),
    comparePeriod ? runSql<Sums>(db, totalsSql, valuesOf(totalsFrom, comparePeriod.from, comparePeriod.to)) : Promise.resolve(null),
    runSql<{ first: string | null }>(
      db,
      'SELECT MIN(date) AS first FROM search_data_days WHERE workspace_id = ? AND provisional AND date >= ? AND date <= ?',
      [q.workspaceId, q.from, q.to],
    ),
  ]);

  const more = rows.length > q.limit;
  const page0 = more ? rows.slice(0, q.limit) : rows;
  const data = page0.map((r) => ({ key: String(r.k), ...totalsOf(r) }));
  const last = data[data.length - 1];
  return {
    workspaceId: q.workspaceId,
    dimension: q.dimension,
    period: { from: q.from, to: q.to },
    comparePeriod,
    totals: totalsOf(totals[0]),
    compareTotals: compareTotals ? totalsOf(compareTotals[0]) : null,
    provisionalFrom: provisional[0]?.first == null ? null : String(provisional[0].first),
    data,
    meta: { next_cursor: more && last ? encodeCursor({ clicks: q.dimension === 'date' ? null : last.clicks, key: last.key }) : null },
  };
}
