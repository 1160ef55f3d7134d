import { listActivity, type ActivityScope } from '../../core/activity/index.ts';
import type { Handler } from '../handler-types.ts';

export const list: Handler<'Activity_list'> = async ({ db, auth, access, query }) => {
  let scope: ActivityScope;
  if (query.workspace_id) {
    // 404 unless the caller can see it (a bound key: only its own).
    const { workspace } = await access.workspace(query.workspace_id);
    scope = { workspaceIds: [workspace.id], accountId: null };
  } else {
    // Every workspace the caller belongs to; an unbound key adds its account's own rows and the
    // security rows of the account's deleted workspaces (docs/api.md#who-sees-which-rows).
    scope = { workspaceIds: await access.workspaceIds(), accountId: auth.workspaceId ? null : auth.accountId };
  }
  const { data, nextCursor } = await listActivity(db, {
    scope,
    kind: query.kind,
    from: query.from === undefined ? undefined : Date.parse(query.from),
    to: query.to === undefined ? undefined : Date.parse(query.to),
    limit: query.limit,
    cursor: query.cursor,
  });
  return { status: 200, body: { data, meta: { next_cursor: nextCursor } } };
};
