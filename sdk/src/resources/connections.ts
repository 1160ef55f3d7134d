import type { Connection, ConnectionCreate, ConnectionList, ConnectionUpdate, ConnectionWithSecret } from '../types.js';
import { Resource, unwrap, unwrapDeleted, type Deleted, type RequestOptions, type WithResponse } from './resource.js';

/**
 * `/v1/workspaces/{id}/connections`: connected GitHub and GitLab repositories, whose pushes (or
 * deployments) record deploys without a CI step and get the site check's verdict as a commit
 * status. Tokens are never returned; the webhook secret only by `create` and a rotating `update`.
 */
export class Connections extends Resource {
  /** `Connections_list`: the workspace's connections, oldest first. */
  list(workspaceId: string, options?: RequestOptions): Promise<WithResponse<ConnectionList>> {
    return unwrap(this.client.GET('/v1/workspaces/{id}/connections', { params: { path: { id: workspaceId } }, ...this.call(options) }));
  }

  /**
   * `Connections_create`: admin or owner. The host is asked once whether the token can read the
   * repository (a refusal is an `UnprocessableError`, `repository_unreachable`). The answer
   * carries `webhookUrl` and the `webhookSecret`, shown only here: paste both into the
   * repository's webhook settings. Retried safely under its `Idempotency-Key`.
   */
  create(workspaceId: string, body: ConnectionCreate, options?: RequestOptions): Promise<WithResponse<ConnectionWithSecret>> {
    return unwrap(this.client.POST('/v1/workspaces/{id}/connections', { params: { path: { id: workspaceId } }, body, ...this.call(options) }));
  }

  /** `Connections_update`: admin or owner. `rotateSecret: true` returns a new `webhookSecret` once. Not retried. */
  update(workspaceId: string, connectionId: string, body: ConnectionUpdate, options?: RequestOptions): Promise<WithResponse<Connection | ConnectionWithSecret>> {
    return unwrap(this.client.PUT('/v1/workspaces/{id}/connections/{connectionId}', { params: { path: { id: workspaceId, connectionId } }, body, ...this.call(options) }));
  }

  /** `Connections_delete`: admin or owner; deploys it recorded stay. Not retried. */
  delete(workspaceId: string, connectionId: string, options?: RequestOptions): Promise<WithResponse<Deleted>> {
    return unwrapDeleted(this.client.DELETE('/v1/workspaces/{id}/connections/{connectionId}', { params: { path: { id: workspaceId, connectionId } }, ...this.call(options) }), connectionId);
  }
}
