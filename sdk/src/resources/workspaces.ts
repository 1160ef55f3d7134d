import type { Workspace, WorkspaceCreate, WorkspaceList, WorkspaceUpdate } from '../types.js';
import { Resource, unwrap } from './resource.js';

/** `/v1/workspaces`. Single-workspace answers arrive as `{data: workspace}`; these methods unwrap them. */
export class Workspaces extends Resource {
  /** `Workspaces_list`: every workspace the caller belongs to, oldest first. */
  list(): Promise<WorkspaceList> {
    return unwrap(this.client.GET('/v1/workspaces'));
  }

  /**
   * `Workspaces_create`: the caller becomes its owner. Never retried (a lost response would
   * otherwise create a second workspace, or answer 409 `slug_taken`).
   */
  async create(body: WorkspaceCreate): Promise<Workspace> {
    const res = await unwrap(this.client.POST('/v1/workspaces', { body }));
    return res.data;
  }

  /** `Workspaces_get`. */
  async get(id: string): Promise<Workspace> {
    const res = await unwrap(this.client.GET('/v1/workspaces/{id}', { params: { path: { id } } }));
    return res.data;
  }

  /** `Workspaces_update`: admin or owner; `null` clears `logo`, `country` and `description`. Not retried. */
  async update(id: string, body: WorkspaceUpdate): Promise<Workspace> {
    const res = await unwrap(this.client.PUT('/v1/workspaces/{id}', { params: { path: { id } }, body }));
    return res.data;
  }

  /** `Workspaces_delete`: owner only; removes the workspace's data (security activity stays). Not retried. */
  async delete(id: string): Promise<void> {
    await unwrap(this.client.DELETE('/v1/workspaces/{id}', { params: { path: { id } } }));
  }
}
