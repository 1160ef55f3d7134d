import type { Schemas } from '../contract/index.ts';

export type CrawlFindingKind = Schemas['CrawlFindingKind'];

/**
 * Severities of crawl findings, as spec/site-checks.tsp documents them. What each kind means and
 * how a crawl detects it is in core/crawls/findings.ts.
 */
export const CRAWL_SEVERITY: Record<CrawlFindingKind, Schemas['Severity']> = {
  redirect_loop: 'critical',
  broken_link: 'high',
  page_removed: 'high',
  noindex_page: 'high',
  blocked_by_robots: 'high',
  redirect_chain: 'medium',
  sitemap_unreachable: 'medium',
  duplicate_title: 'low',
  orphan_page: 'low',
};
