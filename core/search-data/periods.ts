// Search data over a period against the period before it (spec/digests.tsp Report): totals from
// the per-day rows, and the pages that lost the most clicks. Days are `YYYY-MM-DD`, inclusive.
import { runSql, type DbOrTrx } from '../db/index.ts';

export interface DayTotals {
  /** Days of the range with search data. */
  days: number;
  clicks: number;
  impressions: number;
}

/** Totals of a range of days, from search_data_days (one row a day, whatever the site's size). */
export async function searchTotals(db: DbOrTrx, workspaceId: string, from: string, to: string): Promise<DayTotals> {
  const [row] = await runSql<{ days: number | string; clicks: number | string | null; impressions: number | string | null }>(
    db,
    'SELECT COUNT(*) AS days, SUM(clicks) AS clicks, SUM(impressions) AS impressions FROM search_data_days WHERE workspace_id = ? AND date >= ? AND date <= ?',
    [workspaceId, from, to],
  );
  return { days: Number(row?.days ?? 0), clicks: Number(row?.clicks ?? 0), impressions: Number(row?.impressions ?? 0) };
}

/**
 * The pages with fewer clicks in `current` than in `previous` (two ranges of days, `previous`
 * ending before `current` begins), most lost first (ties by URL), at most `limit`. One range scan
 * of the primary key over both periods.
 */
export async function pagesLosingClicks(
  db: DbOrTrx,
  workspaceId: string,
  o: { previous: { from: string; to: string }; current: { from: string; to: string }; limit: number },
): Promise<Array<{ url: string; clicks: number; previousClicks: number }>> {
  const now = 'SUM(CASE WHEN date >= ? THEN clicks ELSE 0 END)';
  const before = 'SUM(CASE WHEN date < ? THEN clicks ELSE 0 END)';
  const c = o.current.from;
  const rows = await runSql<{ page: string; clicks: number | string; previous: number | string }>(
    db,
    `SELECT page, ${now} AS clicks, ${before} AS previous FROM search_data
      WHERE workspace_id = ? AND date >= ? AND date <= ?
      GROUP BY page HAVING ${before} > ${now}
      ORDER BY ${before} - ${now} DESC, page LIMIT ?`,
    [c, c, workspaceId, o.previous.from, o.current.to, c, c, c, c, o.limit],
  );
  return rows.map((r) => ({ url: r.page, clicks: Number(r.clicks), previousClicks: Number(r.previous) }));
}
