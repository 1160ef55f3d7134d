import createClient from 'openapi-fetch';
import type { paths } from './generated/types.js';
import { Activity } from './resources/activity.js';
import { Deploys } from './resources/deploys.js';
import { Logs } from './resources/logs.js';
import type { ApiClient } from './resources/resource.js';
import { SiteChecks } from './resources/site-checks.js';
import { Webhooks } from './resources/webhooks.js';
import { Workspaces } from './resources/workspaces.js';
import { authMiddleware, retryingFetch, type FetchLike } from './transport.js';
import { VERSION } from './version.js';

export interface SiteHealthOptions {
  /** An API key (`sh_...`), sent as `X-API-Key`. */
  apiKey: string;
  /** Where the API runs; default `http://127.0.0.1:3000`. */
  baseUrl?: string;
  /** A fetch implementation (default: the global `fetch`), e.g. to add a proxy agent or for tests. */
  fetch?: FetchLike;
  /** Appended to `sitehealth-sdk/<version>` in the `User-Agent` header, e.g. `my-deployer/1.2`. */
  userAgent?: string;
  /**
   * How many times a retryable request is sent again after a network error, a timeout, 408,
   * 429 or 5xx (except 501); default 2. Retryable: GET, PUT, DELETE, and `POST /v1/deploys`.
   */
  maxRetries?: number;
  /** Time limit of each attempt in milliseconds; default 30000. */
  timeoutMs?: number;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';

/**
 * The sitehealth API client: one openapi-fetch client shared by one small object per resource.
 *
 * ```ts
 * const client = new SiteHealth({ apiKey: process.env.SITEHEALTH_API_KEY!, baseUrl: 'https://api.example.com' });
 * const { data } = await client.deploys.list({ workspace_id: workspaceId, limit: 10 });
 * ```
 */
export class SiteHealth {
  readonly deploys: Deploys;
  readonly siteChecks: SiteChecks;
  readonly workspaces: Workspaces;
  readonly logs: Logs;
  readonly activity: Activity;
  readonly webhooks: Webhooks;
  /**
   * The underlying openapi-fetch client (auth, user agent, timeout and retries included), for
   * calls the resource methods do not cover. It does not throw: check `error` / `response`.
   */
  readonly client: ApiClient;
  readonly baseUrl: string;

  constructor(options: SiteHealthOptions) {
    if (!options || typeof options.apiKey !== 'string' || options.apiKey === '') {
      throw new TypeError('SiteHealth: `apiKey` is required');
    }
    const baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    const maxRetries = options.maxRetries ?? 2;
    const timeoutMs = options.timeoutMs ?? 30_000;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new TypeError('SiteHealth: `maxRetries` must be an integer >= 0');
    if (!(timeoutMs > 0)) throw new TypeError('SiteHealth: `timeoutMs` must be a positive number');
    const baseFetch: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const userAgent = `sitehealth-sdk/${VERSION}${options.userAgent ? ` ${options.userAgent}` : ''}`;

    this.baseUrl = baseUrl;
    this.client = createClient<paths>({
      baseUrl,
      fetch: retryingFetch({ fetch: baseFetch, basePath: new URL(baseUrl).pathname.replace(/\/+$/, ''), maxRetries, timeoutMs }),
    });
    this.client.use(authMiddleware(options.apiKey, userAgent));

    this.deploys = new Deploys(this.client);
    this.siteChecks = new SiteChecks(this.client);
    this.workspaces = new Workspaces(this.client);
    this.logs = new Logs(this.client);
    this.activity = new Activity(this.client);
    this.webhooks = new Webhooks(this.client);
  }
}
