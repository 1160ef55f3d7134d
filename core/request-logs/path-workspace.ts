import type { DbOrTrx } from '../db/connection.ts';
import { isUuid } from '../ids.ts';

// The workspace a request's path names (CONTRACT section 7: "path resource"), for requests
// that ended before their handler checked access: a 400 body, a 403 scope. The caller still
// verifies that the caller can see it before logging under it.
//   /v1/workspaces/{id}...  the workspace itself
//   /v1/<resource>/{id}...  the workspace_id of that row, for the resources below

const TABLE_OF_RESOURCE: Record<string, string> = {
  deploys: 'deploys',
  webhooks: 'webhooks',
};

const PATH_RESOURCE = /^\/v1\/([a-z-]+)\/\{id\}/;

export async function workspaceOfPath(
  db: DbOrTrx,
  route: string | null,
  params: Record<string, string> | undefined,
): Promise<string | null> {
  const m = route ? PATH_RESOURCE.exec(route) : null;
  const id = params?.id;
  if (!m || !isUuid(id)) return null;
  if (m[1] === 'workspaces') return id.toLowerCase();
  const table = TABLE_OF_RESOURCE[m[1]];
  if (!table) return null;
  try {
    const row = (await db(table).where({ id: id.toLowerCase() }).first('workspace_id')) as { workspace_id: string } | undefined;
    return row?.workspace_id ?? null;
  } catch {
    return null; // the resource's table does not exist yet
  }
}
