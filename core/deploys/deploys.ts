import { Deploy, type DbOrTrx } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { NotFound, ValidationFailed, toIso } from '../platform/index.ts';
import { newestChecksByDeploy, siteCheckToApi } from '../checks/index.ts';

/** Only this environment, compared exactly, triggers checks (docs/api.md#scheduling-checks-and-crawls). */
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
    ciProvider: row.ci_provider ?? null,
    ciRunUrl: row.ci_run_url ?? null,
  };
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
