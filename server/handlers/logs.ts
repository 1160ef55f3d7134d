import { nowMs } from '../../core/platform/index.ts';
import { listRequestLogs } from '../../core/request-logs/index.ts';
import type { Handler } from '../handler-types.ts';

export const list: Handler<'Logs_list'> = async ({ db, access, query }) => {
  const { workspace } = await access.workspace(query.workspace_id);
  const body = await listRequestLogs(db, {
    workspaceId: workspace.id,
    days: query.days,
    status: query.status,
    method: query.method,
    statusCode: query.status_code,
    route: query.route,
    q: query.q,
    limit: query.limit,
    before: query.before,
    cursor: query.cursor,
    now: nowMs(),
  });
  return { status: 200, body };
};
