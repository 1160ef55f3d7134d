import type { SiteCheckLatest } from '../types.js';
import { Resource, unwrap } from './resource.js';

/** `/v1/site-checks`. */
export class SiteChecks extends Resource {
  /**
   * `SiteChecks_latest`: the workspace's newest check, the newest finished one with its baseline,
   * findings and issues (`{latest: null, check: null, baseline: null, findings: [], issues: []}`
   * before the first check).
   */
  latest(workspaceId: string): Promise<SiteCheckLatest> {
    return unwrap(this.client.GET('/v1/site-checks/latest', { params: { query: { workspace_id: workspaceId } } }));
  }
}
