import type { Deploy, DeployCreate, DeployDetail, DeployList, DeployListItem, DeployListQuery } from '../types.js';
import { Resource, everyRow, unwrap, type RequestOptions, type WithResponse } from './resource.js';

/** `/v1/deploys`: record deploys from CI and read them back. */
export class Deploys extends Resource {
  /**
   * `Deploys_create`: record a deploy. The same workspace, environment and commitSha update that
   * deploy (still 201); sent with an `Idempotency-Key`, and retried on network errors, 429, 502, 503 and 504.
   */
  create(body: DeployCreate, options?: RequestOptions): Promise<WithResponse<Deploy>> {
    return unwrap(this.client.POST('/v1/deploys', { body, ...this.call(options) }));
  }

  /** `Deploys_list`: one page of a workspace's deploys, newest first, each with the newest site check it triggered; `meta.next_cursor` is null on the last page. */
  list(query: DeployListQuery, options?: RequestOptions): Promise<WithResponse<DeployList>> {
    return unwrap(this.client.GET('/v1/deploys', { params: { query }, ...this.call(options) }));
  }

  /**
   * Every deploy matching `query`, newest first, page after page (`query.limit` is the page size).
   *
   * ```ts
   * for await (const d of client.deploys.iterate({ workspace_id, from: '2026-11-21', to: '2026-11-21' })) console.log(d.commitSha);
   * ```
   */
  iterate(query: DeployListQuery, options?: RequestOptions): AsyncGenerator<DeployListItem, void, undefined> {
    return everyRow((q: DeployListQuery) => this.list(q, options), query);
  }

  /** `Deploys_get`: one deploy with its check, baseline, findings, crawl, crawl findings and impact. */
  get(id: string, options?: RequestOptions): Promise<WithResponse<DeployDetail>> {
    return unwrap(this.client.GET('/v1/deploys/{id}', { params: { path: { id } }, ...this.call(options) }));
  }
}
