import type { Workspace, WorkspaceCreate, WorkspaceList, WorkspaceUpdate } from '../types.js';
import { Resource, unwrap, unwrapDeleted, type Deleted, type RequestOptions, type WithResponse } from './resource.js';

/** `/v1/workspaces`. Single-workspace answers arrive as `{data: workspace}`; these methods unwrap them. */
export class Workspaces extends Resource {
  /** `Workspaces_list`: every workspace the caller belongs to, oldest first. */
  list(options?: RequestOptions): Promise<WithResponse<WorkspaceList>> {
    return unwrap(this.client.GET('/v1/workspaces', { ...this.call(options) }));
  }

  /**
   * `Workspaces_create`: the caller becomes its owner. Sent with an `Idempotency-Key` (yours, or
   * a new one kept across retries), so a retry after a lost response creates nothing twice.
   */
  async create(body: WorkspaceCreate, options?: RequestOptions): Promise<WithResponse<Workspace>> {
    return data(await unwrap(this.client.POST('/v1/workspaces', { body, ...this.call(options) })));
  }

  /** `Workspaces_get`. */
  async get(id: string, options?: RequestOptions): Promise<WithResponse<Workspace>> {
    return data(await unwrap(this.client.GET('/v1/workspaces/{id}', { params: { path: { id } }, ...this.call(options) })));
  }

  /** `Workspaces_update`: admin or owner; `null` clears `logo`, `country` and `description`. Not retried. */
  async update(id: string, body: WorkspaceUpdate, options?: RequestOptions): Promise<WithResponse<Workspace>> {
    return data(await unwrap(this.client.PUT('/v1/workspaces/{id}', { params: { path: { id } }, body, ...this.call(options) })));
  }

  /** `Workspaces_delete`: owner only; removes the workspace's data (security activity stays). Not retried. */
  delete(id: string, options?: RequestOptions): Promise<WithResponse<Deleted>> {
    return unwrapDeleted(this.client.DELETE('/v1/workspaces/{id}', { params: { path: { id } }, ...this.call(options) }), id);
  }
}

/** The workspace inside a `{data: workspace}` answer, keeping the answer's `lastResponse`. */
function data(res: WithResponse<{ data: Workspace }>): WithResponse<Workspace> {
  return Object.defineProperty(res.data, 'lastResponse', { value: res.lastResponse, enumerable: false, configurable: true }) as WithResponse<Workspace>;
}
