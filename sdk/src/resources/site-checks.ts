import type { SiteCheck, SiteCheckDetail, SiteCheckLatest, SiteCheckList, SiteCheckListQuery } from '../types.js';
import { Resource, everyRow, unwrap, type RequestOptions, type WithResponse } from './resource.js';

/** `/v1/site-checks`: checks of the website's key pages, after deploys, on the schedule and on demand. */
export class SiteChecks extends Resource {
  /**
   * `SiteChecks_create`: run a check now (member or above). `lastResponse.status` is 201 for a
   * new check, 200 for the check already queued to run now (a workspace has at most one).
   * Sent with an `Idempotency-Key` and retried like every POST.
   */
  create(workspaceId: string, options?: RequestOptions): Promise<WithResponse<SiteCheck>> {
    return unwrap(this.client.POST('/v1/site-checks', { body: { workspaceId }, ...this.call(options) }));
  }

  /** `SiteChecks_list`: one page of a workspace's checks, newest first; `meta.next_cursor` is null on the last page. */
  list(query: SiteCheckListQuery, options?: RequestOptions): Promise<WithResponse<SiteCheckList>> {
    return unwrap(this.client.GET('/v1/site-checks', { params: { query }, ...this.call(options) }));
  }

  /** Every check matching `query`, newest first, page after page (`query.limit` is the page size). */
  iterate(query: SiteCheckListQuery, options?: RequestOptions): AsyncGenerator<SiteCheck, void, undefined> {
    return everyRow((q: SiteCheckListQuery) => this.list(q, options), query);
  }

  /** `SiteChecks_get`: one check with its baseline, findings (with likely causes and, for manual and scheduled checks, an explanation) and issues. */
  get(id: string, options?: RequestOptions): Promise<WithResponse<SiteCheckDetail>> {
    return unwrap(this.client.GET('/v1/site-checks/{id}', { params: { path: { id } }, ...this.call(options) }));
  }

  /**
   * `SiteChecks_latest`: the workspace's newest check, the newest finished one with its baseline,
   * findings and issues (`{latest: null, check: null, baseline: null, findings: [], issues: []}`
   * before the first check).
   */
  latest(workspaceId: string, options?: RequestOptions): Promise<WithResponse<SiteCheckLatest>> {
    return unwrap(this.client.GET('/v1/site-checks/latest', { params: { query: { workspace_id: workspaceId } }, ...this.call(options) }));
  }
}
