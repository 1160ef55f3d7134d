import type { CrawlPageRecord, SiteCrawl, SiteCrawlDetail, SiteCrawlDetailQuery, SiteCrawlLatest, SiteCrawlList, SiteCrawlListQuery } from '../types.js';
import { Resource, everyRow, unwrap, type RequestOptions, type WithResponse } from './resource.js';

/** `/v1/site-crawls`: crawls of the whole website, after deploys, weekly and on demand. */
export class SiteCrawls extends Resource {
  /**
   * `SiteCrawls_create`: crawl the website now (member or above). `lastResponse.status` is 201
   * for a new crawl, 200 for the crawl already queued to run now (a workspace has at most one).
   */
  create(workspaceId: string, options?: RequestOptions): Promise<WithResponse<SiteCrawl>> {
    return unwrap(this.client.POST('/v1/site-crawls', { body: { workspaceId }, ...this.call(options) }));
  }

  /** `SiteCrawls_list`: one page of a workspace's crawls, newest first. */
  list(query: SiteCrawlListQuery, options?: RequestOptions): Promise<WithResponse<SiteCrawlList>> {
    return unwrap(this.client.GET('/v1/site-crawls', { params: { query }, ...this.call(options) }));
  }

  /** Every crawl matching `query`, newest first, page after page. */
  iterate(query: SiteCrawlListQuery, options?: RequestOptions): AsyncGenerator<SiteCrawl, void, undefined> {
    return everyRow((q: SiteCrawlListQuery) => this.list(q, options), query);
  }

  /** `SiteCrawls_get`: one crawl with its baseline, findings, issues and one page of its pages (URL order; `meta.next_cursor` for more). */
  get(id: string, query: SiteCrawlDetailQuery = {}, options?: RequestOptions): Promise<WithResponse<SiteCrawlDetail>> {
    return unwrap(this.client.GET('/v1/site-crawls/{id}', { params: { path: { id }, query }, ...this.call(options) }));
  }

  /** Every page of a crawl, in URL order, fetched `query.limit` at a time. */
  async *pages(id: string, query: SiteCrawlDetailQuery = {}, options?: RequestOptions): AsyncGenerator<CrawlPageRecord, void, undefined> {
    let cursor = query.cursor;
    for (;;) {
      const page = await this.get(id, { ...query, cursor }, options);
      yield* page.pages;
      if (!page.meta.next_cursor) return;
      cursor = page.meta.next_cursor;
    }
  }

  /** `SiteCrawls_latest`: the workspace's newest crawl, newest finished one, the crawl before it, what is new and everything found. */
  latest(workspaceId: string, options?: RequestOptions): Promise<WithResponse<SiteCrawlLatest>> {
    return unwrap(this.client.GET('/v1/site-crawls/latest', { params: { query: { workspace_id: workspaceId } }, ...this.call(options) }));
  }
}
