import type { Schemas } from '../contract/index.ts';
import type { Severity } from './check-kinds.ts';

// One entry per crawl finding kind, the same shape as the check kinds beside it (check-kinds.ts):
// its severity, what over the crawl detects it (`detect`: the pages, or the sitemaps, it is
// reported for, one finding each) and how it explains itself (`explain`: the finding's
// `details`). A new kind is one entry here, its contract enum value and a test. Severities,
// meanings and details are the table on CrawlFindingKind in spec/site-checks.tsp
// (docs/api.md#crawl-findings).

export type CrawlFindingKind = Schemas['CrawlFindingKind'];

export interface CrawledPage {
  url: string;
  depth: number;
  status: number | null;
  finalUrl: string | null;
  redirects: Array<{ url: string; status: number }>;
  title: string | null;
  robots: string[];
  blockedByRobots: boolean;
  inSitemap: boolean;
  inlinks: number;
  linkedFrom: string | null;
  /** Why it could not be fetched (too_many_redirects, timeout, ...), or null. */
  error: { code: string; message: string } | null;
  isHtml: boolean;
  /**
   * Not found by the walk: requested again because the previous crawl had it (or it is a key page
   * by search clicks). Nothing crawled links to it, unless the page cap cut the walk short.
   */
  revisited: boolean;
}

/** A finished crawl, as the kinds read it. */
export interface CrawledSite {
  pages: readonly CrawledPage[];
  home: string;
  sitemapErrors: ReadonlyArray<{ url: string; message: string }>;
  sitemapReachable: boolean;
  /** URLs that answered 200 in the previous finished crawl, and key pages by search clicks (for page_removed). */
  previouslyOk: ReadonlySet<string>;
  /** URLs that answered 200 at their own address, without a redirect, in the previous finished crawl (for redirect_added). */
  previouslyDirect: ReadonlySet<string>;
  /** The walk ran out of links before the page cap: a page it did not reach is linked from no crawled page. */
  complete: boolean;
}

/** A redirect chain of this many hops or more is a finding (one hop is a plain redirect). */
export const REDIRECT_CHAIN_HOPS = 2;

export interface CrawlKindRule<Subject extends { url: string } = { url: string }> {
  kind: CrawlFindingKind;
  severity: Severity;
  /** What the kind is reported for; each is one finding on its `url`. */
  detect(site: CrawledSite): readonly Subject[];
  /** The finding's `details`. */
  explain(subject: Subject): Record<string, unknown>;
}

/** Types one entry on its own, so that its `explain` takes what its `detect` found (a page, a sitemap, a title's pages). */
const crawlKind = <Subject extends { url: string }>(rule: CrawlKindRule<Subject>): CrawlKindRule => rule;

/** A chain that comes back to a URL it already visited loops, however many hops it had. */
function loops(p: CrawledPage): boolean {
  const urls = p.redirects.map((r) => r.url);
  if (p.finalUrl) urls.push(p.finalUrl);
  return new Set(urls).size < urls.length;
}
/** robots.txt-disallowed URLs are never fetched: they have no answer to judge. */
const fetched = (p: CrawledPage) => !p.blockedByRobots;
const servedHtml = (p: CrawledPage) => fetched(p) && p.status === 200 && p.isHtml;

/** Each page that shares its title with another page, with every URL of that title (crawl order). */
function sharingTitles(pages: readonly CrawledPage[]): Array<{ url: string; title: string; urls: string[] }> {
  const byTitle = new Map<string, string[]>();
  for (const p of pages) if (p.title) byTitle.set(p.title, [...(byTitle.get(p.title) ?? []), p.url]);
  return [...byTitle].filter(([, urls]) => urls.length > 1).flatMap(([title, urls]) => urls.map((url) => ({ url, title, urls })));
}

