import type { NotificationSettings, NotificationSettingsUpdate, Report, ReportQuery, Unsubscribed } from '../types.js';
import { Resource, unwrap, unwrapJson, unwrapText, type RequestOptions, type WithResponse } from './resource.js';

/** `/v1/workspaces/{id}/notifications`: the caller's own digest choice in a workspace (any role). */
export class Notifications extends Resource {
  /** `Notifications_get`: weekly until changed. */
  get(workspaceId: string, options?: RequestOptions): Promise<WithResponse<NotificationSettings>> {
    return unwrap(this.client.GET('/v1/workspaces/{id}/notifications', { params: { path: { id: workspaceId } }, ...this.call(options) }));
  }

  /** `Notifications_update`: `weekly`, `daily` or `none`. */
  update(workspaceId: string, body: NotificationSettingsUpdate, options?: RequestOptions): Promise<WithResponse<NotificationSettings>> {
    return unwrap(this.client.PUT('/v1/workspaces/{id}/notifications', { params: { path: { id: workspaceId } }, body, ...this.call(options) }));
  }
}

/** `/v1/workspaces/{id}/report`: a digest's content for whole local days `from` through `to`. */
export class Reports extends Resource {
  /** `Reports_get` as JSON. */
  get(workspaceId: string, query: ReportQuery, options?: RequestOptions): Promise<WithResponse<Report>> {
    return unwrapJson(this.client.GET('/v1/workspaces/{id}/report', { params: { path: { id: workspaceId }, query }, ...this.call({ ...options, headers: { ...options?.headers, accept: 'application/json' } }) }));
  }

  /** `Reports_get` as a printable HTML page (`Accept: text/html`). */
  getHtml(workspaceId: string, query: ReportQuery, options?: RequestOptions): Promise<WithResponse<{ html: string }>> {
    const call = this.call({ ...options, headers: { ...options?.headers, accept: 'text/html' } });
    return unwrapText(this.client.GET('/v1/workspaces/{id}/report', { params: { path: { id: workspaceId }, query }, parseAs: 'text', ...call }));
  }
}

/** `/v1/unsubscribe`: a digest's unsubscribe token is the credential (the client's key is not needed). */
export class Unsubscribe extends Resource {
  /** `Unsubscribe_page`: the HTML page the digest's link opens; changes nothing. */
  page(token: string, options?: RequestOptions): Promise<WithResponse<{ html: string }>> {
    return unwrapText(this.client.GET('/v1/unsubscribe', { params: { query: { token } }, parseAs: 'text', ...this.call(options) }));
  }

  /**
   * `Unsubscribe_unsubscribe`: the RFC 8058 one-click POST; the member gets no more digests of that
   * workspace. Works once (`ConflictError`, code `token_used`, after). Not retried by default.
   */
  unsubscribe(token: string, options?: RequestOptions): Promise<WithResponse<Unsubscribed>> {
    const call = this.call({ maxRetries: 0, ...options, headers: { ...options?.headers, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' } });
    return unwrapJson(
      this.client.POST('/v1/unsubscribe', {
        params: { query: { token } },
        body: { 'List-Unsubscribe': 'One-Click' },
        bodySerializer: (body) => new URLSearchParams(body).toString(),
        ...call,
      }),
    );
  }
}
