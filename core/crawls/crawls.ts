import { SiteCrawl, type DbOrTrx } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { toIso } from '../platform/index.ts';

/** The newest crawl triggered by a deploy, in any state. */
export async function newestCrawlOfDeploy(db: DbOrTrx, deployId: string): Promise<SiteCrawl | null> {
  return (await SiteCrawl.query(db).where({ deploy_id: deployId }).orderBy('id', 'desc').first()) ?? null;
}

export function siteCrawlToApi(row: SiteCrawl): Schemas['SiteCrawl'] {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    deployId: row.deploy_id,
    state: row.state,
    scheduledAt: toIso(row.scheduled_at)!,
    startedAt: toIso(row.started_at),
    finishedAt: toIso(row.finished_at),
    pagesCrawled: Number(row.pages_crawled),
    error: row.error,
  };
}
