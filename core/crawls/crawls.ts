import { CrawlPage, SiteCrawl, type DbOrTrx } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { NotFound, ValidationFailed, decodeCursor, encodeCursor, toIso } from '../platform/index.ts';

/** The newest crawl triggered by a deploy, in any state. */
export async function newestCrawlOfDeploy(db: DbOrTrx, deployId: string): Promise<SiteCrawl | null> {
  return (await SiteCrawl.query(db).where({ deploy_id: deployId }).orderBy('id', 'desc').first()) ?? null;
}

export function siteCrawlToApi(row: SiteCrawl): Schemas['SiteCrawl'] {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    deployId: row.deploy_id,
    state: row.state,
    trigger: row.trigger_kind ?? 'deploy',
    scheduledAt: toIso(row.scheduled_at)!,
    startedAt: toIso(row.started_at),
    finishedAt: toIso(row.finished_at),
    pagesCrawled: Number(row.pages_crawled),
    error: row.error,
  };
}

/** The newest finished crawl of the workspace scheduled before `before`: what a crawl is compared with. */
export async function finishedCrawlBefore(db: DbOrTrx, workspaceId: string, before: number): Promise<SiteCrawl | null> {
  const row = await SiteCrawl.query(db)
    .where({ workspace_id: workspaceId, state: 'finished' })
    .andWhere('scheduled_at', '<', before)
    .orderBy([
      { column: 'scheduled_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first();
  return row ?? null;
}

/** A workspace's crawls, newest first by id (ids are time-ordered), a page at a time. */
export async function listSiteCrawls(
  db: DbOrTrx,
  workspaceId: string,
  q: { trigger?: Schemas['CheckTrigger']; state?: Schemas['RunState']; limit: number; cursor?: string },
): Promise<Schemas['SiteCrawlList']> {
  const query = SiteCrawl.query(db).where({ workspace_id: workspaceId });
  if (q.trigger) query.where({ trigger_kind: q.trigger });
  if (q.state) query.where({ state: q.state });
  if (q.cursor) query.where('id', '<', decodeCursor(q.cursor, 'GET /v1/site-crawls').id);
  // The page list and findings are large and not part of a list item.
  const rows = await query.select(LIST_COLUMNS).orderBy('id', 'desc').limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    data: page.map(siteCrawlToApi),
    meta: { next_cursor: rows.length > q.limit ? encodeCursor({ at: Number(last.created_at), id: last.id }) : null },
  };
}

const LIST_COLUMNS = ['id', 'workspace_id', 'deploy_id', 'state', 'trigger_kind', 'scheduled_at', 'started_at', 'finished_at', 'pages_crawled', 'error', 'created_at'];

/** A crawl by id, or 404. */
export async function getSiteCrawl(db: DbOrTrx, id: string): Promise<SiteCrawl> {
  const row = await SiteCrawl.query(db).findById(id);
  if (!row) throw new NotFound();
  return row;
}

// The pages of a crawl page by URL (the table's key with the crawl): the cursor is the last URL.
function encodePagesCursor(url: string): string {
  return Buffer.from(`u:${url}`, 'utf8').toString('base64url');
}

function decodePagesCursor(raw: string): string {
  const text = /^[A-Za-z0-9_-]+$/.test(raw) ? Buffer.from(raw, 'base64url').toString('utf8') : '';
  if (!text.startsWith('u:') || text.length < 3) {
    throw new ValidationFailed('cursor is not a meta.next_cursor of GET /v1/site-crawls/{id}.', [
      { in: 'query', path: '/cursor', message: 'is not a valid cursor: pass meta.next_cursor of the previous page as it is' },
    ]);
  }
  return text.slice(2);
}

/** A crawl with its baseline, findings, issues and one page of its pages in URL order. */
export async function siteCrawlDetail(db: DbOrTrx, crawl: SiteCrawl, q: { limit: number; cursor?: string }): Promise<Schemas['SiteCrawlDetail']> {
  const after = q.cursor === undefined ? null : decodePagesCursor(q.cursor);
  const finished = crawl.state === 'finished';
  const baseline = await finishedCrawlBefore(db, crawl.workspace_id, Number(crawl.scheduled_at));
  const query = CrawlPage.query(db).where({ crawl_id: crawl.id });
  if (after !== null) query.where('url', '>', after);
  const rows = finished ? await query.orderBy('url').limit(q.limit + 1) : [];
  const page = rows.slice(0, q.limit);
  return {
    ...siteCrawlToApi(crawl),
    baseline: baseline ? siteCrawlToApi(baseline) : null,
    findings: finished ? (crawl.findings?.crawlFindings ?? []).map((f) => ({ ...f, explanation: f.explanation ?? null })) : [],
    issues: finished ? (crawl.findings?.all ?? []) : [],
    pages: page.map(crawlPageToApi),
    meta: { next_cursor: rows.length > q.limit ? encodePagesCursor(page[page.length - 1].url) : null },
  };
}

function crawlPageToApi(p: CrawlPage): Schemas['CrawlPageRecord'] {
  return {
    url: p.url,
    depth: Number(p.depth),
    status: p.status === null ? null : Number(p.status),
    finalUrl: p.final_url,
    redirects: p.redirects,
    title: p.title,
    robots: p.robots,
    blockedByRobotsTxt: Boolean(p.blocked_by_robots),
    inSitemap: Boolean(p.in_sitemap),
    inlinks: Number(p.inlinks),
    linkedFrom: p.linked_from,
    error: p.error,
  };
}

/**
 * The workspace's newest crawl in any state, its newest finished crawl, the finished crawl before
 * that, what it found that the one before did not (without causes, as the latest check) and
 * everything it found.
 */
export async function latestSiteCrawls(db: DbOrTrx, workspaceId: string): Promise<Schemas['SiteCrawlLatest']> {
  const newest = () =>
    SiteCrawl.query(db)
      .where({ workspace_id: workspaceId })
      .orderBy([
        { column: 'scheduled_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .first();
  const latest = await newest().select(LIST_COLUMNS);
  const crawl = await newest().where({ state: 'finished' });
  const baseline = crawl ? await finishedCrawlBefore(db, workspaceId, Number(crawl.scheduled_at)) : null;
  return {
    latest: latest ? siteCrawlToApi(latest) : null,
    crawl: crawl ? siteCrawlToApi(crawl) : null,
    baseline: baseline ? siteCrawlToApi(baseline) : null,
    findings: baseline ? (crawl?.findings?.crawlFindings ?? []).map(({ causes: _causes, explanation: _explanation, ...f }) => f) : [],
    issues: crawl?.findings?.all ?? [],
  };
}