export const CRAWL_KINDS: readonly CrawlKindRule[] = [
  crawlKind({
    kind: 'redirect_loop',
    severity: 'critical',
    detect: (site) => site.pages.filter(loops),
    explain: (p) => ({ chain: p.redirects.map((r) => r.url) }),
  }),
  crawlKind({
    // A loop that ended without an answer is the redirect_loop already, not a broken link too.
    kind: 'broken_link',
    severity: 'high',
    detect: (site) => site.pages.filter((p) => fetched(p) && p.inlinks > 0 && (p.status === null ? !loops(p) : p.status >= 400)),
    explain: (p) => ({ from: p.linkedFrom, status: p.status, error: p.error?.message ?? null, links: p.inlinks }),
  }),
  crawlKind({
    kind: 'page_removed',
    severity: 'high',
    detect: (site) => site.pages.filter((p) => fetched(p) && (p.status === 404 || p.status === 410) && site.previouslyOk.has(p.url)),
    explain: (p) => ({ status: p.status, linked: p.inlinks > 0 }),
  }),
  crawlKind({
    // One hop; two or more are a redirect_chain, and a loop a redirect_loop.
    kind: 'redirect_added',
    severity: 'high',
    detect: (site) => site.pages.filter((p) => fetched(p) && p.redirects.length === 1 && !loops(p) && site.previouslyDirect.has(p.url)),
    explain: (p) => ({ status: p.redirects[0].status, to: p.finalUrl }),
  }),
  crawlKind({
    kind: 'noindex_page',
    severity: 'high',
    detect: (site) => site.pages.filter((p) => servedHtml(p) && (p.robots.includes('noindex') || p.robots.includes('none'))),
    explain: (p) => ({ robots: p.robots, inSitemap: p.inSitemap }),
  }),
  crawlKind({
    // Only a URL something asks for (a link, the sitemap) is blocked from anyone.
    kind: 'blocked_by_robots',
    severity: 'high',
    detect: (site) => site.pages.filter((p) => p.blockedByRobots && (p.inlinks > 0 || p.inSitemap)),
    explain: (p) => ({ from: p.linkedFrom, inSitemap: p.inSitemap }),
  }),
  crawlKind({
    // A loop is reported as the loop, however long.
    kind: 'redirect_chain',
    severity: 'medium',
    detect: (site) => site.pages.filter((p) => p.redirects.length >= REDIRECT_CHAIN_HOPS && !loops(p)),
    explain: (p) => ({ hops: p.redirects.length, chain: [...p.redirects.map((r) => r.url), p.finalUrl] }),
  }),
  crawlKind({
    // Every sitemap (or child of an index) that could not be read; with none readable and none
    // named, the conventional /sitemap.xml.
    kind: 'sitemap_unreachable',
    severity: 'medium',
    detect: (site) =>
      site.sitemapErrors.length || site.sitemapReachable ? site.sitemapErrors : [{ url: new URL('/sitemap.xml', site.home).href, message: 'no sitemap could be read' }],
    explain: (sitemap) => ({ message: sitemap.message }),
  }),
  crawlKind({
    // A URL that redirected shows its target's title: only pages served at their own URL count.
    kind: 'duplicate_title',
    severity: 'low',
    detect: (site) => sharingTitles(site.pages.filter((p) => servedHtml(p) && p.redirects.length === 0)),
    explain: ({ url, title, urls }) => ({ title, others: urls.filter((u) => u !== url).slice(0, 5), pages: urls.length }),
  }),
  crawlKind({
    // The home page is where a crawl starts: no link to it is needed. A URL that redirects is not
    // a page (its target is judged). A page only the previous crawl (or search data) knew is
    // unlinked only if the walk was not cut short by the page cap.
    kind: 'orphan_page',
    severity: 'low',
    detect: (site) =>
      site.pages.filter(
        (p) => servedHtml(p) && p.redirects.length === 0 && p.inlinks === 0 && p.url !== site.home && (p.inSitemap || (p.revisited && site.complete)),
      ),
    explain: (p) => ({ inSitemap: p.inSitemap }),
  }),
];

export const CRAWL_SEVERITY = Object.fromEntries(CRAWL_KINDS.map((k) => [k.kind, k.severity])) as Record<CrawlFindingKind, Severity>;
