import type { Schemas } from '../contract/index.ts';
import { CRAWL_KINDS, bySeverity, type CrawledSite } from '../findings/index.ts';

// What a crawl finds wrong with the site: every kind of core/findings' crawl-kind table over the
// crawled pages; then only the findings that were not in the previous crawl are the deploy's
// `crawlFindings`.

export { REDIRECT_CHAIN_HOPS, type CrawledPage } from '../findings/index.ts';

export type CrawlFinding = Schemas['CrawlFinding'];

export function crawlFindings(site: CrawledSite): CrawlFinding[] {
  return CRAWL_KINDS.flatMap((rule) =>
    rule.detect(site).map((subject) => ({ kind: rule.kind, severity: rule.severity, url: subject.url, details: rule.explain(subject) })),
  ).sort(bySeverity);
}

/** Findings whose kind and URL the previous crawl did not have. */
export function newSince(current: readonly CrawlFinding[], previous: readonly CrawlFinding[]): CrawlFinding[] {
  const seen = new Set(previous.map((f) => `${f.kind} ${f.url}`));
  return current.filter((f) => !seen.has(`${f.kind} ${f.url}`));
}
