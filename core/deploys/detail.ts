import type { Deploy, DbOrTrx } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { finishedCheckBefore, newestCheckOfDeploy, siteCheckToApi } from '../checks/index.ts';
import { newestCrawlOfDeploy, siteCrawlToApi } from '../crawls/index.ts';
import { deployToApi } from './deploys.ts';

/** The deploy with its newest check and crawl, the check's baseline, findings and impact. */
export async function deployDetail(db: DbOrTrx, deploy: Deploy): Promise<Schemas['DeployDetail']> {
  const [check, crawl] = await Promise.all([newestCheckOfDeploy(db, deploy.id), newestCrawlOfDeploy(db, deploy.id)]);
  const baseline = check ? await finishedCheckBefore(db, deploy.workspace_id, Number(check.scheduled_at)) : null;
  // Findings are stored on the check or crawl when it finishes; until then they are [].
  const findings = check?.state === 'finished' ? ((check.findings?.findings ?? []) as Schemas['DeployFinding'][]) : [];
  const crawlFindings = crawl?.state === 'finished' ? ((crawl.findings?.crawlFindings ?? []) as Schemas['DeployCrawlFinding'][]) : [];
  return {
    ...deployToApi(deploy),
    siteCheck: check ? siteCheckToApi(check) : null,
    baseline: baseline ? siteCheckToApi(baseline) : null,
    findings,
    siteCrawl: crawl ? siteCrawlToApi(crawl) : null,
    crawlFindings,
    impact: null,
  };
}
