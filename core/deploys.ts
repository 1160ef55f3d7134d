import type { DbOrTrx } from './db/connection.ts';
import { isPostgres } from './db/connection.ts';
import { newId } from './ids.ts';
import { nowMs, toIso } from './clock.ts';
import { NotFound, ValidationFailed } from './errors.ts';
import { recordEvent } from './events.ts';
import {
  finishedCheckBefore,
  newestChecksByDeploy,
  scheduleSiteCheck,
  scheduleSiteCrawl,
  siteCheckToApi,
  siteCrawlToApi,
  type SiteCheckRow,
  type SiteCrawlRow,
} from './site-checks.ts';

export interface Signal {
  kind: string;
  change: 'added' | 'removed';
  line?: number;
}

export interface Change {
  path: string;
  category: string;
  signals?: Signal[];
}

export interface DeployInput {
  commitSha: string;
  environment?: string;
  ref?: string;
  message?: string;
  deployedAt?: string;
  changes?: Change[];
}

export interface DeployRow {
  id: string;
  workspace_id: string;
  commit_sha: string;
  environment: string;
  ref: string | null;
  message: string | null;
  source: string;
  deployed_at: number;
  changes: string;
  created_at: number;
  updated_at: number;
}

/** Only this environment, compared exactly, triggers checks (CONTRACT section 3). */
export const PRODUCTION = 'production';

export function deployToApi(row: DeployRow) {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    commitSha: row.commit_sha,
    environment: row.environment,
    ref: row.ref,
    message: row.message,
    source: row.source,
    deployedAt: toIso(row.deployed_at)!,
    changes: JSON.parse(row.changes) as Change[],
    createdAt: toIso(row.created_at)!,
    updatedAt: toIso(row.updated_at)!,
  };
}

function normalizeChanges(changes: Change[]): Change[] {
  return changes.map((c) => ({ path: c.path, category: c.category, signals: c.signals ?? [] }));
}

function parseDeployedAt(value: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) {
    throw new ValidationFailed('deployedAt is not a valid date-time.', [{ in: 'body', path: '/deployedAt', message: 'must be an ISO 8601 date-time with an offset' }]);
  }
  return ms;
}

export interface RecordResult {
  deploy: DeployRow;
  created: boolean;
  /** Check and crawl ids (re)scheduled by this call, if any. */
  scheduled: { checkId: string; crawlId: string } | null;
}

export interface ScheduleDelays {
  siteCheckDelaySeconds: number;
  crawlDelaySeconds: number;
}

/**
 * Records a deploy: creates it, or updates the one with the same workspace, environment and
 * commit (sha compared lower case), in one transaction with its scheduled check and crawl and
 * its `deploy.recorded` event. The insert is `ON CONFLICT DO NOTHING` on the unique upsert key,
 * so concurrent identical requests leave exactly one row: the losers see the winner's row
 * (PostgreSQL makes them wait for its commit; SQLite has one writer at a time).
 */
export async function recordDeploy(db: DbOrTrx, workspaceId: string, input: DeployInput, delays: ScheduleDelays): Promise<RecordResult> {
  const now = nowMs();
  const sha = input.commitSha.toLowerCase();
  const environment = input.environment ?? PRODUCTION;
  const deployedAt = input.deployedAt !== undefined ? parseDeployedAt(input.deployedAt) : undefined;
  const changes = input.changes !== undefined ? normalizeChanges(input.changes) : undefined;

  return db.transaction(async (trx) => {
    const fresh: DeployRow = {
      id: newId(),
      workspace_id: workspaceId,
      commit_sha: sha,
      environment,
      ref: input.ref ?? null,
      message: input.message ?? null,
      source: changes && changes.length > 0 ? 'cli' : 'webhook',
      deployed_at: deployedAt ?? now,
      changes: JSON.stringify(changes ?? []),
      created_at: now,
      updated_at: now,
    };
    const inserted = (await trx('deploys')
      .insert(fresh)
      .onConflict(['workspace_id', 'environment', 'commit_sha'])
      .ignore()
      .returning(['id'])) as Array<{ id: string }>;

    let deploy: DeployRow;
    let created: boolean;
    let moved = false;
    if (inserted.length > 0) {
      deploy = fresh;
      created = true;
    } else {
      const q = trx('deploys').where({ workspace_id: workspaceId, environment, commit_sha: sha }).first();
      if (isPostgres(trx)) q.forUpdate();
      const existing = (await q) as DeployRow;
      const patch: Partial<DeployRow> = { updated_at: Math.max(now, Number(existing.created_at)) };
      if (input.ref !== undefined) patch.ref = input.ref;
      if (input.message !== undefined) patch.message = input.message;
      if (changes !== undefined) {
        patch.changes = JSON.stringify(changes);
        patch.source = changes.length > 0 ? 'cli' : 'webhook';
      }
      if (deployedAt !== undefined && deployedAt !== Number(existing.deployed_at)) {
        patch.deployed_at = deployedAt;
        moved = true;
      }
      await trx('deploys').where({ id: existing.id }).update(patch);
      deploy = { ...existing, ...patch, deployed_at: Number(patch.deployed_at ?? existing.deployed_at) };
      created = false;
    }

    let scheduled: RecordResult['scheduled'] = null;
    if (environment === PRODUCTION && (created || moved)) {
      const from = Math.max(now, Number(deploy.deployed_at));
      scheduled = {
        checkId: await scheduleSiteCheck(trx, deploy, from + delays.siteCheckDelaySeconds * 1000, { newDeploy: created }),
        crawlId: await scheduleSiteCrawl(trx, deploy, from + delays.crawlDelaySeconds * 1000, { newDeploy: created }),
      };
    }
    if (created) await recordEvent(trx, workspaceId, 'deploy.recorded', { deploy: deployToApi(deploy) });
    return { deploy, created, scheduled };
  });
}

