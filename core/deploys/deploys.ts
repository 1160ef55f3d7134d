import { Deploy, afterKeyset, type DbOrTrx } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { NotFound, ValidationFailed, decodeCursor, encodeCursor, toIso } from '../platform/index.ts';
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
    // SQLite hands booleans back as 0 and 1.
    changesTruncated: Boolean(row.changes_truncated),
    changesNote: row.changes_note ?? null,
  };
}

export interface ListDeploysQuery {
  /** A UTC date (`YYYY-MM-DD`, from its first millisecond) or a date-time with an offset. */
  from?: string;
  /** A UTC date (through its last millisecond) or a date-time with an offset, inclusive. */
  to?: string;
  environment?: string;
  source?: Schemas['DeploySource'];
  limit: number;
  cursor?: string;
}

const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A bound of the list's window in epoch ms: `to` inclusive, a date as its whole day. */
function bound(value: string, end: boolean): number {
  if (DATE_ONLY.test(value)) return Date.parse(`${value}T00:00:00.000Z`) + (end ? DAY_MS - 1 : 0);
  return Date.parse(value);
}

/**
 * A workspace's deploys, newest first (deployedAt, then id), each with its newest check, a page
 * at a time (core/platform/cursor.ts).
 */
export async function listDeploys(db: DbOrTrx, workspaceId: string, q: ListDeploysQuery): Promise<Schemas['DeployList']> {
  const fromMs = q.from !== undefined ? bound(q.from, false) : undefined;
  const toMs = q.to !== undefined ? bound(q.to, true) : undefined;
  if (fromMs !== undefined && toMs !== undefined && toMs < fromMs) {
    throw new ValidationFailed('to must not be before from.', [{ in: 'query', path: '/to', message: 'must not be before from' }]);
  }
  const query = Deploy.query(db).where({ workspace_id: workspaceId });
  if (fromMs !== undefined) query.andWhere('deployed_at', '>=', fromMs);
  if (toMs !== undefined) query.andWhere('deployed_at', '<=', toMs);
  if (q.environment !== undefined) query.andWhere('environment', q.environment);
  if (q.source !== undefined) query.andWhere('source', q.source);
  if (q.cursor !== undefined) afterKeyset(query, 'deployed_at', decodeCursor(q.cursor, 'this list'));
  const rows = await query
    .orderBy([
      { column: 'deployed_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const checks = await newestChecksByDeploy(
    db,
    page.map((r) => r.id),
  );
  const last = page[page.length - 1];
  return {
    data: page.map((r) => {
      const check = checks.get(r.id);
      return {
        ...deployToApi(r),
        siteCheck: check ? siteCheckToApi(check) : null,
        newFindingCount: check?.state === 'finished' ? (check.findings?.findings?.length ?? 0) : null,
      };
    }),
    meta: { next_cursor: rows.length > q.limit ? encodeCursor({ at: Number(last.deployed_at), id: last.id }) : null },
  };
}

export async function getDeploy(db: DbOrTrx, id: string): Promise<Deploy> {
  const row = await Deploy.query(db).findById(id);
  if (!row) throw new NotFound();
  return row;
}
