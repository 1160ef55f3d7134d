import { getSiteCheck, latestSiteChecks, listSiteChecks, queueCheckNow, siteCheckDetail, siteCheckToApi } from '../../core/checks/index.ts';
import type { Handler } from '../handler-types.ts';

export const create: Handler<'SiteChecks_create'> = async ({ db, access, body }) => {
  const { workspace } = await access.workspace(body.workspaceId, 'member', 'run checks');
  const { check, created } = await queueCheckNow(db, workspace.id, 'manual');
  // 200 with the check already queued to run now: a workspace has at most one (spec/site-checks.tsp).
  return created ? { status: 201, body: siteCheckToApi(check) } : { status: 200, body: siteCheckToApi(check) };
};

export const list: Handler<'SiteChecks_list'> = async ({ db, access, query }) => {
  const { workspace } = await access.workspace(query.workspace_id);
  return { status: 200, body: await listSiteChecks(db, workspace.id, { trigger: query.trigger, state: query.state, limit: query.limit, cursor: query.cursor }) };
};

export const latest: Handler<'SiteChecks_latest'> = async ({ db, access, query }) => {
  await access.workspace(query.workspace_id);
  return { status: 200, body: await latestSiteChecks(db, query.workspace_id) };
};

export const get: Handler<'SiteChecks_get'> = async ({ db, access, path }) => {
  const check = await getSiteCheck(db, path.id);
  await access.workspace(check.workspace_id);
  return { status: 200, body: await siteCheckDetail(db, check) };
};