export interface ListDeploysQuery {
  from?: string;
  to?: string;
  limit: number;
}

const DAY_MS = 86_400_000;

/** A workspace's deploys, newest first (deployedAt, then id), each with its newest check. */
export async function listDeploys(db: DbOrTrx, workspaceId: string, q: ListDeploysQuery) {
  const fromMs = q.from !== undefined ? Date.parse(`${q.from}T00:00:00.000Z`) : undefined;
  const toMs = q.to !== undefined ? Date.parse(`${q.to}T00:00:00.000Z`) + DAY_MS : undefined;
  if (fromMs !== undefined && toMs !== undefined && toMs <= fromMs) {
    throw new ValidationFailed('to must not be before from.', [{ in: 'query', path: '/to', message: 'must not be before from' }]);
  }
  const query = db('deploys').where({ workspace_id: workspaceId });
  if (fromMs !== undefined) query.andWhere('deployed_at', '>=', fromMs);
  if (toMs !== undefined) query.andWhere('deployed_at', '<', toMs);
  const rows = (await query
    .orderBy([
      { column: 'deployed_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(q.limit)) as DeployRow[];
  const checks = await newestChecksByDeploy(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => {
    const check = checks.get(r.id);
    return { ...deployToApi(r), siteCheck: check ? siteCheckToApi(check) : null };
  });
}

export async function getDeploy(db: DbOrTrx, id: string): Promise<DeployRow | null> {
  return ((await db('deploys').where({ id }).first()) as DeployRow | undefined) ?? null;
}

interface StoredFindings {
  findings?: unknown[];
  crawlFindings?: unknown[];
}

/** The deploy with its newest check and crawl, the check's baseline, findings and impact. */
export async function deployDetail(db: DbOrTrx, deploy: DeployRow) {
  const check = (await db('site_checks').where({ deploy_id: deploy.id }).orderBy('id', 'desc').first()) as SiteCheckRow | undefined;
  const crawl = (await db('site_crawls').where({ deploy_id: deploy.id }).orderBy('id', 'desc').first()) as SiteCrawlRow | undefined;
  const baseline = check ? await finishedCheckBefore(db, deploy.workspace_id, Number(check.scheduled_at)) : null;
  // Findings are stored on the check or crawl when it finishes; until then they are [].
  const checkFindings = check?.state === 'finished' && check.findings ? ((JSON.parse(check.findings) as StoredFindings).findings ?? []) : [];
  const crawlFindings = crawl?.state === 'finished' && crawl.findings ? ((JSON.parse(crawl.findings) as StoredFindings).crawlFindings ?? []) : [];
  return {
    ...deployToApi(deploy),
    siteCheck: check ? siteCheckToApi(check) : null,
    baseline: baseline ? siteCheckToApi(baseline) : null,
    findings: checkFindings,
    siteCrawl: crawl ? siteCrawlToApi(crawl) : null,
    crawlFindings,
    impact: null,
  };
}

export function requireFound<T>(value: T | null): T {
  if (value === null) throw new NotFound();
  return value;
}
