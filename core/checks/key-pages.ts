import { CrawlPage, SiteCrawl, type DbOrTrx } from '../db/index.ts';
import { normalizeUrl, isSameOrigin, originOf, type SiteFetcher, type RobotsTxt } from '../pages/index.ts';
import { topPagesByClicks } from '../search-data/index.ts';

/** A check looks at the home page and up to this many key pages. */
export const KEY_PAGES = 20;

/**
 * The key pages of a check, in the order docs/api.md#key-pages gives: the pages with the most search
 * clicks over the last 28 days of imported search data, then the shallowest pages of the last
 * finished crawl (fewest clicks from the home page; most linked first), then the sitemap.
 * Same origin as the home page only, the home page itself excluded, at most KEY_PAGES.
 */
export async function chooseKeyPages(
  db: DbOrTrx,
  f: { workspaceId: string; home: string; fetcher: SiteFetcher; robots: RobotsTxt },
): Promise<string[]> {
  const chosen: string[] = [];
  const seen = new Set<string>([normalizeUrl(f.home) ?? f.home]);
  const take = (urls: Iterable<string>) => {
    for (const raw of urls) {
      if (chosen.length >= KEY_PAGES) return;
      const url = normalizeUrl(raw);
      if (!url || seen.has(url) || !isSameOrigin(url, f.home)) continue;
      seen.add(url);
      chosen.push(url);
    }
  };

  const origin = originOf(f.home);
  if (origin) {
    // One more than needed: the home page itself may be among them.
    take((await topPagesByClicks(db, f.workspaceId, { origin, limit: KEY_PAGES + 1 })).map((p) => p.url));
    if (chosen.length >= KEY_PAGES) return chosen;
  }

  const crawl = await SiteCrawl.query(db)
    .where({ workspace_id: f.workspaceId, state: 'finished' })
    .orderBy([
      { column: 'finished_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .select('id')
    .first();
  if (crawl) {
    const pages = await CrawlPage.query(db)
      .where({ crawl_id: crawl.id, status: 200 })
      .orderBy([{ column: 'depth' }, { column: 'inlinks', order: 'desc' }, { column: 'url' }])
      .limit(KEY_PAGES * 3)
      .select('url');
    take(pages.map((p) => p.url));
    if (chosen.length >= KEY_PAGES) return chosen;
  }

  const sitemap = await f.fetcher.sitemaps(f.home, f.robots, { maxTotalUrls: 1000 });
  take(sitemap.urls);
  return chosen;
}
