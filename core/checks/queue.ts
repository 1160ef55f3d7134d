import { SiteCheck, runPlan, type DbOrTrx, type PlanShape, type PlanStep, type PlannedRow } from '../db/index.ts';
import { enqueue, jobRow, jobStep } from '../jobs/index.ts';
import { newId, nowMs } from '../platform/index.ts';

/** The steps that queue a check in a write plan: the check (state `queued`), then its job. */
export function queuedCheckSteps(after: readonly string[]): { check: PlanStep; check_job: PlanStep } {
  return {
    check: { table: 'site_checks', columns: ['id', 'workspace_id', 'deploy_id', 'scheduled_at', 'created_at'], fixed: { state: 'queued', trigger_kind: 'deploy', pages: '[]' }, after },
    check_job: jobStep('site_check', ['check']),
  };
}

export interface QueuedRun {
  id: string;
  workspaceId: string;
  deployId: string;
  runAt: number;
  now: number;
}

/** The rows of `queuedCheckSteps`: a check of a deploy, run at `runAt`. */
export function queuedCheckRows(run: QueuedRun): { check: PlannedRow; check_job: PlannedRow } {
  return {
    check: { id: run.id, workspace_id: run.workspaceId, deploy_id: run.deployId, scheduled_at: run.runAt, created_at: run.now },
    check_job: jobRow('site_check', { checkId: run.id }, { id: newId(), runAt: run.runAt, dedupeKey: `site_check:${run.id}`, workspaceId: run.workspaceId, now: run.now }),
  };
}

const QUEUE_CHECK: PlanShape = { name: 'queue_check', steps: queuedCheckSteps([]) };

/**
 * Makes sure a deploy has a check queued for `runAt`, inside the caller's transaction: a check
 * still queued is moved (same check, same id, its job moved through the dedupe key) rather than
 * duplicated; otherwise a new check and its job are queued. Returns the check's id.
 */
export async function rescheduleCheck(trx: DbOrTrx, deploy: { id: string; workspace_id: string }, runAt: number): Promise<string> {
  const queued = await SiteCheck.query(trx).where({ deploy_id: deploy.id, state: 'queued' }).orderBy('id', 'desc').select('id').first();
  if (!queued) {
    const id = newId();
    await runPlan(trx, QUEUE_CHECK, queuedCheckRows({ id, workspaceId: deploy.workspace_id, deployId: deploy.id, runAt, now: nowMs() }));
    return id;
  }
  await SiteCheck.query(trx).findById(queued.id).patch({ scheduled_at: runAt });
  await enqueue(trx, 'site_check', { checkId: queued.id }, { runAt, dedupeKey: `site_check:${queued.id}`, onDuplicate: 'replace', workspaceId: deploy.workspace_id });
  return queued.id;
}
