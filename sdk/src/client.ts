import createFetchClient from 'openapi-fetch';
import type { paths } from './generated/types.js';
import { Activity } from './resources/activity.js';
import { Deploys } from './resources/deploys.js';
import { Logs } from './resources/logs.js';
import type { ApiClient } from './resources/resource.js';
import { SiteChecks } from './resources/site-checks.js';
import { Webhooks } from './resources/webhooks.js';
import { Connections } from './resources/connections.js';
import { SiteCrawls } from './resources/site-crawls.js';
import { ApiKeys } from './resources/api-keys.js';
import { InvitationAcceptance, Invitations, Members } from './resources/members.js';
import { SingleSignOn, SsoSignIn } from './resources/sso.js';
import { CurrentUser, EmailVerification, PasswordReset, Sessions, TwoStepSignIn, type SessionCredential } from './resources/sessions.js';
import { Workspaces } from './resources/workspaces.js';
import { PasskeySignIn, Passkeys } from './resources/passkeys.js';
import { SearchPerformance } from './resources/search-performance.js';
import { SearchConsole, SearchConsoleCallback } from './resources/search-console.js';
import { Notifications, Reports, Unsubscribe } from './resources/digests.js';
import { authMiddleware, retryingFetch, type FetchLike } from './transport.js';
import { VERSION } from './version.js';

export interface SiteHealthOptions {
  /** An API key (`sh_...`), sent as `X-API-Key`. Either this or `session` is required. */
  apiKey?: string;
  /**
   * A person's session instead of a key (see `sessionFromSignIn`): sent as the session cookie,
   * with its CSRF token on every request that changes something.
   */
  session?: SessionCredential;
  /** Where the API runs; default `http://127.0.0.1:3000`. */
  baseUrl?: string;
  /** A fetch implementation (default: the global `fetch`), e.g. to add a proxy agent or for tests. */
  fetch?: FetchLike;
  /** Appended to `sitehealth-sdk/<version>` in the `User-Agent` header, e.g. `my-deployer/1.2`. */
  userAgent?: string;
  /**
   * How many times a retryable request is sent again after a network error, a timeout, 429,
   * 502, 503 or 504; default 2. Retryable: GET (and HEAD, OPTIONS) and every POST, which is
   * sent with an `Idempotency-Key` so that a repeat does nothing twice. PUT and DELETE are not.
   */
  maxRetries?: number;
  /** Time limit of each attempt in milliseconds; default 30000. */
  timeoutMs?: number;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';

/** The options of `createClient` (and `new SiteHealth`). */
export type ClientOptions = SiteHealthOptions;

/**
 * The sitehealth API client: one openapi-fetch client (`raw`) shared by one small object per
 * resource. `createClient(options)` is the same thing.
 *
 * ```ts
 * const client = new SiteHealth({ apiKey: process.env.SITEHEALTH_API_KEY!, baseUrl: 'https://api.example.com' });
 * const { data } = await client.deploys.list({ workspace_id: workspaceId, limit: 10 });
 * // Every method takes per-call options last, and its result carries `lastResponse`:
 * const deploy = await client.deploys.get(id, { timeoutMs: 5_000, signal: controller.signal });
 * console.log(deploy.lastResponse.requestId, deploy.lastResponse.rateLimit?.remaining);
 * ```
 */
export class SiteHealth {
  readonly deploys: Deploys;
  readonly siteChecks: SiteChecks;
  readonly siteCrawls: SiteCrawls;
  readonly workspaces: Workspaces;
  readonly logs: Logs;
  readonly activity: Activity;
  readonly webhooks: Webhooks;
  readonly connections: Connections;
  readonly apiKeys: ApiKeys;
  readonly members: Members;
  readonly invitations: Invitations;
  readonly invitationAcceptance: InvitationAcceptance;
  /** Your own digest settings per workspace. */
  readonly notifications: Notifications;
  /** A digest's content for any period, as JSON or HTML. */
  readonly reports: Reports;
  /** A digest's unsubscribe link, without a key. */
  readonly unsubscribe: Unsubscribe;
  readonly sessions: Sessions;
  readonly currentUser: CurrentUser;
  readonly passwordReset: PasswordReset;
  readonly emailVerification: EmailVerification;
  readonly passkeys: Passkeys;
  readonly passkeySignIn: PasskeySignIn;
  readonly singleSignOn: SingleSignOn;
  readonly ssoSignIn: SsoSignIn;
  readonly twoStepSignIn: TwoStepSignIn;
  readonly searchPerformance: SearchPerformance;
  readonly searchConsole: SearchConsole;
  readonly searchConsoleCallback: SearchConsoleCallback;
  /**
   * The typed openapi-fetch client underneath (auth, user agent, timeout and retries included),
   * for every path of the API: `client.raw.GET('/v1/deploys/{id}', { params: { path: { id } } })`.
   * It does not throw: check `error` / `response`.
   */
  readonly raw: ApiClient;
  readonly baseUrl: string;

