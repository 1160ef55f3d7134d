import type { DbOrTrx } from '../db/index.ts';

/**
 * Deletes a workspace's search data. Its per-day rows go with the workspace (foreign key); the
 * rows themselves carry no foreign key (see the migration), so deleting a workspace calls this.
 */
export async function deleteSearchData(db: DbOrTrx, workspaceId: string): Promise<number> {
  await db('search_data_days').where({ workspace_id: workspaceId }).del();
  await db('search_performance').where({ workspace_id: workspaceId }).del();
  await db('search_rollups').where({ workspace_id: workspaceId }).del();
  await db('search_cube').where({ workspace_id: workspaceId }).del();
  return db('search_data').where({ workspace_id: workspaceId }).del();
}
