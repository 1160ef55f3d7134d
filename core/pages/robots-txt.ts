// robots.txt rules for the crawl, read with the maintained `robots-parser` package (which
// implements Google's matching: longest match wins, Allow wins ties, * and $ wildcards).
//
// Decisions:
// - What a response means (Google's convention, RFC 9309 section 2.3.1):
//   2xx: parse the body; 4xx other than 429: no robots.txt, everything allowed; 429, 5xx, other
//   statuses and network errors (status null): the site may be down, so nothing is crawled
//   (`disallowAll`). A final 3xx (the fetcher gave up on redirects) is treated like a 404, as
//   Google does after too many redirects.
// - Size: only the first 500 KiB are read (Google's limit), cut at a line end. Garbage (binary,
//   an HTML error page served with 200) yields no rules: everything allowed, as with Google.
// - URLs on another origin than the robots.txt are not governed by it and get `false` from
//   isAllowed: the crawl never leaves its origin, and a mistake there should fail closed.
// - User agent: rules are chosen by product token ("sitehealth", not a full User-Agent header),
//   falling back to the "*" group. Crawl-delay is reported, not enforced here.

import robotsParserModule from 'robots-parser';

// The package is CommonJS (module.exports = the function) but its types declare an ES default
// export; at run time the default import is the function itself.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

export const ROBOTS_USER_AGENT = 'sitehealth';
export const MAX_ROBOTS_TXT_BYTES = 500 * 1024;

export type RobotsTxtSource = 'parsed' | 'allow-all' | 'disallow-all';

export interface RobotsTxt {
  /** Where the rules come from: a parsed file, or a blanket decision from the HTTP outcome. */
  source: RobotsTxtSource;
  isAllowed(url: string, userAgent?: string): boolean;
  /** Sitemap URLs listed in the file: absolute http(s), unique, in file order. */
  sitemaps: string[];
  /** Crawl-delay for the default user agent (or the * group), when set and a valid number. */
  crawlDelaySeconds?: number;
}

export interface RobotsTxtOptions {
  /** Product token whose group applies when isAllowed is called without one. */
  userAgent?: string;
}

export function robotsTxtUrl(pageUrl: string): string | null {
  try {
    const u = new URL(pageUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return `${u.origin}/robots.txt`;
  } catch {
    return null;
  }
}

function toText(body: string | Buffer): string {
  if (typeof body === 'string') {
    if (body.length <= MAX_ROBOTS_TXT_BYTES) return body;
    return cutAtLineEnd(body.slice(0, MAX_ROBOTS_TXT_BYTES));
  }
  if (body.length <= MAX_ROBOTS_TXT_BYTES) return body.toString('utf8');
  return cutAtLineEnd(body.subarray(0, MAX_ROBOTS_TXT_BYTES).toString('utf8'));
}

function cutAtLineEnd(text: string): string {
  const end = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
  return end === -1 ? '' : text.slice(0, end + 1);
}

/** `robotsUrl` is where robots.txt was requested (its origin is the one the rules govern). */
export function parseRobotsTxt(robotsUrl: string, body: string | Buffer, opts: RobotsTxtOptions = {}): RobotsTxt {
  const defaultAgent = opts.userAgent ?? ROBOTS_USER_AGENT;
  const robots = robotsParser(robotsUrl, toText(body));
  const delay = robots.getCrawlDelay(defaultAgent);
  const result: RobotsTxt = {
    source: 'parsed',
    isAllowed: (url, userAgent) => robots.isAllowed(url, userAgent ?? defaultAgent) === true,
    sitemaps: absoluteUnique(robots.getSitemaps(), robotsUrl),
  };
  if (typeof delay === 'number' && Number.isFinite(delay) && delay >= 0) result.crawlDelaySeconds = delay;
  return result;
}

export function allowAll(robotsUrl: string): RobotsTxt {
  const origin = originOrNull(robotsUrl);
  return { source: 'allow-all', isAllowed: (url) => origin !== null && originOrNull(url) === origin, sitemaps: [] };
}

export function disallowAll(): RobotsTxt {
  return { source: 'disallow-all', isAllowed: () => false, sitemaps: [] };
}

/** The rules implied by fetching robots.txt: see the status conventions at the top. */
export function robotsTxtFromResponse(
  robotsUrl: string,
  res: { status: number | null; body?: string | Buffer },
  opts: RobotsTxtOptions = {},
): RobotsTxt {
  const { status } = res;
  if (status === null) return disallowAll();
  if (status >= 200 && status < 300) return parseRobotsTxt(robotsUrl, res.body ?? '', opts);
  if (status === 429) return disallowAll();
  if (status >= 300 && status < 500) return allowAll(robotsUrl);
  return disallowAll();
}

function originOrNull(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

function absoluteUnique(urls: string[], base: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of urls) {
    let href: string;
    try {
      const u = new URL(raw.trim(), base);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') continue;
      href = u.href;
    } catch {
      continue;
    }
    if (seen.has(href)) continue;
    seen.add(href);
    out.push(href);
  }
  return out;
}
