import { nowMs } from '../../core/clock.ts';
import { listRequestLogs } from '../../core/request-logs/query.ts';
import { requestLogToApi } from '../../core/request-logs/types.ts';
import type { Handler } from '../handler-types.ts';

export const list: Handler<'Logs_list'> = async ({ db, access, query }) => {
  const { id: workspaceId } = (await access.workspace(query.workspace_id)).workspace;
  const { rows, meta } = await listRequestLogs(db, {
    workspaceId: workspaceId.toLowerCase(),
    days: query.days ?? 7,
    status: query.status,
    method: query.method,
    statusCode: query.status_code,
    route: query.route,
    q: query.q,
    limit: query.limit ?? 50,
    before: query.before,
    now: nowMs(),
  });
  return { status: 200, body: { data: rows.map(requestLogToApi), meta } };
};
