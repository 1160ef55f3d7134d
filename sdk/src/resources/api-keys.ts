import type { ApiKey, ApiKeyCreate, ApiKeyList, ApiKeyListQuery, ApiKeyRotate, ApiKeyWithSecret } from '../types.js';
import { Resource, everyRow, unwrap, unwrapDeleted, type Deleted, type RequestOptions, type WithResponse } from './resource.js';

/**
 * `/v1/api-keys`: the calling key's user's own API keys (scope `keys`). A new or rotated key never
 * grants more than the calling key holds (a `PermissionError` whose `code` names the rule:
 * `scope_escalation`, `workspace_escalation`, `role_escalation`, `expiry_escalation`). The secret
 * (`key`) is in the answers of `create` and `rotate` only. Those two are not retried unless
 * `maxRetries` is given: the API keeps no copy of a secret to replay, so a retry would make a
 * second key.
 */
export class ApiKeys extends Resource {
  /** `ApiKeys_list`: one page, newest first; `meta.next_cursor` is null on the last page. */
  list(query: ApiKeyListQuery = {}, options?: RequestOptions): Promise<WithResponse<ApiKeyList>> {
    return unwrap(this.client.GET('/v1/api-keys', { params: { query }, ...this.call(options) }));
  }

  /**
   * Every key, newest first, following `meta.next_cursor` page after page.
   *
   * ```ts
   * for await (const k of client.apiKeys.iterate()) console.log(k.prefix, k.lastUsedAt);
   * ```
   */
  iterate(query: ApiKeyListQuery = {}, options?: RequestOptions): AsyncGenerator<ApiKey, void, undefined> {
    return everyRow((q: ApiKeyListQuery) => this.list(q, options), query);
  }

  /** `ApiKeys_create`: the answer's `key` is the secret, shown only here. */
  create(body: ApiKeyCreate, options?: RequestOptions): Promise<WithResponse<ApiKeyWithSecret>> {
    return unwrap(this.client.POST('/v1/api-keys', { body, ...this.call({ maxRetries: 0, ...options }) }));
  }

  /** `ApiKeys_get`: one key, never its secret. */
  get(id: string, options?: RequestOptions): Promise<WithResponse<ApiKey>> {
    return unwrap(this.client.GET('/v1/api-keys/{id}', { params: { path: { id } }, ...this.call(options) }));
  }

  /** `ApiKeys_delete`: revokes the key; every server refuses it from the next request on. */
  delete(id: string, options?: RequestOptions): Promise<WithResponse<Deleted>> {
    return unwrapDeleted(this.client.DELETE('/v1/api-keys/{id}', { params: { path: { id } }, ...this.call(options) }), id);
  }

  /**
   * `ApiKeys_rotate`: a new key (new `id`, same name, scopes, workspace and expiry) whose `key` is
   * shown only here; the old one keeps working `overlapSeconds` longer (default 0, at most 7 days).
   */
  rotate(id: string, body: ApiKeyRotate = {}, options?: RequestOptions): Promise<WithResponse<ApiKeyWithSecret>> {
    return unwrap(this.client.POST('/v1/api-keys/{id}/rotate', { params: { path: { id } }, body, ...this.call({ maxRetries: 0, ...options }) }));
  }
}
