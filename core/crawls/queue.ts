import { SiteCrawl, runPlan, type DbOrTrx, type PlanShape, type PlanStep, type PlannedRow } from '../db/index.ts';
import { enqueue, jobRow, jobStep } from '../jobs/index.ts';
import { newId, nowMs } from '../platform/index.ts';

/** The steps that queue a crawl in a write plan: the crawl (state `queued`), then its job. */
export function queuedCrawlSteps(after: readonly string[]): { crawl: PlanStep; crawl_job: PlanStep } {
  return {
    crawl: { table: 'site_crawls', columns: ['id', 'workspace_id', 'deploy_id', 'scheduled_at', 'created_at'], fixed: { state: 'queued', pages_crawled: 0 }, after },
    crawl_job: jobStep('site_crawl', ['crawl']),
  };
}

/** The rows of `queuedCrawlSteps`: a crawl of a deploy, run at `runAt`. */
export function queuedCrawlRows(run: { id: string; workspaceId: string; deployId: string; runAt: number; now: number }): { crawl: PlannedRow; crawl_job: PlannedRow } {
  return {
    crawl: { id: run.id, workspace_id: run.workspaceId, deploy_id: run.deployId, scheduled_at: run.runAt, created_at: run.now },
    crawl_job: jobRow('site_crawl', { crawlId: run.id }, { id: newId(), runAt: run.runAt, dedupeKey: `site_crawl:${run.id}`, workspaceId: run.workspaceId, now: run.now }),
  };
}

const QUEUE_CRAWL: PlanShape = { name: 'queue_crawl', steps: queuedCrawlSteps([]) };

/**
 * Makes sure a deploy has a crawl queued for `runAt`, inside the caller's transaction: a crawl
 * still queued is moved (same crawl, same id, its job moved through the dedupe key) rather than
 * duplicated; otherwise a new crawl and its job are queued. Returns the crawl's id.
 */
export async function rescheduleCrawl(trx: DbOrTrx, deploy: { id: string; workspace_id: string }, runAt: number): Promise<string> {
  const queued = await SiteCrawl.query(trx).where({ deploy_id: deploy.id, state: 'queued' }).orderBy('id', 'desc').select('id').first();
  if (!queued) {
    const id = newId();
    await runPlan(trx, QUEUE_CRAWL, queuedCrawlRows({ id, workspaceId: deploy.workspace_id, deployId: deploy.id, runAt, now: nowMs() }));
    return id;
  }
  await SiteCrawl.query(trx).findById(queued.id).patch({ scheduled_at: runAt });
  await enqueue(trx, 'site_crawl', { crawlId: queued.id }, { runAt, dedupeKey: `site_crawl:${queued.id}`, onDuplicate: 'replace', workspaceId: deploy.workspace_id });
  return queued.id;
}
