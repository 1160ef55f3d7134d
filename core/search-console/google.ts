// Google's side of a Search Console connection: the OAuth 2.0 client (google-auth-library:
// authorization URL, code exchange, refresh) and the Search Analytics API
// (@googleapis/searchconsole), both pointed at the endpoints the operator configures (Google's
// own by default; a local stand-in in tests). The endpoints come from the configuration, never
// from a user: a property (siteUrl) only ever becomes a path segment of the API's own URL.

import { searchconsole, type searchconsole_v1 } from '@googleapis/searchconsole';
import { OAuth2Client } from 'google-auth-library';
import type { Config } from '../platform/index.ts';

/** Read-only access to Search Console data, the only scope asked for. */
export const SEARCH_CONSOLE_SCOPE = 'https://www.googleapis.com/auth/webmasters.readonly';

/** Rows per Search Analytics request: the API's maximum. */
export const ROW_LIMIT = 25_000;

export type GoogleSettings = Config['google'];

export function oauthClient(g: GoogleSettings, redirectUri: string): OAuth2Client {
  return new OAuth2Client({
    clientId: g.clientId ?? undefined,
    clientSecret: g.clientSecret ?? undefined,
    redirectUri,
    endpoints: { oauth2AuthBaseUrl: g.authUrl, oauth2TokenUrl: g.tokenUrl },
  });
}

/** The redirect URI registered with the Google OAuth client (spec/search-console.tsp). */
export function redirectUriOf(publicUrl: string): string {
  return `${publicUrl}/v1/search-console/callback`;
}

/** One row of a Search Analytics answer, as the API gives it. */
export type ApiRow = searchconsole_v1.Schema$ApiDataRow;

export interface QueryPage {
  rows: ApiRow[];
  /** `metadata.firstIncompleteDate`: days from it on are still being processed. */
  firstIncompleteDate: string | null;
}

/** A Search Analytics reader for one property, acting with a refresh token. */
export class SearchAnalytics {
  private readonly api: searchconsole_v1.Searchconsole;

  constructor(
    g: GoogleSettings,
    refreshToken: string,
    private readonly siteUrl: string,
    private readonly o: { timeoutMs: number; signal?: AbortSignal },
  ) {
    const auth = oauthClient(g, 'urn:ietf:wg:oauth:2.0:oob');
    auth.setCredentials({ refresh_token: refreshToken });
    this.api = searchconsole({ version: 'v1', auth, rootUrl: g.apiRootUrl });
  }

  /** Every row of one day grouped by `dimensions` (date first), page after page of ROW_LIMIT. */
  async day(date: string, dimensions: string[]): Promise<QueryPage> {
    const rows: ApiRow[] = [];
    let firstIncompleteDate: string | null = null;
    for (let startRow = 0; ; startRow += ROW_LIMIT) {
      const res = await this.api.searchanalytics.query(
        {
          siteUrl: this.siteUrl,
          requestBody: { startDate: date, endDate: date, dimensions, rowLimit: ROW_LIMIT, startRow, dataState: 'all', type: 'web' },
        },
        { timeout: this.o.timeoutMs, signal: this.o.signal },
      );
      const page = res.data.rows ?? [];
      for (const r of page) rows.push(r);
      firstIncompleteDate ??= res.data.metadata?.firstIncompleteDate ?? null;
      if (page.length < ROW_LIMIT) break;
    }
    return { rows, firstIncompleteDate };
  }
}

/** What an error from Google means for the connection. */
export interface GoogleFailure {
  /** `revoked`: the refresh token is refused (invalid_grant); `refused`: Search Console said no (403, 400, 404); `transient`: try again later. */
  kind: 'revoked' | 'refused' | 'transient';
  status: number | null;
  message: string;
}

export function classify(err: unknown): GoogleFailure {
  const e = err as { status?: number; response?: { status?: number; data?: unknown }; message?: string; code?: string | number };
  const status = e.response?.status ?? e.status ?? null;
  const data = e.response?.data as { error?: unknown; error_description?: string } | undefined;
  const oauthError = typeof data?.error === 'string' ? data.error : null;
  const apiMessage = typeof data?.error === 'object' && data.error !== null ? String((data.error as { message?: unknown }).message ?? '') : '';
  if (oauthError === 'invalid_grant' || oauthError === 'unauthorized_client' || status === 401) {
    return { kind: 'revoked', status, message: `Google refused the refresh token (${oauthError ?? status}${data?.error_description ? `: ${data.error_description}` : ''}); connect again to grant access` };
  }
  if (status === 400 || status === 403 || status === 404) {
    return { kind: 'refused', status, message: `Search Console answered ${status}${apiMessage ? `: ${apiMessage}` : ''}` };
  }
  const what = status ? `Search Console answered ${status}${apiMessage ? `: ${apiMessage}` : ''}` : `Search Console could not be reached (${e.code ?? e.message ?? 'error'})`;
  return { kind: 'transient', status, message: what };
}
