// GET /v1/search-performance (spec/search-performance.tsp): totals, the compared period's totals
// and one row per value of a dimension, read at request time. Requests by date or page without a
// query, country or device filter read the per-day-per-page totals (search_data, which include
// anonymized queries); every other request reads the detailed rows (search_performance). Every
// statement is one range of the table's primary key, (workspace_id, date, ...), grouped; the
// statements of one request run at once on the pool. bench/search-performance.ts measures them.

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
  const detailed = q.query !== undefined || q.country !== undefined || q.device !== undefined || (q.dimension !== 'date' && q.dimension !== 'page');
  const table = detailed ? 'search_performance' : 'search_data';

  const filters: string[] = [];
  const filterValues: string[] = [];
  const filter = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    filters.push(`AND ${column} = ?`);
    filterValues.push(value);
  };
  filter('page', page);
  filter('query', q.query);
  filter('country', q.country?.toLowerCase());
  filter('device', q.device);
  const where = `workspace_id = ? AND date >= ? AND date <= ? ${filters.join(' ')}`;
  const period = (from: string, to: string) => [q.workspaceId, from, to, ...filterValues];

  const comparePeriod = q.compare === 'previous' ? { from: addDays(q.from, -days), to: addDays(q.from, -1) } : null;

  // The dimension's column; `date` compared as text so the keyset works alike on both engines.
  const column = q.dimension;
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

  const [rows, totals, compareTotals, provisional] = await Promise.all([
    runSql<Sums & { k: string }>(
      db,
      `SELECT ${column} AS k, ${SUMS} FROM ${table} WHERE ${where} GROUP BY ${column} ${having} ORDER BY ${order} LIMIT ?`,
      [...period(q.from, q.to), ...havingValues, q.limit + 1],
    ),
    runSql<Sums>(db, `SELECT ${SUMS} FROM ${table} WHERE ${where}`, period(q.from, q.to)),
    comparePeriod ? runSql<Sums>(db, `SELECT ${SUMS} FROM ${table} WHERE ${where}`, period(comparePeriod.from, comparePeriod.to)) : Promise.resolve(null),
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
