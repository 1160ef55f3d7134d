import { latestSiteChecks } from '../../core/site-checks.ts';
import type { components } from '../../generated/types.ts';
import type { Handler } from '../handler-types.ts';

export const latest: Handler<'SiteChecks_latest'> = async ({ db, access, query }) => {
  await access.workspace(query.workspace_id);
  return { status: 200, body: (await latestSiteChecks(db, query.workspace_id)) as components['schemas']['SiteCheckLatest'] };
};
