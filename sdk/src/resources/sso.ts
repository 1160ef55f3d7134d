import { errorFromResponse } from '../errors.js';
import type { SsoAuthorization, SsoCallbackQuery, SsoSettings, SsoSettingsUpdate, SsoStart } from '../types.js';
import { Resource, responseInfo, unwrap, unwrapDone, type Done, type RequestOptions, type WithResponse } from './resource.js';

/** `/v1/sso/settings`: the account's single sign-on (an owner of every workspace of the account). */
export class SingleSignOn extends Resource {
  /** `SingleSignOn_get`: the settings, never the client secret. */
  get(options?: RequestOptions): Promise<WithResponse<SsoSettings>> {
    return unwrap(this.client.GET('/v1/sso/settings', { ...this.call(options) }));
  }

  /** `SingleSignOn_configure`: the provider is discovered first; the secret is kept when omitted. Not retried. */
  configure(body: SsoSettingsUpdate, options?: RequestOptions): Promise<WithResponse<SsoSettings>> {
    return unwrap(this.client.PUT('/v1/sso/settings', { body, ...this.call(options) }));
  }

  /** `SingleSignOn_remove`: removes it, and with it the requirement. */
  remove(options?: RequestOptions): Promise<WithResponse<Done>> {
    return unwrapDone(this.client.DELETE('/v1/sso/settings', { ...this.call(options) }));
  }
}

/** The binding cookie's value a start answered with (`sitehealth_sso`), for the callback; null when none was set. */
export function ssoBindingOf(started: WithResponse<SsoAuthorization>): string | null {
  const cookies = started.lastResponse.headers.getSetCookie?.() ?? [started.lastResponse.headers.get('set-cookie') ?? ''];
  return cookies.map((c) => /^sitehealth_sso=([^;]+)/.exec(c)?.[1]).find(Boolean) ?? null;
}

/** What the callback answered: where it sends the browser, and the new session's cookie token. */
export interface SsoCompleted {
  location: string;
  sessionToken: string | null;
}

/**
 * `/v1/sso`: signing in through the account's provider (no credential). A browser does this by
 * itself; these methods are for a program that plays the browser (tests, a native app's shell).
 */
export class SsoSignIn extends Resource {
  /** `SsoSignIn_start`: the provider's authorization URL; `ssoBindingOf` reads the cookie that binds it. Not retried. */
  start(body: SsoStart, options?: RequestOptions): Promise<WithResponse<SsoAuthorization>> {
    return unwrap(this.client.POST('/v1/sso/start', { body, ...this.call({ maxRetries: 0, ...options }) }));
  }

  /**
   * `SsoSignIn_callback`: the provider's answer (its redirect's query) and the binding cookie of
   * the start. The 302 is not followed: its `Location` and session cookie are returned.
   */
  async callback(query: SsoCallbackQuery, binding: string | null, options?: RequestOptions): Promise<WithResponse<SsoCompleted>> {
    const call = this.call({ maxRetries: 0, ...options });
    const headers = { ...call.headers, ...(binding !== null && { cookie: `sitehealth_sso=${binding}` }) };
    const result = await this.client.GET('/v1/sso/callback', { params: { query }, ...call, headers, redirect: 'manual' });
    if (result.response.status !== 302) throw errorFromResponse(result.response, result.error);
    const cookies = result.response.headers.getSetCookie?.() ?? [result.response.headers.get('set-cookie') ?? ''];
    const completed: SsoCompleted = { location: result.response.headers.get('location') ?? '', sessionToken: cookies.map((c) => /^sitehealth_session=([^;]+)/.exec(c)?.[1]).find(Boolean) ?? null };
    return Object.defineProperty(completed, 'lastResponse', { value: responseInfo(result.response), enumerable: false, configurable: true }) as WithResponse<SsoCompleted>;
  }
}
