import type { LogList, LogListQuery, LogRow } from '../types.js';
import { Resource, unwrap, type RequestOptions, type WithResponse } from './resource.js';

/** `/v1/logs`: a workspace's request log. */
export class Logs extends Resource {
  /** `Logs_list`: one page, newest first, with `meta` (totals and buckets over the whole window, `has_more`). */
  list(query: LogListQuery, options?: RequestOptions): Promise<WithResponse<LogList>> {
    return unwrap(this.client.GET('/v1/logs', { params: { query }, ...this.call(options) }));
  }

  /**
   * Every row matching `query`, newest first, fetching pages of `query.limit` as needed: each
   * next page asks for rows `before` the last row seen, while `meta.has_more` says there are more.
   *
   * ```ts
   * for await (const row of client.logs.iterate({ workspace_id, status: 'failed' })) console.log(row.path);
   * ```
   */
  async *iterate(query: LogListQuery, options?: RequestOptions): AsyncGenerator<LogRow, void, undefined> {
    let params: LogListQuery = { ...query };
    for (;;) {
      const page = await this.list(params, options);
      yield* page.data;
      const last = page.data.at(-1);
      if (!page.meta.has_more || !last) return;
      params = { ...params, before: last.id };
    }
  }
}
