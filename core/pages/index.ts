// Page analysis for site checks and crawls: what a downloaded page says about itself (HTML and
// headers), robots.txt rules, sitemaps, and URL normalization for the crawl frontier.
// Fetching is not done here: the guarded fetcher (core/net) downloads, these functions read.

export { analyzeHtml, FLATTEN_DEPTH, MAX_HREF_LENGTH, MAX_TEXT_FIELD, STOP_DEPTH } from './analyze-html.ts';
export type { AnalyzeHtmlOptions, HeaderMap, Hreflang, PageAnalysis } from './analyze-html.ts';
export { isHtmlResponse } from './decode-body.ts';
// Also read by core/render on the rendered DOM, so both name types alike.
export { addItemtypes, addJsonLdTypes } from './structured-data.ts';
export { pageRecordFields } from './page-record.ts';
export type { PageFetchFields, PageHtmlFields, PageRecord } from './page-record.ts';
export { isSameOrigin, normalizeUrl, originOf } from './normalize-url.ts';
export {
  allowAll,
  disallowAll,
  MAX_ROBOTS_TXT_BYTES,
  parseRobotsTxt,
  ROBOTS_USER_AGENT,
  robotsTxtFromResponse,
  robotsTxtUrl,
} from './robots-txt.ts';
export type { RobotsTxt, RobotsTxtOptions, RobotsTxtSource } from './robots-txt.ts';
export { DEFAULT_SITEMAP_LIMITS, parseSitemap, readSitemaps } from './sitemap.ts';
export type { ParsedSitemap, SitemapError, SitemapFetch, SitemapLimits, SitemapResult } from './sitemap.ts';
export { SiteFetcher, PAGE_BODY_LIMIT, notPublicMessage } from './site-fetcher.ts';
export type { FetchedPage, SiteFetcherOptions } from './site-fetcher.ts';
