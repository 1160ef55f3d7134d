import { searchPerformance } from '../../core/search-data/index.ts';
import type { Handler } from '../handler-types.ts';

export const get: Handler<'SearchPerformance_get'> = async ({ db, access, query }) => {
  const { workspace } = await access.workspace(query.workspace_id);
  return {
    status: 200,
    body: await searchPerformance(db, {
      workspaceId: workspace.id,
      from: query.from,
      to: query.to,
      dimension: query.dimension ?? 'date',
      page: query.page,
      query: query.query,
      country: query.country,
      device: query.device,
      compare: query.compare,
      limit: query.limit ?? 100,
      cursor: query.cursor,
    }),
  };
};
