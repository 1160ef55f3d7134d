import { SiteCheck, SiteCrawl, type DbOrTrx } from '../db/index.ts';
import { enqueue } from '../jobs/index.ts';
import { newId, nowMs } from '../platform/index.ts';

interface DeployRef {
  id: string;
  workspace_id: string;
}

/**
 * Makes sure a deploy has a check (or crawl) queued for `runAt`: a record still queued is moved
 * (same record, same id, its job moved through the dedupe key) rather than duplicated; otherwise
 * a new record and job are created. Runs inside the deploy's transaction, so the record exists
 * (state `queued`) from the moment its job does. `newDeploy`: the deploy was created in this
 * transaction, so there is nothing to move.
 */
export async function scheduleRun(trx: DbOrTrx, kind: 'site_check' | 'site_crawl', deploy: DeployRef, runAt: number, newDeploy: boolean): Promise<string> {
  // The columns read and moved here (deploy_id, state, scheduled_at) are the same in both tables.
  const model = (kind === 'site_check' ? SiteCheck : SiteCrawl) as typeof SiteCheck;
  const queued = newDeploy ? undefined : await model.query(trx).where({ deploy_id: deploy.id, state: 'queued' }).orderBy('id', 'desc').select('id').first();
  let id: string;
  if (queued) {
    id = queued.id;
    await model.query(trx).findById(id).patch({ scheduled_at: runAt });
  } else {
    id = newId();
    const base = { id, workspace_id: deploy.workspace_id, deploy_id: deploy.id, state: 'queued' as const, scheduled_at: runAt, created_at: nowMs() };
    if (kind === 'site_check') await SiteCheck.query(trx).insert({ ...base, trigger_kind: 'deploy', pages: [] });
    else await SiteCrawl.query(trx).insert({ ...base, pages_crawled: 0 });
  }
  const dedupe = { runAt, dedupeKey: `${kind}:${id}`, onDuplicate: 'replace' as const, workspaceId: deploy.workspace_id };
  if (kind === 'site_check') await enqueue(trx, 'site_check', { checkId: id }, dedupe);
  else await enqueue(trx, 'site_crawl', { crawlId: id }, dedupe);
  return id;
}
