// Page analysis for site checks and crawls: what a downloaded page says about itself (HTML and
// headers), robots.txt rules, sitemaps, and URL normalization for the crawl frontier.
// Fetching is not done here: the guarded fetcher (core/net) downloads, these functions read.

export { analyzeHtml, MAX_HREF_LENGTH, MAX_TEXT_FIELD } from './analyze-html.ts';
export type { AnalyzeHtmlOptions, HeaderMap, Hreflang, PageAnalysis } from './analyze-html.ts';
export { isHtmlResponse } from './decode-body.ts';
export { isSameOrigin, normalizeUrl, originOf } from './normalize-url.ts';
