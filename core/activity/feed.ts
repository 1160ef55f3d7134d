import type { QueryBuilder } from 'objection';
import { Activity, afterKeyset, type DbOrTrx } from '../db/index.ts';
import { ValidationFailed, decodeCursor, encodeCursor, toIso } from '../platform/index.ts';
import type { Schemas } from '../contract/index.ts';
import type { ActivityKind } from './writers.ts';

// Reading the activity feed (GET /v1/activity). Writers live in activity.ts.
//
// Order: newest first by (created_at, id). The cursor is that pair of the last row of the
// page, opaque to callers (base64url). Paging is keyset, not offset: rows inserted between two
// page reads are newer than the cursor (or, for a row written with an earlier time, land on a
// later page), so no row is skipped or shown twice.
//
// What a caller sees (docs/api.md#who-sees-which-rows) is the union of three disjoint sets, each read
// newest first from its own index, up to limit+1 rows, and merged here:
// - rows of the given workspaces (activity's (workspace_id, created_at, id) index, read per
//   workspace up to PER_WORKSPACE_READS of them);
// - with `accountId`: the account's own rows (workspace_id null; activity_account_level_idx);
// - with `accountId`: security rows of the account's workspaces that no longer exist
//   (activity_account_security_idx).

/** Up to this many workspaces are read one by one (index-ordered); beyond, with one IN list. */
const PER_WORKSPACE_READS = 32;

export interface ActivityScope {
  /** Workspaces whose rows are visible (already checked by the caller). */
  workspaceIds: string[];
  /** Set for an unbound key without workspace_id: its account-level and deleted-workspace rows. */
  accountId: string | null;
}

export interface ActivityQuery {
  scope: ActivityScope;
  kind?: ActivityKind;
  /** Inclusive bounds, epoch ms. */
  from?: number;
  to?: number;
  limit: number;
  cursor?: string;
}

function newestFirst(a: Activity, b: Activity): number {
  const t = Number(b.created_at) - Number(a.created_at);
  if (t !== 0) return t;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** An activity row as the API returns it. */
export function activityToApi(row: Activity): Schemas['ActivityRow'] {
  return {
    id: row.id,
    workspace_id: row.workspace_id ?? null,
    kind: row.kind,
    action: row.action,
    actor: { type: row.actor_type, id: row.actor_id ?? null, label: row.actor_label ?? null },
    target: row.target_type ? { type: row.target_type, id: row.target_id ?? null } : null,
    details: row.details && typeof row.details === 'object' && !Array.isArray(row.details) ? row.details : {},
    created_at: toIso(row.created_at)!,
  };
}

export async function listActivity(db: DbOrTrx, q: ActivityQuery): Promise<{ data: Schemas['ActivityRow'][]; nextCursor: string | null }> {
  const cursor = q.cursor !== undefined ? decodeCursor(q.cursor, 'this feed') : null;
  if (q.from !== undefined && q.to !== undefined && q.from > q.to) {
    throw new ValidationFailed('from must not be after to.', [{ in: 'query', path: '/from', message: 'must not be after to' }]);
  }

  const common = (b: QueryBuilder<Activity>): QueryBuilder<Activity> => {
    if (q.kind) b.where('kind', q.kind);
    if (q.from !== undefined) b.where('created_at', '>=', q.from);
    if (q.to !== undefined) b.where('created_at', '<=', q.to);
    if (cursor) afterKeyset(b, 'created_at', cursor);
    return b
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(q.limit + 1);
  };

  const reads: Array<QueryBuilder<Activity>> = [];
  const { workspaceIds, accountId } = q.scope;
  if (workspaceIds.length > 0 && workspaceIds.length <= PER_WORKSPACE_READS) {
    // One read per workspace, each in its index's order: no read sorts more than limit+1 rows.
    for (const id of workspaceIds) reads.push(common(Activity.query(db).where('workspace_id', id)));
  } else if (workspaceIds.length > 0) {
    reads.push(common(Activity.query(db).whereIn('workspace_id', workspaceIds)));
  }
  if (accountId) {
    // Literal predicates, so both engines match the partial indexes of migration 000302.
    reads.push(common(Activity.query(db).where('account_id', accountId).whereRaw('workspace_id IS NULL')));
    if (!q.kind || q.kind === 'security') {
      reads.push(
        common(
          Activity.query(db)
            .where('account_id', accountId)
            .whereRaw(`kind = 'security'`)
            .whereRaw('workspace_id IS NOT NULL')
            .whereRaw('NOT EXISTS (SELECT 1 FROM workspaces w WHERE w.id = activity.workspace_id)'),
        ),
      );
    }
  }
  const merged = (await Promise.all(reads)).flat().sort(newestFirst);
  const hasMore = merged.length > q.limit;
  const rows = merged.slice(0, q.limit);
  const last = rows[rows.length - 1];
  return {
    data: rows.map(activityToApi),
    nextCursor: hasMore && last ? encodeCursor({ at: Number(last.created_at), id: last.id }) : null,
  };
}
