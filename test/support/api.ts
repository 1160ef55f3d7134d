import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, createLogger, type Config } from '../../core/platform/index.ts';
import { bindModels, createDb, migrateLatest, type Db } from '../../core/db/index.ts';
import { createUser, setWorkspaceLimit, addMember, type Role, createApiKey, revokeApiKey, startSession, csrfTokenFor } from '../../core/access/index.ts';
import { createWorkspace } from '../../core/workspaces/index.ts';
import { startServer, type RunningServer } from '../../server/server.ts';
import type { RequestLogSink } from '../../server/request-log.ts';
import { freshDatabaseUrl } from './databases.ts';
import { responseViolations } from './contract.ts';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  key?: string | null;
  /** A person's session (TestApi.session): its cookie, and its CSRF token on anything but GET and HEAD. */
  session?: TestSession;
  body?: unknown;
  /** Sent as-is instead of JSON.stringify(body). */
  rawBody?: string | Buffer;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  /** Skip the contract check (only for deliberately malformed exchanges). */
  unchecked?: boolean;
  /** A 5xx is the expected answer (a database held busy on purpose); it is still contract-checked. */
  allow5xx?: boolean;
}

/** A signed-in session, as a browser holds it. */
export interface TestSession {
  id: string;
  token: string;
  csrfToken: string;
}

let emailCounter = 0;
export function uniqueEmail(tag = 'user'): string {
  emailCounter += 1;
  return `${tag}.${process.pid}.${Date.now()}.${emailCounter}@example.com`;
}

export const ALL_SCOPES = ['deploys', 'search', 'workspaces', 'webhooks', 'keys'] as const;

/**
 * A real server on an ephemeral port over a fresh database of one engine. Every response
 * that passes through `call` is checked against the generated OpenAPI document.
 */
export class TestApi {
  private constructor(
    readonly engine: 'sqlite' | 'postgres',
    readonly db: Db,
    readonly dbUrl: string,
    readonly server: RunningServer,
    /** The server's configuration (its SECRETS_KEY, for a test that seals as the server does). */
    readonly config: Config,
  ) {}

  static async start(engine: 'sqlite' | 'postgres', opts: { env?: Record<string, string>; requestLog?: RequestLogSink; port?: number } = {}): Promise<TestApi> {
    const url = await freshDatabaseUrl(engine);
    // Mail without SMTP_URL goes to files: a scratch folder, never the checkout's ./data/mail.
    const mailDir = path.join(os.tmpdir(), 'sitehealth-test-mail');
    const config = { ...loadConfig({ MAIL_DIR: mailDir, ...process.env, ...opts.env, DATABASE_URL: url }), host: '127.0.0.1' };
    // As server/main.ts does: the bounded wait comes from the configuration.
    const db = createDb(url, { busyWaitMs: config.dbBusyWaitMs });
    await migrateLatest(db);
    bindModels(db);
    const log = createLogger('test-server', process.env.TEST_LOG_LEVEL || 'silent');
    const server = await startServer({ db, config, log, port: opts.port ?? 0, requestLog: opts.requestLog });
    return new TestApi(engine, db, url, server, config);
  }

  get url(): string {
    return this.server.url;
  }

  /** Writes the request log batch now (the server batches it off the request path). */
  async flushLogs(): Promise<void> {
    await this.server.requestLog.flush?.();
  }

  async stop(): Promise<void> {
    await this.server.close();
    await this.db.destroy();
  }

  async call<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse<T>> {
    const url = new URL(path, this.url);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers['x-api-key'] = opts.key;
    if (opts.session) {
      headers.cookie ??= `sitehealth_session=${opts.session.token}`;
      if (method !== 'GET' && method !== 'HEAD') headers['x-csrf-token'] ??= opts.session.csrfToken;
    }
    let payload: string | Buffer | undefined;
    if (opts.rawBody !== undefined) payload = opts.rawBody;
    else if (opts.body !== undefined) {
      payload = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    // A redirect (the single sign-on callback's 302) is an answer to check, not to follow.
    const res = await fetch(url, { method, headers, body: payload as BodyInit | undefined, redirect: 'manual' });
    const text = await res.text();
    const contentType = res.headers.get('content-type') ?? '';
    let body: unknown = text;
    if (contentType.includes('json') && text) body = JSON.parse(text);
    if (text === '') body = undefined;
    if (!opts.unchecked) {
      const violations = responseViolations(method, url.pathname, res.status, contentType, body);
      assert.deepEqual(violations, [], `${method} ${url.pathname}${url.search} -> ${res.status} ${text.slice(0, 300)}`);
      assert.ok(res.headers.get('x-request-id'), 'every response carries x-request-id');
      if (res.status >= 500 && !opts.allow5xx) assert.fail(`server error: ${text}`);
    }
    return { status: res.status, headers: res.headers, body: body as T, text };
  }

  // ---- fixtures through the domain layer (what the operator CLI does) ----

  /** A user in a new account (or `accountId`). */
  async user(opts: { accountId?: string; email?: string } = {}): Promise<{ userId: string; accountId: string }> {
    const u = await createUser(this.db, opts.email ?? uniqueEmail(), opts.accountId);
    return { userId: u.userId, accountId: u.accountId };
  }

  async key(userId: string, opts: { scopes?: readonly string[]; workspaceId?: string | null } = {}): Promise<{ id: string; apiKey: string }> {
    const k = await createApiKey(this.db, { userId, scopes: opts.scopes ?? ALL_SCOPES, workspaceId: opts.workspaceId ?? null });
    return { id: k.id, apiKey: k.apiKey };
  }

  /** A session for the user, as a sign-in starts one (the sign-in itself is tested in test/sign-in.test.ts). */
  async session(userId: string): Promise<TestSession> {
    const { token, session } = await startSession(this.db, { userId, method: 'password', client: { ip: '127.0.0.1', userAgent: 'sitehealth-tests' } });
    return { id: session.id, token, csrfToken: csrfTokenFor(token) };
  }

  async revoke(keyId: string): Promise<void> {
    await revokeApiKey(this.db, keyId);
  }

  async workspace(owner: { userId: string; accountId: string }, input: { name?: string; website?: string } = {}): Promise<string> {
    const ws = await createWorkspace(this.db, {
      accountId: owner.accountId,
      userId: owner.userId,
      input: { name: input.name ?? `Site ${uniqueEmail('ws')}`, website: input.website ?? 'https://www.example.com' },
    });
    return ws.id;
  }

  async member(workspaceId: string, userId: string, role: Role): Promise<void> {
    await addMember(this.db, { workspaceId, userId, role });
  }

  async setLimit(accountId: string, n: number): Promise<void> {
    await setWorkspaceLimit(this.db, accountId, n);
  }

  /** An owner with a workspace and an all-scope unbound key. */
  async owner(): Promise<{ userId: string; accountId: string; workspaceId: string; apiKey: string; keyId: string }> {
    const u = await this.user();
    const workspaceId = await this.workspace(u);
    const k = await this.key(u.userId);
    return { ...u, workspaceId, apiKey: k.apiKey, keyId: k.id };
  }
}
