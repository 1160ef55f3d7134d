import { SiteCheck, type DbOrTrx } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { clicksByUrl } from '../search-data/index.ts';
import { siteCheckToApi } from './to-api.ts';
import { NotFound, decodeCursor, encodeCursor } from '../platform/index.ts';

/** The newest check of each deploy, in any state: one query for a whole page of deploys. */
export async function newestChecksByDeploy(db: DbOrTrx, deployIds: string[]): Promise<Map<string, SiteCheck>> {
  const out = new Map<string, SiteCheck>();
  if (deployIds.length === 0) return out;
  const rows = await SiteCheck.query(db).whereIn('deploy_id', deployIds).orderBy('id', 'desc');
  for (const r of rows) if (r.deploy_id && !out.has(r.deploy_id)) out.set(r.deploy_id, r);
  return out;
}

/** The newest check triggered by a deploy, in any state. */
export async function newestCheckOfDeploy(db: DbOrTrx, deployId: string): Promise<SiteCheck | null> {
  return (await SiteCheck.query(db).where({ deploy_id: deployId }).orderBy('id', 'desc').first()) ?? null;
}

/** The newest finished check of the workspace scheduled before `before` (a baseline). */
export async function finishedCheckBefore(db: DbOrTrx, workspaceId: string, before: number): Promise<SiteCheck | null> {
  const row = await SiteCheck.query(db)
    .where({ workspace_id: workspaceId, state: 'finished' })
    .andWhere('scheduled_at', '<', before)
    .orderBy([
      { column: 'scheduled_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first();
  return row ?? null;
}

/**
 * The workspace's newest check in any state, its newest finished check, that check's baseline,
 * what got worse between them and what is wrong in the finished check on its own.
 */
export async function latestSiteChecks(db: DbOrTrx, workspaceId: string): Promise<Schemas['SiteCheckLatest']> {
  const newest = () =>
    SiteCheck.query(db)
      .where({ workspace_id: workspaceId })
      .orderBy([
        { column: 'scheduled_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .first();
  const latest = await newest();
  const check = await newest().where({ state: 'finished' });
  const baseline = check ? await finishedCheckBefore(db, workspaceId, Number(check.scheduled_at)) : null;
  const stored = check?.findings ?? {};
  // Findings need a baseline to compare with; issues need only the check.
  // The deploy detail's findings carry causes among that deploy's changes; here they are bare.
  const findings = baseline ? (stored.findings ?? []).map(({ causes: _causes, ...f }) => f) : [];
  // Clicks are read now, from the search data as it is (one query for every finding).
  const clicks = await clicksByUrl(db, workspaceId, findings.map((f) => f.url));
  return {
    latest: latest ? siteCheckToApi(latest) : null,
    check: check ? siteCheckToApi(check) : null,
    baseline: baseline ? siteCheckToApi(baseline) : null,
    findings: findings.map((f) => ({ ...f, clicks: clicks.get(f.url) ?? 0 })),
    issues: stored.issues ?? [],
  };
}

export interface RunListQuery {
  trigger?: Schemas['CheckTrigger'];
  state?: Schemas['RunState'];
  limit: number;
  cursor?: string;
}

/** A workspace's checks, newest first by id (ids are time-ordered), a page at a time. */
export async function listSiteChecks(db: DbOrTrx, workspaceId: string, q: RunListQuery): Promise<Schemas['SiteCheckList']> {
  const query = SiteCheck.query(db).where({ workspace_id: workspaceId });
  if (q.trigger) query.where({ trigger_kind: q.trigger });
  if (q.state) query.where({ state: q.state });
  if (q.cursor) query.where('id', '<', decodeCursor(q.cursor, 'GET /v1/site-checks').id);
  const rows = await query.orderBy('id', 'desc').limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    data: page.map(siteCheckToApi),
    meta: { next_cursor: rows.length > q.limit ? encodeCursor({ at: Number(last.created_at), id: last.id }) : null },
  };
}

/** A check by id, or 404. */
export async function getSiteCheck(db: DbOrTrx, id: string): Promise<SiteCheck> {
  const row = await SiteCheck.query(db).findById(id);
  if (!row) throw new NotFound();
  return row;
}

/** A check with its baseline, findings (clicks read now) and issues; findings and issues once it finished. */
export async function siteCheckDetail(db: DbOrTrx, check: SiteCheck): Promise<Schemas['SiteCheckDetail']> {
  const finished = check.state === 'finished';
  const baseline = await finishedCheckBefore(db, check.workspace_id, Number(check.scheduled_at));
  const stored = finished ? (check.findings?.findings ?? []) : [];
  const clicks = await clicksByUrl(db, check.workspace_id, stored.map((f) => f.url));
  return {
    ...siteCheckToApi(check),
    baseline: baseline ? siteCheckToApi(baseline) : null,
    findings: stored.map((f) => ({ ...f, clicks: clicks.get(f.url) ?? 0, explanation: f.explanation ?? null })),
    issues: finished ? (check.findings?.issues ?? []) : [],
  };
}
