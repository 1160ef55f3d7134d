import { latestSiteChecks } from '../../core/checks/index.ts';
import type { Handler } from '../handler-types.ts';

export const latest: Handler<'SiteChecks_latest'> = async ({ db, access, query }) => {
  await access.workspace(query.workspace_id);
  return { status: 200, body: await latestSiteChecks(db, query.workspace_id) };
};