  constructor(options: SiteHealthOptions) {
    const hasKey = typeof options?.apiKey === 'string' && options.apiKey !== '';
    const hasSession = typeof options?.session?.token === 'string' && typeof options.session.csrfToken === 'string';
    if (!hasKey && !hasSession) {
      throw new TypeError('SiteHealth: `apiKey` is required (or a `session`)');
    }
    const baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    const maxRetries = options.maxRetries ?? 2;
    const timeoutMs = options.timeoutMs ?? 30_000;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new TypeError('SiteHealth: `maxRetries` must be an integer >= 0');
    if (!(timeoutMs > 0)) throw new TypeError('SiteHealth: `timeoutMs` must be a positive number');
    const baseFetch: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const userAgent = `sitehealth-sdk/${VERSION}${options.userAgent ? ` ${options.userAgent}` : ''}`;

    if (!/^https?:\/\//i.test(baseUrl)) throw new TypeError(`SiteHealth: \`baseUrl\` must be an http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
    this.baseUrl = baseUrl;
    this.raw = createFetchClient<paths>({
      baseUrl,
      fetch: retryingFetch({ fetch: baseFetch, maxRetries, timeoutMs }),
    });
    this.raw.use(authMiddleware(hasKey ? { apiKey: options.apiKey! } : { session: options.session! }, userAgent));

    const transport = { client: this.raw, fetch: baseFetch, maxRetries, timeoutMs };
    this.deploys = new Deploys(transport);
    this.siteChecks = new SiteChecks(transport);
    this.siteCrawls = new SiteCrawls(transport);
    this.workspaces = new Workspaces(transport);
    this.logs = new Logs(transport);
    this.activity = new Activity(transport);
    this.webhooks = new Webhooks(transport);
    this.connections = new Connections(transport);
    this.apiKeys = new ApiKeys(transport);
    this.members = new Members(transport);
    this.invitations = new Invitations(transport);
    this.invitationAcceptance = new InvitationAcceptance(transport);
    this.notifications = new Notifications(transport);
    this.reports = new Reports(transport);
    this.unsubscribe = new Unsubscribe(transport);
    this.sessions = new Sessions(transport);
    this.currentUser = new CurrentUser(transport);
    this.passwordReset = new PasswordReset(transport);
    this.emailVerification = new EmailVerification(transport);
    this.passkeys = new Passkeys(transport);
    this.passkeySignIn = new PasskeySignIn(transport);
    this.singleSignOn = new SingleSignOn(transport);
    this.ssoSignIn = new SsoSignIn(transport);
    this.twoStepSignIn = new TwoStepSignIn(transport);
    this.searchPerformance = new SearchPerformance(transport);
    this.searchConsole = new SearchConsole(transport);
    this.searchConsoleCallback = new SearchConsoleCallback(transport);
  }
}

/**
 * Creates the sitehealth API client (named as openapi-fetch names its own). The returned
 * client has one object per resource, each method returning the response's data or throwing a
 * typed `SiteHealthError`, and `raw`, the typed openapi-fetch client, for every path.
 *
 * ```ts
 * import { createClient } from '@sitehealth/sdk';
 * const client = createClient({ baseUrl: 'https://sitehealth.example.com', apiKey: process.env.SITEHEALTH_API_KEY! });
 * const deploy = await client.deploys.get(id);
 * ```
 */
export function createClient(options: ClientOptions): SiteHealth {
  return new SiteHealth(options);
}
