import type { Schemas } from '../contract/index.ts';
import { CRAWL_SEVERITY, bySeverity, type CrawlFindingKind } from '../findings/index.ts';

// What a crawl finds wrong with the site (each kind's severity is in core/findings): computed
// over the crawled pages, then only the findings that were not in the previous crawl are the
// deploy's `crawlFindings`.

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
}

export type CrawlFinding = Schemas['CrawlFinding'];

/** A redirect chain of this many hops or more is a finding (one hop is a plain redirect). */
export const REDIRECT_CHAIN_HOPS = 2;

function finding(kind: CrawlFindingKind, url: string, details: Record<string, unknown>): CrawlFinding {
  return { kind, severity: CRAWL_SEVERITY[kind], url, details };
}

/** A chain that comes back to a URL it already visited loops, however many hops it had. */
function loops(redirects: CrawledPage['redirects'], finalUrl: string | null): boolean {
  const urls = redirects.map((r) => r.url);
  if (finalUrl) urls.push(finalUrl);
  return new Set(urls).size < urls.length;
}

export interface CrawlFindingsInput {
  pages: readonly CrawledPage[];
  home: string;
  sitemapErrors: ReadonlyArray<{ url: string; message: string }>;
  sitemapReachable: boolean;
  /** URLs that answered 200 in the previous finished crawl (for page_removed). */
  previouslyOk: ReadonlySet<string>;
}

export function crawlFindings(i: CrawlFindingsInput): CrawlFinding[] {
  const out: CrawlFinding[] = [];
  const titles = new Map<string, string[]>();
  for (const p of i.pages) {
    const isLoop = (p.error?.code === 'too_many_redirects' && loops(p.redirects, null)) || loops(p.redirects, p.finalUrl);
    if (isLoop) {
      out.push(finding('redirect_loop', p.url, { chain: p.redirects.map((r) => r.url) }));
    } else if (p.redirects.length >= REDIRECT_CHAIN_HOPS) {
      out.push(finding('redirect_chain', p.url, { hops: p.redirects.length, chain: [...p.redirects.map((r) => r.url), p.finalUrl] }));
    }
    if (p.blockedByRobots) {
      if (p.inlinks > 0 || p.inSitemap) out.push(finding('blocked_by_robots', p.url, { from: p.linkedFrom, inSitemap: p.inSitemap }));
      continue;
    }
    const failed = p.status === null ? !isLoop : p.status >= 400;
    if (failed && p.inlinks > 0) {
      out.push(finding('broken_link', p.url, { from: p.linkedFrom, status: p.status, error: p.error?.message ?? null, links: p.inlinks }));
    }
    if ((p.status === 404 || p.status === 410) && i.previouslyOk.has(p.url)) out.push(finding('page_removed', p.url, { status: p.status }));
    if (p.status !== 200 || !p.isHtml) continue;
    if (p.robots.includes('noindex') || p.robots.includes('none')) out.push(finding('noindex_page', p.url, { robots: p.robots, inSitemap: p.inSitemap }));
    if (p.inSitemap && p.inlinks === 0 && p.url !== i.home) out.push(finding('orphan_page', p.url, { inSitemap: true }));
    // A URL that redirected shows its target's title: only pages served at their own URL count.
    if (p.title && p.redirects.length === 0) titles.set(p.title, [...(titles.get(p.title) ?? []), p.url]);
  }
  for (const [title, urls] of titles) {
    if (urls.length < 2) continue;
    for (const url of urls) out.push(finding('duplicate_title', url, { title, others: urls.filter((u) => u !== url).slice(0, 5), pages: urls.length }));
  }
  // Every sitemap (or child of an index) that could not be read; with none readable and none
  // named, the conventional /sitemap.xml.
  const errors = i.sitemapErrors.length || i.sitemapReachable ? i.sitemapErrors : [{ url: new URL('/sitemap.xml', i.home).href, message: 'no sitemap could be read' }];
  for (const e of errors) out.push(finding('sitemap_unreachable', e.url, { message: e.message }));
  return out.sort(bySeverity);
}

/** Findings whose kind and URL the previous crawl did not have. */
export function newSince(current: readonly CrawlFinding[], previous: readonly CrawlFinding[]): CrawlFinding[] {
  const seen = new Set(previous.map((f) => `${f.kind} ${f.url}`));
  return current.filter((f) => !seen.has(`${f.kind} ${f.url}`));
}
