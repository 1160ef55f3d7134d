// A local stand-in for Google's OAuth 2.0 token endpoint and the Search Console API, speaking
// their real shapes: `POST /token` (form-encoded `authorization_code` and `refresh_token` grants;
// `{access_token, expires_in, refresh_token, scope, token_type}` or `{error: "invalid_grant",
// error_description}` with 400), and `POST /webmasters/v3/sites/{siteUrl}/searchAnalytics/query`
// (`{rows: [{keys, clicks, impressions, ctr, position}], responseAggregationType, metadata:
// {firstIncompleteDate}}`, `startRow`/`rowLimit` paging, errors as `{error: {code, message,
// status}}`). Rows come from a per-day table the test fills; the API's aggregation by the
// requested dimensions is done here, as Google does it.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubRow {
  date: string;
  page: string;
  query: string;
  country: string;
  device: 'DESKTOP' | 'MOBILE' | 'TABLET';
  clicks: number;
  impressions: number;
  position: number;
}

export interface StubQuery {
  siteUrl: string;
  authorization: string;
  body: { startDate: string; endDate: string; dimensions: string[]; rowLimit: number; startRow: number; dataState?: string };
}

export class GoogleStub {
  readonly clientId = `client-${crypto.randomUUID()}.apps.googleusercontent.com`;
  readonly clientSecret = `GOCSPX-${crypto.randomBytes(12).toString('base64url')}`;
  /** Authorization codes the consent screen "issued": code -> refresh token it grants. */
  readonly codes = new Map<string, string>();
  /** Refresh tokens granted (by an exchanged code) and not revoked. */
  readonly granted = new Set<string>();
  readonly revoked = new Set<string>();
  private readonly accessTokens = new Map<string, string>();
  readonly queries: StubQuery[] = [];
  readonly tokenRequests: Array<Record<string, string>> = [];
  /** Rows per property. */
  readonly data = new Map<string, StubRow[]>();
  /** `metadata.firstIncompleteDate` to answer with, or null. */
  firstIncompleteDate: string | null = null;
  /** The next n Search Analytics requests answer this status (Google's error shape). */
  failNext: { status: number; times: number; message: string } | null = null;
  private server!: http.Server;
  /** Rows by day, per rows array (rebuilt when a test replaces a property's rows). */
  private readonly byDay = new WeakMap<StubRow[], Map<string, StubRow[]>>();
  url = '';

