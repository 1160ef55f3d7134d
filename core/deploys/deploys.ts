import { Deploy, isPostgres, withTransaction, type DbOrTrx, type StoredChange } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { NotFound, ValidationFailed, newId, nowMs, redactSecrets, toIso } from '../platform/index.ts';
import { recordEvent } from '../events/index.ts';
import { newestChecksByDeploy, siteCheckToApi } from '../checks/index.ts';
import { scheduleRun } from './schedule.ts';

export type DeployInput = Omit<Schemas['DeployCreate'], 'workspaceId'>;

/** Only this environment, compared exactly, triggers checks (CONTRACT section 3). */
export const PRODUCTION = 'production';

export function deployToApi(row: Deploy): Schemas['Deploy'] {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    commitSha: row.commit_sha,
    environment: row.environment,
    ref: row.ref,
    message: row.message,
    source: row.source,
    deployedAt: toIso(row.deployed_at)!,
    changes: row.changes,
    createdAt: toIso(row.created_at)!,
    updatedAt: toIso(row.updated_at)!,
  };
}

function normalizeChanges(changes: Schemas['Change'][]): StoredChange[] {
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
  deploy: Deploy;
  created: boolean;
  /** Check and crawl ids (re)scheduled by this call, if any. */
  scheduled: { checkId: string; crawlId: string } | null;
}

export interface ScheduleDelays {
  siteCheckDelaySeconds: number;
  crawlDelaySeconds: number;
}

/**
 * Records a deploy (a key-shaped or `whsec_` string pasted into its message or ref is stored
 * redacted: secrets never sit in the database's free text). Creates it, or updates the one with the same workspace, environment and
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

  return withTransaction(db, async (trx) => {
    const fresh = {
      id: newId(),
      workspace_id: workspaceId,
      commit_sha: sha,
      environment,
      ref: input.ref === undefined ? null : redactSecrets(input.ref),
      message: input.message === undefined ? null : redactSecrets(input.message),
      source: changes && changes.length > 0 ? ('cli' as const) : ('webhook' as const),
      deployed_at: deployedAt ?? now,
      changes: changes ?? [],
      created_at: now,
      updated_at: now,
    };
    // Plain Knex for this one statement: Objection cannot say whether an `ON CONFLICT DO
    // NOTHING` insert inserted (it returns the model either way), and the answer decides
    // everything after it.
    const inserted = (await trx('deploys')
      .insert({ ...fresh, changes: JSON.stringify(fresh.changes) })
      .onConflict(['workspace_id', 'environment', 'commit_sha'])
      .ignore()
      .returning(['id'])) as Array<{ id: string }>;

    let deploy: Deploy;
    let created = false;
    let moved = false;
    if (inserted.length > 0) {
      deploy = Deploy.fromJson(fresh, { skipValidation: true });
      created = true;
    } else {
      const q = Deploy.query(trx).where({ workspace_id: workspaceId, environment, commit_sha: sha }).first();
      if (isPostgres(trx)) q.forUpdate();
      const existing = (await q)!;
      const patch: Partial<Deploy> = { updated_at: Math.max(now, Number(existing.created_at)) };
      if (input.ref !== undefined) patch.ref = redactSecrets(input.ref);
      if (input.message !== undefined) patch.message = redactSecrets(input.message);
      if (changes !== undefined) {
        patch.changes = changes;
        patch.source = changes.length > 0 ? 'cli' : 'webhook';
      }
      if (deployedAt !== undefined && deployedAt !== Number(existing.deployed_at)) {
        patch.deployed_at = deployedAt;
        moved = true;
      }
      await Deploy.query(trx).findById(existing.id).patch(patch);
      deploy = Deploy.fromJson({ ...existing.toJSON(), ...patch }, { skipValidation: true });
    }

    let scheduled: RecordResult['scheduled'] = null;
    if (environment === PRODUCTION && (created || moved)) {
      const from = Math.max(now, Number(deploy.deployed_at));
      scheduled = {
        checkId: await scheduleRun(trx, 'site_check', deploy, from + delays.siteCheckDelaySeconds * 1000, created),
        crawlId: await scheduleRun(trx, 'site_crawl', deploy, from + delays.crawlDelaySeconds * 1000, created),
      };
    }
    if (created) await recordEvent(trx, workspaceId, 'deploy.recorded', { deploy: deployToApi(deploy) }, { idempotencyKey: `deploy.recorded:${deploy.id}` });
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
export async function listDeploys(db: DbOrTrx, workspaceId: string, q: ListDeploysQuery): Promise<Schemas['DeployListItem'][]> {
  const fromMs = q.from !== undefined ? Date.parse(`${q.from}T00:00:00.000Z`) : undefined;
  const toMs = q.to !== undefined ? Date.parse(`${q.to}T00:00:00.000Z`) + DAY_MS : undefined;
  if (fromMs !== undefined && toMs !== undefined && toMs <= fromMs) {
    throw new ValidationFailed('to must not be before from.', [{ in: 'query', path: '/to', message: 'must not be before from' }]);
  }
  const query = Deploy.query(db).where({ workspace_id: workspaceId });
  if (fromMs !== undefined) query.andWhere('deployed_at', '>=', fromMs);
  if (toMs !== undefined) query.andWhere('deployed_at', '<', toMs);
  const rows = await query
    .orderBy([
      { column: 'deployed_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(q.limit);
  const checks = await newestChecksByDeploy(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => {
    const check = checks.get(r.id);
    return { ...deployToApi(r), siteCheck: check ? siteCheckToApi(check) : null };
  });
}

export async function getDeploy(db: DbOrTrx, id: string): Promise<Deploy> {
  const row = await Deploy.query(db).findById(id);
  if (!row) throw new NotFound();
  return row;
}
