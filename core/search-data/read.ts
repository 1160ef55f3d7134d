// Reading search data: a workspace's span of days, clicks of named pages over the last 28 days
// of data (a finding's `clicks`), and the top pages by clicks (a check's key pages).
// SQL text (runSql), not the models: lookups at the ends of the primary key (bench:impact).

import { runSql, type DbOrTrx } from '../db/index.ts';
import { normalizeUrl } from '../pages/index.ts';
import { addDays, dayRange } from './days.ts';

/** "The last 28 days of data": the 28 days ending on the newest imported day. */
export const CLICKS_WINDOW_DAYS = 28;

export interface SearchSpan {
  /** The oldest imported day, null without data. */
  first: string | null;
  /** The newest imported day, provisional or not. */
  newest: string | null;
  /** The newest day whose data is final. */
  lastFinal: string | null;
}

/** The workspace's span of imported days: three lookups at the ends of its primary key. */
export async function searchSpan(db: DbOrTrx, workspaceId: string): Promise<SearchSpan> {
  const [row] = await runSql<{ first: string | null; newest: string | null; last_final: string | null }>(
    db,
    `SELECT
       (SELECT MIN(date) FROM search_data_days WHERE workspace_id = ?) AS first,
       (SELECT MAX(date) FROM search_data_days WHERE workspace_id = ?) AS newest,
       (SELECT MAX(date) FROM search_data_days WHERE workspace_id = ? AND NOT provisional) AS last_final`,
    [workspaceId, workspaceId, workspaceId],
  );
  return { first: row?.first ?? null, newest: row?.newest ?? null, lastFinal: row?.last_final ?? null };
}

/** `?, ?, ...` for n bindings. */
export function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

/**
 * Rows of the given (normalised) pages on the given days: `date IN (...) AND page IN (...)`, so
 * the primary key (workspace_id, date, page) is probed at each pair instead of a whole range of
 * days being scanned for a few pages.
 */
export function pagesOnDays(workspaceId: string, days: string[], pages: string[]): { where: string; bindings: string[] } {
  return {
    where: `workspace_id = ? AND date IN (${placeholders(days.length)}) AND page IN (${placeholders(pages.length)})`,
    bindings: [workspaceId, ...days, ...pages],
  };
}

/** The normalised form of each URL that has one, each once, in order. */
export function normalizedUrls(urls: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const u of urls) {
    const n = normalizeUrl(u);
    if (n) out.add(n);
  }
  return [...out];
}

/**
 * Each URL's search clicks over the last 28 days of data (CLICKS_WINDOW_DAYS ending on the newest
 * imported day), keyed by the URL as given; 0 for a page without clicks and for every page when
 * the workspace has no search data. One query for all of them.
 */
export async function clicksByUrl(db: DbOrTrx, workspaceId: string, urls: string[], span?: SearchSpan): Promise<Map<string, number>> {
  const out = new Map<string, number>(urls.map((u) => [u, 0]));
  if (urls.length === 0) return out;
  const { newest } = span ?? (await searchSpan(db, workspaceId));
  if (!newest) return out;
  const normal = new Map(urls.map((u) => [u, normalizeUrl(u)]));
  const pages = [...new Set([...normal.values()].filter((p): p is string => p !== null))];
  if (pages.length === 0) return out;
  const q = pagesOnDays(workspaceId, dayRange(addDays(newest, 1 - CLICKS_WINDOW_DAYS), newest), pages);
  const rows = await runSql<{ page: string; clicks: number | string }>(db, `SELECT page, SUM(clicks) AS clicks FROM search_data WHERE ${q.where} GROUP BY page`, q.bindings);
  const byPage = new Map(rows.map((r) => [r.page, Number(r.clicks)]));
  for (const u of urls) out.set(u, byPage.get(normal.get(u) ?? '') ?? 0);
  return out;
}

/**
 * The workspace's pages with the most search clicks over the last 28 days of data, most first
 * (ties by URL), only those under `origin` (e.g. `https://www.example.com`) and with clicks.
 */
export async function topPagesByClicks(db: DbOrTrx, workspaceId: string, o: { origin: string; limit: number }): Promise<Array<{ url: string; clicks: number }>> {
  const { newest } = await searchSpan(db, workspaceId);
  if (!newest) return [];
  const prefix = `${o.origin}/`;
  const rows = await runSql<{ page: string; clicks: number | string }>(
    db,
    `SELECT page, SUM(clicks) AS clicks FROM search_data
      WHERE workspace_id = ? AND date >= ? AND date <= ? AND substr(page, 1, ?) = ?
      GROUP BY page HAVING SUM(clicks) > 0
      ORDER BY SUM(clicks) DESC, page LIMIT ?`,
    [workspaceId, addDays(newest, 1 - CLICKS_WINDOW_DAYS), newest, prefix.length, prefix, o.limit],
  );
  return rows.map((r) => ({ url: r.page, clicks: Number(r.clicks) }));
}
