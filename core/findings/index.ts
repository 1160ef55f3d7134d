// Findings: what got worse between two checks (and what is wrong in one), crawl finding
// severities, and the ranking of a deploy's changes as likely causes.
export { CHECK_KINDS, CHECK_SEVERITY, CONTENT_SHRUNK, LINKS_DROPPED, SLOWER_RESPONSE, HEAVIER_PAGE, type CheckFindingKind, type Severity } from './check-kinds.ts';
export { compareChecks, judgeCheck, bySeverity, type RawCheckFinding } from './compare-checks.ts';
export { CRAWL_SEVERITY, type CrawlFindingKind } from './crawl-kinds.ts';
export { rankCauses, scoreChange, CAUSES, WEIGHTS, MAX_CAUSES, type Cause, type FindingKind } from './causes.ts';
export { pathAffinity, routeSegments, urlSegments, SITE_WIDE_AFFINITY } from './path-affinity.ts';
