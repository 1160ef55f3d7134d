import type { Deploy, DeployCreate, DeployDetail, DeployList, DeployListQuery } from '../types.js';
import { Resource, unwrap } from './resource.js';

/** `/v1/deploys`: record deploys from CI and read them back. */
export class Deploys extends Resource {
  /**
   * `Deploys_create`: record a deploy. The same workspace, environment and commitSha update that
   * deploy (still 201), so this call is retried like a GET (network errors, 429, 502, 503, 504).
   */
  create(body: DeployCreate): Promise<Deploy> {
    return unwrap(this.client.POST('/v1/deploys', { body }));
  }

  /** `Deploys_list`: a workspace's deploys, newest first, each with the newest site check it triggered. */
  list(query: DeployListQuery): Promise<DeployList> {
    return unwrap(this.client.GET('/v1/deploys', { params: { query } }));
  }

  /** `Deploys_get`: one deploy with its check, baseline, findings, crawl, crawl findings and impact. */
  get(id: string): Promise<DeployDetail> {
    return unwrap(this.client.GET('/v1/deploys/{id}', { params: { path: { id } } }));
  }
}
