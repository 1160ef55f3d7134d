import type { SiteCheckLatest } from '../types.js';
import { Resource, unwrap, type RequestOptions, type WithResponse } from './resource.js';

/** `/v1/site-checks`. */
export class SiteChecks extends Resource {
  /**
   * `SiteChecks_latest`: the workspace's newest check, the newest finished one with its baseline,
   * findings and issues (`{latest: null, check: null, baseline: null, findings: [], issues: []}`
   * before the first check).
   */
  latest(workspaceId: string, options?: RequestOptions): Promise<WithResponse<SiteCheckLatest>> {
    return unwrap(this.client.GET('/v1/site-checks/latest', { params: { query: { workspace_id: workspaceId } }, ...this.call(options) }));
  }
}
