import { SiteCrawl, runPlan, withTransaction, type DbOrTrx, type PlanShape, type PlanStep, type PlannedRow } from '../db/index.ts';
import { enqueue, jobRow, jobStep } from '../jobs/index.ts';
import { newId, nowMs } from '../platform/index.ts';

/** The steps that queue a crawl in a write plan: the crawl (state `queued`), then its job. */
export function queuedCrawlSteps(after: readonly string[]): { crawl: PlanStep; crawl_job: PlanStep } {
  return {
    crawl: { table: 'site_crawls', columns: ['id', 'workspace_id', 'deploy_id', 'scheduled_at', 'created_at'], fixed: { state: 'queued', trigger_kind: 'deploy', pages_crawled: 0 }, after },
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

/** The partial unique index of migration 20261128000100: one crawl queued to run now per workspace. */
const QUEUED_NOW = "(workspace_id) WHERE state = 'queued' AND trigger_kind IN ('manual', 'schedule')";

const QUEUE_CRAWL_NOW: PlanShape = {
  name: 'queue_crawl_now',
  steps: {
    crawl: { table: 'site_crawls', columns: ['id', 'workspace_id', 'trigger_kind', 'scheduled_at', 'created_at'], fixed: { state: 'queued', pages_crawled: 0 }, skipOnConflict: QUEUED_NOW },
    crawl_job: jobStep('site_crawl', ['crawl']),
  },
};

/**
 * Queues a crawl of the workspace's website that follows no deploy (`manual` or `schedule`), due
 * at `runAt` (default now), unless one such crawl is queued already: then that one is returned
 * with `created: false`. The partial unique index makes this hold across concurrent callers.
 */
export async function queueCrawlNow(
  db: DbOrTrx,
  workspaceId: string,
  trigger: 'manual' | 'schedule',
  runAt?: number,
): Promise<{ crawl: SiteCrawl; created: boolean }> {
  return withTransaction(db, async (trx) => {
    const now = nowMs();
    const at = runAt ?? now;
    const id = newId();
    const inserted = await runPlan(trx, QUEUE_CRAWL_NOW, {
      crawl: { id, workspace_id: workspaceId, trigger_kind: trigger, scheduled_at: at, created_at: now },
      crawl_job: jobRow('site_crawl', { crawlId: id }, { id: newId(), runAt: at, dedupeKey: `site_crawl:${id}`, workspaceId, now }),
    });
    const crawl = inserted.has('crawl')
      ? await SiteCrawl.query(trx).findById(id)
      : await SiteCrawl.query(trx).where({ workspace_id: workspaceId, state: 'queued' }).whereIn('trigger_kind', ['manual', 'schedule']).first();
    // The queued one may have started between the insert and the read: it is then the answer.
    return { crawl: crawl ?? (await SiteCrawl.query(trx).where({ workspace_id: workspaceId }).whereIn('trigger_kind', ['manual', 'schedule']).orderBy('id', 'desc').first())!, created: inserted.has('crawl') };
  });
}
