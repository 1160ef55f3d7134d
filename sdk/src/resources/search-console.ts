import type { SearchConsoleAuthorization, SearchConsoleCallbackResult, SearchConsoleCallbackQuery, SearchConsoleConnect, SearchConsoleConnection } from '../types.js';
import { Resource, unwrap, unwrapDeleted, type Deleted, type RequestOptions, type WithResponse } from './resource.js';

/**
 * `/v1/workspaces/{id}/search-console`: the workspace's Google Search Console connection, synced
 * daily into the data `searchPerformance.get` reads. The refresh token is never returned.
 */
export class SearchConsole extends Resource {
  /** `SearchConsole_get`: the connection (`state`, `syncedThrough`, `lastSyncRows`, `lastError`); a `NotFoundError` when there is none. */
  get(workspaceId: string, options?: RequestOptions): Promise<WithResponse<SearchConsoleConnection>> {
    return unwrap(this.client.GET('/v1/workspaces/{id}/search-console', { params: { path: { id: workspaceId } }, ...this.call(options) }));
  }

  /**
   * `SearchConsole_connect`: admin or owner. Returns the connection and the `authorizationUrl` to
   * open in a browser as a Google user with access to the property. Retried safely under its
   * `Idempotency-Key`.
   */
  connect(workspaceId: string, body: SearchConsoleConnect, options?: RequestOptions): Promise<WithResponse<SearchConsoleAuthorization>> {
    return unwrap(this.client.POST('/v1/workspaces/{id}/search-console', { params: { path: { id: workspaceId } }, body, ...this.call(options) }));
  }

  /** `SearchConsole_disconnect`: admin or owner; the token is deleted, the data stays. Not retried. */
  disconnect(workspaceId: string, options?: RequestOptions): Promise<WithResponse<Deleted>> {
    return unwrapDeleted(this.client.DELETE('/v1/workspaces/{id}/search-console', { params: { path: { id: workspaceId } }, ...this.call(options) }), workspaceId);
  }

  /** `SearchConsole_sync`: member or above; queues a sync now (`202`). A `ConflictError` (`search_console_not_connected`) while pending or revoked. */
  sync(workspaceId: string, options?: RequestOptions): Promise<WithResponse<SearchConsoleConnection>> {
    return unwrap(this.client.POST('/v1/workspaces/{id}/search-console/sync', { params: { path: { id: workspaceId } }, ...this.call(options) }));
  }
}

/**
 * `/v1/search-console/callback`: where Google sends the browser after consent. A browser calls
 * it, not an integration; it is here for completeness (a server relaying the redirect). No key needed.
 */
export class SearchConsoleCallback extends Resource {
  /** `SearchConsoleCallback_complete`: `state` and `code` (or `error`) as Google sent them. */
  complete(query: SearchConsoleCallbackQuery, options?: RequestOptions): Promise<WithResponse<SearchConsoleCallbackResult>> {
    return unwrap(this.client.GET('/v1/search-console/callback', { params: { query }, ...this.call(options) }));
  }
}
