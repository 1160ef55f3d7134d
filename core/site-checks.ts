import type { DbOrTrx } from './db/connection.ts';
import { newId } from './ids.ts';
import { nowMs, toIso } from './clock.ts';
import { enqueue } from './jobs/enqueue.ts';

export type RunState = 'queued' | 'running' | 'finished' | 'failed';

export interface SiteCheckRow {
  id: string;
  workspace_id: string;
  deploy_id: string | null;
  state: RunState;
  trigger_kind: 'deploy' | 'manual' | 'schedule';
  scheduled_at: number;
  started_at: number | null;
  finished_at: number | null;
  pages: string;
  findings: string | null;
  error: string | null;
  created_at: number;
}

export interface SiteCrawlRow {
  id: string;
  workspace_id: string;
  deploy_id: string | null;
  state: RunState;
  scheduled_at: number;
  started_at: number | null;
  finished_at: number | null;
  pages_crawled: number;
  pages: string | null;
  findings: string | null;
  error: string | null;
  created_at: number;
}

export function siteCheckToApi(row: SiteCheckRow) {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    deployId: row.deploy_id,
    state: row.state,
    trigger: row.trigger_kind,
    scheduledAt: toIso(row.scheduled_at)!,
    startedAt: toIso(row.started_at),
    finishedAt: toIso(row.finished_at),
    pages: JSON.parse(row.pages) as unknown[],
    error: row.error,
  };
}

export function siteCrawlToApi(row: SiteCrawlRow) {
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

/**
 * Makes sure a deploy has a check (or crawl) queued for `runAt`: a record still queued is moved
 * (same record, same id, its job moved through the dedupe key) rather than duplicated;
 * otherwise a new record and job are created. Runs inside the deploy's transaction.
 */
async function scheduleForDeploy(
  trx: DbOrTrx,
  table: 'site_checks' | 'site_crawls',
  deploy: { id: string; workspace_id: string },
  runAt: number,
  opts: ScheduleOptions,
): Promise<string> {
  const kind = table === 'site_checks' ? 'site_check' : 'site_crawl';
  // A deploy created in this transaction has no check or crawl yet: nothing to move.
  const queued = opts.newDeploy
    ? undefined
    : ((await trx(table).where({ deploy_id: deploy.id, state: 'queued' }).orderBy('id', 'desc').first('id')) as { id: string } | undefined);
  let id: string;
  if (queued) {
    id = queued.id;
    await trx(table).where({ id }).update({ scheduled_at: runAt });
  } else {
    id = newId();
    const base = { id, workspace_id: deploy.workspace_id, deploy_id: deploy.id, state: 'queued', scheduled_at: runAt, created_at: nowMs() };
    await trx(table).insert(table === 'site_checks' ? { ...base, trigger_kind: 'deploy', pages: '[]' } : { ...base, pages_crawled: 0 });
  }
  const dedupeKey = `${kind}:${id}`;
  if (kind === 'site_check') await enqueue(trx, 'site_check', { checkId: id }, { runAt, dedupeKey, onDuplicate: 'replace' });
  else await enqueue(trx, 'site_crawl', { crawlId: id }, { runAt, dedupeKey, onDuplicate: 'replace' });
  return id;
}

export interface ScheduleOptions {
  /** The deploy was created in the caller's transaction, so it has no check or crawl to move yet. */
  newDeploy?: boolean;
}

export function scheduleSiteCheck(trx: DbOrTrx, deploy: { id: string; workspace_id: string }, runAt: number, opts: ScheduleOptions = {}): Promise<string> {
  return scheduleForDeploy(trx, 'site_checks', deploy, runAt, opts);
}

export function scheduleSiteCrawl(trx: DbOrTrx, deploy: { id: string; workspace_id: string }, runAt: number, opts: ScheduleOptions = {}): Promise<string> {
  return scheduleForDeploy(trx, 'site_crawls', deploy, runAt, opts);
}

/** The newest check of each deploy, in any state: one query for a whole page of deploys. */
export async function newestChecksByDeploy(db: DbOrTrx, deployIds: string[]): Promise<Map<string, SiteCheckRow>> {
  const out = new Map<string, SiteCheckRow>();
  if (deployIds.length === 0) return out;
  const rows = (await db('site_checks').whereIn('deploy_id', deployIds).orderBy('id', 'desc')) as SiteCheckRow[];
  for (const r of rows) if (r.deploy_id && !out.has(r.deploy_id)) out.set(r.deploy_id, r);
  return out;
}

/** The newest finished check of the workspace scheduled before `before` (a baseline). */
export async function finishedCheckBefore(db: DbOrTrx, workspaceId: string, before: number): Promise<SiteCheckRow | null> {
  const row = (await db('site_checks')
    .where({ workspace_id: workspaceId, state: 'finished' })
    .andWhere('scheduled_at', '<', before)
    .orderBy([{ column: 'scheduled_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .first()) as SiteCheckRow | undefined;
  return row ?? null;
}

interface StoredCheckResults {
  findings?: unknown[];
  issues?: unknown[];
}

/**
 * The workspace's newest check in any state, its newest finished check, that check's baseline,
 * what got worse between them and what is wrong in the finished check on its own.
 */
export async function latestSiteChecks(db: DbOrTrx, workspaceId: string) {
  const newest = (q: ReturnType<DbOrTrx>) =>
    q.orderBy([
      { column: 'scheduled_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
  const latest = (await newest(db('site_checks').where({ workspace_id: workspaceId })).first()) as SiteCheckRow | undefined;
  const check = (await newest(db('site_checks').where({ workspace_id: workspaceId, state: 'finished' })).first()) as SiteCheckRow | undefined;
  const baseline = check ? await finishedCheckBefore(db, workspaceId, Number(check.scheduled_at)) : null;
  const stored = (check?.findings ? JSON.parse(check.findings) : {}) as StoredCheckResults;
  return {
    latest: latest ? siteCheckToApi(latest) : null,
    check: check ? siteCheckToApi(check) : null,
    baseline: baseline ? siteCheckToApi(baseline) : null,
    // Findings need a baseline to compare with; issues need only the check.
    findings: baseline ? (stored.findings ?? []) : [],
    issues: stored.issues ?? [],
  };
}
