import { SiteCheck, runPlan, withTransaction, type DbOrTrx, type PlanShape, type PlanStep, type PlannedRow } from '../db/index.ts';
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

/** The partial unique index of migration 20261128000100: one check queued to run now per workspace. */
const QUEUED_NOW = "(workspace_id) WHERE state = 'queued' AND trigger_kind IN ('manual', 'schedule')";

const QUEUE_CHECK_NOW: PlanShape = {
  name: 'queue_check_now',
  steps: {
    check: { table: 'site_checks', columns: ['id', 'workspace_id', 'trigger_kind', 'scheduled_at', 'created_at'], fixed: { state: 'queued', pages: '[]' }, skipOnConflict: QUEUED_NOW },
    check_job: jobStep('site_check', ['check']),
  },
};

/**
 * Queues a check of the workspace's website that follows no deploy (`manual` or `schedule`), due
 * at `runAt` (default now), unless one such check is queued already: then that one is returned
 * with `created: false`. The partial unique index makes this hold across concurrent callers.
 */
export async function queueCheckNow(
  db: DbOrTrx,
  workspaceId: string,
  trigger: 'manual' | 'schedule',
  runAt?: number,
): Promise<{ check: SiteCheck; created: boolean }> {
  return withTransaction(db, async (trx) => {
    const now = nowMs();
    const at = runAt ?? now;
    const id = newId();
    const inserted = await runPlan(trx, QUEUE_CHECK_NOW, {
      check: { id, workspace_id: workspaceId, trigger_kind: trigger, scheduled_at: at, created_at: now },
      check_job: jobRow('site_check', { checkId: id }, { id: newId(), runAt: at, dedupeKey: `site_check:${id}`, workspaceId, now }),
    });
    const check = inserted.has('check')
      ? await SiteCheck.query(trx).findById(id)
      : await SiteCheck.query(trx).where({ workspace_id: workspaceId, state: 'queued' }).whereIn('trigger_kind', ['manual', 'schedule']).first();
    // The queued one may have started between the insert and the read: it is then the answer.
    return { check: check ?? (await SiteCheck.query(trx).where({ workspace_id: workspaceId }).whereIn('trigger_kind', ['manual', 'schedule']).orderBy('id', 'desc').first())!, created: inserted.has('check') };
  });
}
