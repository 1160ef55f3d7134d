// Findings: the finding kinds of checks and of crawls (one entry per kind: severity, what it
// compares, how it explains itself), what got worse between two checks (and what is wrong in
// one), and the ranking of a deploy's changes as likely causes.
export { CHECK_KINDS, CHECK_SEVERITY, CONTENT_SHRUNK, LINKS_DROPPED, SLOWER_RESPONSE, HEAVIER_PAGE, RENDER_BANDS, type CheckKindRule, type CheckFindingKind, type Severity } from './check-kinds.ts';
export { compareChecks, compareRendered, RENDERED_KINDS, judgeCheck, bySeverity, type RawCheckFinding } from './compare-checks.ts';
export { CRAWL_KINDS, CRAWL_SEVERITY, REDIRECT_CHAIN_HOPS, type CrawlKindRule, type CrawlFindingKind, type CrawledPage, type CrawledSite } from './crawl-kinds.ts';
export { rankCauses, scoreChange, CAUSES, WEIGHTS, MAX_CAUSES, type Cause, type FindingKind } from './causes.ts';
export { pathAffinity, routeSegments, urlSegments, SITE_WIDE_AFFINITY } from './path-affinity.ts';
export { SITE_KINDS, compareSites, judgeSite, CERTIFICATE_EXPIRING_MS, ROBOTS_TEXT_KEPT, SITEMAP_URLS_KEPT, type SiteFacts, type SiteKindRule } from './site-kinds.ts';