  static async start(): Promise<GoogleStub> {
    const stub = new GoogleStub();
    stub.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d));
      req.on('end', () => stub.handle(req, body, res));
    });
    await new Promise<void>((resolve) => stub.server.listen(0, '127.0.0.1', resolve));
    stub.url = `http://127.0.0.1:${(stub.server.address() as AddressInfo).port}`;
    return stub;
  }

  /** What a user's consent at Google yields: a code for the redirect, granting `refreshToken`. */
  issueCode(refreshToken = `1//0${crypto.randomBytes(24).toString('base64url')}`): { code: string; refreshToken: string } {
    const code = `4/0${crypto.randomBytes(18).toString('base64url')}`;
    this.codes.set(code, refreshToken);
    return { code, refreshToken };
  }

  env(): Record<string, string> {
    return {
      GOOGLE_CLIENT_ID: this.clientId,
      GOOGLE_CLIENT_SECRET: this.clientSecret,
      GOOGLE_OAUTH_AUTH_URL: `${this.url}/o/oauth2/v2/auth`,
      GOOGLE_OAUTH_TOKEN_URL: `${this.url}/token`,
      SEARCH_CONSOLE_API_URL: this.url,
    };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private json(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
    res.end(JSON.stringify(body));
  }

  private handle(req: http.IncomingMessage, body: string, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    if (req.method === 'POST' && url.pathname === '/token') return this.token(body, res);
    const m = /^\/webmasters\/v3\/sites\/([^/]+)\/searchAnalytics\/query$/.exec(url.pathname);
    if (req.method === 'POST' && m) return this.query(decodeURIComponent(m[1]), req.headers.authorization ?? '', JSON.parse(body), res);
    this.json(res, 404, { error: { code: 404, message: `Not found: ${url.pathname}`, status: 'NOT_FOUND' } });
  }

  private token(raw: string, res: http.ServerResponse): void {
    const form = Object.fromEntries(new URLSearchParams(raw));
    this.tokenRequests.push(form);
    if (form.client_id !== this.clientId || form.client_secret !== this.clientSecret) {
      return this.json(res, 401, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });
    }
    const access = () => `ya29.${crypto.randomBytes(24).toString('base64url')}`;
    if (form.grant_type === 'authorization_code') {
      const refresh = this.codes.get(form.code ?? '');
      this.codes.delete(form.code ?? '');
      if (!refresh) return this.json(res, 400, { error: 'invalid_grant', error_description: 'Malformed auth code.' });
      this.granted.add(refresh);
      const token = access();
      this.accessTokens.set(token, refresh);
      return this.json(res, 200, { access_token: token, expires_in: 3599, refresh_token: refresh, scope: 'https://www.googleapis.com/auth/webmasters.readonly', token_type: 'Bearer' });
    }
    if (form.grant_type === 'refresh_token') {
      if (this.revoked.has(form.refresh_token ?? '') || !this.granted.has(form.refresh_token ?? '')) {
        return this.json(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
      }
      const token = access();
      this.accessTokens.set(token, form.refresh_token);
      return this.json(res, 200, { access_token: token, expires_in: 3599, scope: 'https://www.googleapis.com/auth/webmasters.readonly', token_type: 'Bearer' });
    }
    this.json(res, 400, { error: 'unsupported_grant_type', error_description: `Invalid grant_type: ${form.grant_type}` });
  }

  private query(siteUrl: string, authorization: string, body: StubQuery['body'], res: http.ServerResponse): void {
    this.queries.push({ siteUrl, authorization, body });
    const token = /^Bearer (.+)$/.exec(authorization)?.[1] ?? '';
    const refresh = this.accessTokens.get(token);
    if (!refresh || this.revoked.has(refresh)) {
      return this.json(res, 401, { error: { code: 401, message: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.', status: 'UNAUTHENTICATED' } });
    }
    if (this.failNext && this.failNext.times > 0) {
      this.failNext.times--;
      const status = this.failNext.status;
      return this.json(res, status, { error: { code: status, message: this.failNext.message, status: status === 403 ? 'PERMISSION_DENIED' : status === 429 ? 'RESOURCE_EXHAUSTED' : 'INTERNAL' } });
    }
    if (!this.data.has(siteUrl)) {
      return this.json(res, 403, { error: { code: 403, message: `User does not have sufficient permission for site '${siteUrl}'. See also: https://support.google.com/webmasters/answer/2451999.`, status: 'PERMISSION_DENIED' } });
    }
    const dims = body.dimensions.map((d) => d.toLowerCase()) as Array<keyof StubRow>;
    const groups = new Map<string, { keys: string[]; clicks: number; impressions: number; pw: number }>();
    const all = this.data.get(siteUrl)!;
    let days = this.byDay.get(all);
    if (!days) {
      days = new Map();
      for (const r of all) {
        const list = days.get(r.date);
        if (list) list.push(r);
        else days.set(r.date, [r]);
      }
      this.byDay.set(all, days);
    }
    const inRange = body.startDate === body.endDate ? (days.get(body.startDate) ?? []) : all;
    for (const r of inRange) {
      if (r.date < body.startDate || r.date > body.endDate) continue;
      const keys = dims.map((d) => String(r[d]));
      const k = JSON.stringify(keys);
      const g = groups.get(k) ?? { keys, clicks: 0, impressions: 0, pw: 0 };
      g.clicks += r.clicks;
      g.impressions += r.impressions;
      g.pw += r.position * r.impressions;
      groups.set(k, g);
    }
    const sorted = [...groups.values()].sort((a, b) => b.clicks - a.clicks || a.keys.join().localeCompare(b.keys.join()));
    const page = sorted.slice(body.startRow ?? 0, (body.startRow ?? 0) + (body.rowLimit ?? 1000));
    const out: Record<string, unknown> = { responseAggregationType: dims.includes('page') ? 'byPage' : 'byProperty' };
    if (page.length > 0) out.rows = page.map((g) => ({ keys: g.keys, clicks: g.clicks, impressions: g.impressions, ctr: g.impressions ? g.clicks / g.impressions : 0, position: g.impressions ? g.pw / g.impressions : 0 }));
    if (this.firstIncompleteDate && body.dataState === 'all' && dims.includes('date') && this.firstIncompleteDate <= body.endDate) {
      out.metadata = { firstIncompleteDate: this.firstIncompleteDate };
    }
    this.json(res, 200, out);
  }
}
