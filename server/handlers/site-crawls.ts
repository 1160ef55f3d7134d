import { getSiteCrawl, latestSiteCrawls, listSiteCrawls, queueCrawlNow, siteCrawlDetail, siteCrawlToApi } from '../../core/crawls/index.ts';
import type { Handler } from '../handler-types.ts';

export const create: Handler<'SiteCrawls_create'> = async ({ db, access, body }) => {
  const { workspace } = await access.workspace(body.workspaceId, 'member', 'run crawls');
  const { crawl, created } = await queueCrawlNow(db, workspace.id, 'manual');
  // 200 with the crawl already queued to run now: a workspace has at most one (spec/site-checks.tsp).
  return created ? { status: 201, body: siteCrawlToApi(crawl) } : { status: 200, body: siteCrawlToApi(crawl) };
};

export const list: Handler<'SiteCrawls_list'> = async ({ db, access, query }) => {
  const { workspace } = await access.workspace(query.workspace_id);
  return { status: 200, body: await listSiteCrawls(db, workspace.id, { trigger: query.trigger, state: query.state, limit: query.limit, cursor: query.cursor }) };
};

export const latest: Handler<'SiteCrawls_latest'> = async ({ db, access, query }) => {
  const { workspace } = await access.workspace(query.workspace_id);
  return { status: 200, body: await latestSiteCrawls(db, workspace.id) };
};

export const get: Handler<'SiteCrawls_get'> = async ({ db, access, path, query }) => {
  const crawl = await getSiteCrawl(db, path.id);
  await access.workspace(crawl.workspace_id);
  return { status: 200, body: await siteCrawlDetail(db, crawl, { limit: query.limit, cursor: query.cursor }) };
};
