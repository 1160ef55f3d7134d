import type { Deploy, DbOrTrx } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { finishedCheckBefore, newestCheckOfDeploy, siteCheckToApi } from '../checks/index.ts';
import { newestCrawlOfDeploy, siteCrawlToApi } from '../crawls/index.ts';
import { clicksByUrl, dayOf, deployImpact, searchContext } from '../search-data/index.ts';
import { deployToApi } from './deploys.ts';

/** Crawl findings whose URL is not a page (a sitemap) name no page for impact. */
const NOT_A_PAGE = new Set(['sitemap_unreachable']);

/**
 * The deploy with its newest check and crawl, the check's baseline, findings and impact.
 * Search data is read when the detail is: the findings' clicks (one query for all of them) and
 * the impact (the per-day totals around the deploy with the span of days, then one query for the
 * affected pages), so both follow every import. Two rounds of statements run in parallel.
 */
export async function deployDetail(db: DbOrTrx, deploy: Deploy): Promise<Schemas['DeployDetail']> {
  const deployedAt = Number(deploy.deployed_at);
  const [check, crawl, context] = await Promise.all([
    newestCheckOfDeploy(db, deploy.id),
    newestCrawlOfDeploy(db, deploy.id),
    searchContext(db, deploy.workspace_id, dayOf(deployedAt)),
  ]);
  // Findings are stored on the check or crawl when it finishes; until then they are [].
  const stored = check?.state === 'finished' ? (check.findings?.findings ?? []) : [];
  const crawlFindings = crawl?.state === 'finished' ? (crawl.findings?.crawlFindings ?? []).map((f) => ({ ...f, explanation: f.explanation ?? null })) : [];
  const named = [...stored.map((f) => f.url), ...crawlFindings.filter((f) => !NOT_A_PAGE.has(f.kind)).map((f) => f.url)];
  const [baseline, clicks, impact] = await Promise.all([
    check ? finishedCheckBefore(db, deploy.workspace_id, Number(check.scheduled_at)) : null,
    context.span.newest ? clicksByUrl(db, deploy.workspace_id, stored.map((f) => f.url), context.span) : null,
    deployImpact(db, { workspaceId: deploy.workspace_id, deployedAt, urls: named, context }),
  ]);
  return {
    ...deployToApi(deploy),
    siteCheck: check ? siteCheckToApi(check) : null,
    baseline: baseline ? siteCheckToApi(baseline) : null,
    findings: stored.map((f) => ({ ...f, clicks: clicks?.get(f.url) ?? 0, explanation: f.explanation ?? null })),
    issues: check?.state === 'finished' ? (check.findings?.issues ?? []) : [],
    siteCrawl: crawl ? siteCrawlToApi(crawl) : null,
    crawlFindings,
    impact,
  };
}
