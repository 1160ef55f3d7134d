import { FetchError, guardedFetch, type GuardedFetchOptions, type RedirectHop } from '../net/index.ts';
import { analyzeHtml, type PageAnalysis } from './analyze-html.ts';
import { pageRecordFields, type PageRecord } from './page-record.ts';
import { robotsTxtFromResponse, robotsTxtUrl, type RobotsTxt } from './robots-txt.ts';
import { readSitemaps, type SitemapLimits, type SitemapResult } from './sitemap.ts';

// How checks and crawls download a website: every request through the guarded fetcher (address
// checks at every hop, pinned connections, timeouts, a 5 MiB cut), and every page turned into a
// page record. One instance per check or crawl carries its settings and its abort signal.

export interface SiteFetcherOptions {
  allowPrivateNetwork: boolean;
  signal?: AbortSignal;
  /** Per request: lookups, redirects, headers and body. Default 15 s. */
  timeoutMs?: number;
  /** Tests: a resolver and extra trusted certificates. */
  resolver?: GuardedFetchOptions['resolver'];
  ca?: GuardedFetchOptions['ca'];
}

export interface FetchedPage {
  record: PageRecord;
  /** Null when nothing came back (network error); `isHtml` says whether the body was HTML. */
  analysis: PageAnalysis | null;
  /** Why the page could not be fetched, when it could not. */
  error: FetchError | null;
  /** https: when the certificate of the host that answered stops being valid (epoch ms); else null. */
  certificateValidTo: number | null;
}

/** Why a check or crawl fails when its website is not on the public internet. */
export function notPublicMessage(reason: string): string {
  return `the website's address is not public (${reason}); checks and crawls only reach public addresses`;
}

/** A page body larger than this is cut, and what was read is analysed. */
export const PAGE_BODY_LIMIT = 5 * 1024 * 1024;
/** A sitemap download (compressed) larger than this is refused; its content has caps of its own. */
const SITEMAP_DOWNLOAD_LIMIT = 20 * 1024 * 1024;

function emptyRecord(url: string, redirects: RedirectHop[], blockedByRobotsTxt: boolean): PageRecord {
  return {
    url,
    finalUrl: redirects.length ? redirects[redirects.length - 1].url : url,
    status: null,
    redirects,
    ttfbMs: null,
    bytes: null,
    title: null,
    metaDescription: null,
    canonical: null,
    robots: [],
    h1Count: 0,
    hreflang: [],
    structuredDataTypes: [],
    wordCount: 0,
    internalLinks: 0,
    blockedByRobotsTxt,
  };
}

export class SiteFetcher {
  constructor(private readonly o: SiteFetcherOptions) {}

  private options(extra: Partial<GuardedFetchOptions> = {}): GuardedFetchOptions {
    return {
      allowPrivateNetwork: this.o.allowPrivateNetwork,
      signal: this.o.signal,
      timeoutMs: this.o.timeoutMs,
      resolver: this.o.resolver,
      ca: this.o.ca,
      ...extra,
    };
  }

  /**
   * One page as a page record. A network error, a timeout or an address that is not public is a
   * record with `status: null` (the error is returned beside it); it never throws for the page.
   */
  async page(url: string, robots: RobotsTxt | null): Promise<FetchedPage> {
    const blocked = robots ? !robots.isAllowed(url) : false;
    let res;
    try {
      res = await guardedFetch(url, this.options({ maxBodyBytes: PAGE_BODY_LIMIT, truncate: true }));
    } catch (err) {
      if (!(err instanceof FetchError)) throw err;
      if (err.code === 'aborted') throw err;
      return { record: emptyRecord(url, err.redirects, blocked), analysis: null, error: err, certificateValidTo: null };
    }
    // Not HTML: the analysis still reads X-Robots-Tag and Link headers, and finds no links.
    const analysis = analyzeHtml(res.body, { url: res.finalUrl, headers: res.headers });
    const fields = pageRecordFields(analysis);
    return {
      record: {
        url,
        finalUrl: res.finalUrl,
        status: res.status,
        redirects: res.redirects,
        ttfbMs: Math.round(res.ttfbMs),
        bytes: res.bytes,
        ...fields,
        blockedByRobotsTxt: blocked,
      },
      analysis,
      error: null,
      certificateValidTo: res.certificateValidTo,
    };
  }

  /** robots.txt of a site, read as crawlers read it (4xx: allow all; 5xx or unreachable: disallow all). */
  async robotsTxt(siteUrl: string): Promise<RobotsTxt> {
    return (await this.robotsTxtFile(siteUrl)).robots;
  }

  /** robots.txt's rules with what it answered: its status (null: no answer) and its text (2xx only). */
  async robotsTxtFile(siteUrl: string): Promise<{ robots: RobotsTxt; status: number | null; text: string | null }> {
    const url = robotsTxtUrl(siteUrl);
    if (!url) return { robots: robotsTxtFromResponse(siteUrl, { status: null }), status: null, text: null };
    try {
      const res = await guardedFetch(url, this.options({ maxBodyBytes: 512 * 1024, truncate: true }));
      const ok = res.status >= 200 && res.status < 300;
      return { robots: robotsTxtFromResponse(url, { status: res.status, body: res.body }), status: res.status, text: ok ? res.body.toString('utf8') : null };
    } catch (err) {
      if (err instanceof FetchError && err.code === 'aborted') throw err;
      return { robots: robotsTxtFromResponse(url, { status: null }), status: null, text: null };
    }
  }

  /** The URLs of the site's sitemaps (robots.txt `Sitemap:` lines, else `/sitemap.xml`). */
  sitemaps(siteUrl: string, robots: RobotsTxt, limits?: Partial<SitemapLimits>): Promise<SitemapResult> {
    const start = robots.sitemaps.length ? robots.sitemaps : [new URL('/sitemap.xml', siteUrl).href];
    return readSitemaps(
      start,
      async (url) => {
        try {
          const res = await guardedFetch(url, this.options({ maxBodyBytes: SITEMAP_DOWNLOAD_LIMIT }));
          return { status: res.status, body: res.body };
        } catch (err) {
          if (err instanceof FetchError && err.code === 'aborted') throw err;
          return { status: null, body: Buffer.alloc(0) };
        }
      },
      limits,
    );
  }
}
