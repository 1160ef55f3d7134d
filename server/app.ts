import crypto from 'node:crypto';
import zlib from 'node:zlib';
import Koa, { type Context } from 'koa';
import compress from 'koa-compress';
import Router from '@koa/router';
import type { Logger } from 'pino';
import { isDatabaseUnavailable, type Db } from '../core/db/index.ts';
import { DomainError, NotFound, ServiceUnavailable, ValidationFailed, isUuid, nowMs, type Config } from '../core/platform/index.ts';
import { describeFieldErrors, documentText, listOperations, toFieldErrors, type Operation } from '../core/contract/index.ts';
import { RATE_LIMIT_WINDOW_MS, RateLimiter, WorkspaceGuard, authenticateKey, bindingAllows, looksLikeKey, type AuthContext, type VisibleWorkspace, type WorkspaceHint } from '../core/access/index.ts';
import { compileValidators } from './validation.ts';
import { problem, problemOf, sendProblem } from './problem.ts';
import { ClientAborted, NO_BODY, bodyRequired, parseJsonBody, readBodyText, tryParseJson } from './body.ts';
import { etag, serveDocs, serveVersioned } from './docs.ts';
import { discardRequestLog, type RequestLogSink } from './request-log.ts';
import { EXPOSITION_CONTENT_TYPE, MetricsUnauthorized, metricsGate } from '../core/metrics/index.ts';
import { HttpMetrics } from './metrics.ts';
import type { HandlerContext, HandlerMap, OperationId } from './handler-types.ts';

export interface AppOptions {
  db: Db;
  config: Config;
  log: Logger;
  handlers: HandlerMap;
  requestLog?: RequestLogSink;
}

interface State {
  requestId: string;
  startedAt: number;
  route: string | null;
  auth: AuthContext | null;
  /** The workspace the handler touched (first one), for the request log. */
  workspaceId: string | null;
  /** The workspace the request named, as authentication read it: logged under when visible. */
  named: VisibleWorkspace | null;
  errorMessage: string | null;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const UNAUTHORIZED = problem(401, 'unauthorized', 'Unauthorized', 'Send a valid API key in the X-API-Key header.');

/** Path resources whose row names the workspace a request is about (see authenticateKey). */
const HINT_TABLES: Array<[prefix: string, table: 'deploys' | 'webhooks']> = [
  ['/v1/deploys/{id}', 'deploys'],
  ['/v1/webhooks/{id}', 'webhooks'],
];

/** The workspace a request names, read before authentication so one query answers both. */
function workspaceHint(op: Operation, params: Record<string, string>, query: Record<string, unknown>, body: unknown): WorkspaceHint {
  const id = params.id;
  if (op.route.startsWith('/v1/workspaces/{id}') && isUuid(id)) return { workspaceId: id.toLowerCase() };
  const table = HINT_TABLES.find(([prefix]) => op.route.startsWith(prefix))?.[1];
  if (table && isUuid(id)) return { table, id: id.toLowerCase() };
  const q = query.workspace_id;
  if (typeof q === 'string' && isUuid(q)) return { workspaceId: q.toLowerCase() };
  const b = (body as { workspaceId?: unknown } | null | undefined)?.workspaceId;
  if (typeof b === 'string' && isUuid(b)) return { workspaceId: b.toLowerCase() };
  return null;
}

export function createApp(opts: AppOptions): Koa {
  const { db, config, log, handlers } = opts;
  const requestLog = opts.requestLog ?? discardRequestLog;
  const ops = listOperations();
  const validators = compileValidators(ops);
  const docJson = documentText();
  const docTag = etag(docJson);
  const limiter = config.rateLimitPerMinute > 0 ? new RateLimiter(db, config.rateLimitPerMinute) : null;
  const policy = `${config.rateLimitPerMinute};w=${RATE_LIMIT_WINDOW_MS / 1000}`;
  const metrics = new HttpMetrics();
  const allowMetrics = metricsGate(config.metricsToken);

  const app = new Koa({ proxy: false });
  const router = new Router();

  // Large lists compress well (a deploy list of 100 deploys with 500 changes each is tens of
  // megabytes of repetitive JSON): gzip or brotli when the client accepts it, above 1 KB.
  // Brotli at quality 4 compresses about as well as gzip -6 at a fraction of brotli's default cost.
  app.use(compress({ threshold: 1024, br: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } } }));

  // Outermost: request id, timing, the single error boundary, and the request log hand-off.
  app.use(async (ctx, next) => {
    const state = ctx.state as State;
    const incoming = ctx.get('x-request-id');
    state.requestId = REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    state.startedAt = performance.now();
    state.route = null;
    state.auth = null;
    state.workspaceId = null;
    state.named = null;
    state.errorMessage = null;
    ctx.set('x-request-id', state.requestId);
    ctx.set('x-content-type-options', 'nosniff');
    ctx.res.once('finish', () => finish(ctx));
    try {
      // Only origin-form targets (`/v1/...`): an absolute URL (`GET http://other.example/v1/...`)
      // is what a proxy receives, and routing it by its path alone would misread it.
      if (!ctx.req.url?.startsWith('/')) {
        throw new DomainError(400, 'bad_request', 'Bad request', 'The request target must be a path such as /v1/deploys; absolute URLs are not accepted.');
      }
      await next();
    } catch (err) {
      if (err instanceof DomainError) {
        if (err instanceof ServiceUnavailable) ctx.set('retry-after', String(err.retryAfterSeconds));
        sendProblem(ctx, problemOf(err));
      } else if (isDatabaseUnavailable(err)) {
        // Busy past the bounded wait, or unreachable: the transaction rolled back or never began.
        log.warn({ requestId: state.requestId, method: ctx.method, route: state.route, err }, 'database unavailable');
        const unavailable = new ServiceUnavailable();
        ctx.set('retry-after', String(unavailable.retryAfterSeconds));
        sendProblem(ctx, problem(503, unavailable.code, unavailable.title, unavailable.message));
      } else if (err instanceof ClientAborted) {
        // Nobody is listening for an answer; this is the client's doing, not a fault of ours.
        log.info({ requestId: state.requestId, method: ctx.method, route: state.route }, 'client aborted the request');
        ctx.status = 400;
      } else {
        log.error({ err, requestId: state.requestId, method: ctx.method, route: state.route }, 'unhandled error');
        sendProblem(ctx, problem(500, 'internal_error', 'Internal error', `Something failed on our side; quote request id ${state.requestId} when reporting it.`));
      }
    }
  });

  function finish(ctx: Context): void {
    const state = ctx.state as State;
    const elapsedMs = performance.now() - state.startedAt;
    metrics.observe(ctx.method, state.route, ctx.status, elapsedMs / 1000);
    const durationMs = Math.round(elapsedMs);
    log.info({ requestId: state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, durationMs }, 'request');
    if (!ctx.path.startsWith('/v1/') || state.route === '/v1/logs') return;
    const auth = state.auth;
    if (!auth) return; // 401s are not tied to a workspace
    // The workspace the handler checked; else the one the request named, if the caller can see
    // it (a 404 for someone else's workspace is not logged there); else the key's binding.
    const named = state.named && bindingAllows(auth, state.named.workspace.id) ? state.named.workspace.id : null;
    const workspaceId = state.workspaceId ?? named ?? auth.workspaceId;
    if (!workspaceId) return;
    requestLog.record({
      workspaceId,
      method: ctx.method,
      path: ctx.path,
      route: state.route,
      statusCode: ctx.status,
      durationMs,
      errorMessage: state.errorMessage,
      apiKeyId: auth.keyId,
      createdAt: nowMs(),
    });
  }

  // Endpoints outside /v1, without API keys. Each names its own route for the metrics; what
  // matches none of them stays `unmatched`.
  app.use(async (ctx, next) => {
    if (ctx.path.startsWith('/v1/') || ctx.path === '/v1') return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw new NotFound();
    const state = ctx.state as State;
    if (ctx.path === '/health') {
      state.route = '/health';
      ctx.body = { status: 'ok' };
      return;
    }
    if (ctx.path === '/metrics') {
      state.route = '/metrics';
      try {
        allowMetrics({ remoteAddress: ctx.req.socket.remoteAddress, authorization: ctx.get('authorization') });
      } catch (err) {
        if (err instanceof MetricsUnauthorized) ctx.set('www-authenticate', err.challenge);
        throw err;
      }
      ctx.type = EXPOSITION_CONTENT_TYPE;
      ctx.body = await metrics.text();
      return;
    }
    if (ctx.path === '/ready') {
      state.route = '/ready';
      try {
        await db.raw('select 1');
        ctx.body = { status: 'ok' };
      } catch {
        ctx.status = 503;
        ctx.body = { status: 'unavailable' };
      }
      return;
    }
    if (ctx.path === '/openapi.json') {
      state.route = '/openapi.json';
      serveVersioned(ctx, 'application/json', docJson, docTag);
      return;
    }
    if (serveDocs(ctx)) {
      state.route = '/docs';
      return;
    }
    throw new NotFound();
  });

  for (const op of ops) {
    router.register(op.koaPath, [op.method], (ctx) => runOperation(ctx as unknown as Context, op));
  }

  async function runOperation(ctx: Context, op: Operation): Promise<void> {
    const state = ctx.state as State;
    state.route = op.route;
    const v = validators.get(op.id)!;

    const rawKey = ctx.get('x-api-key');
    if (!looksLikeKey(rawKey)) {
      sendProblem(ctx, UNAUTHORIZED);
      return;
    }
    const params = { ...(ctx.params as Record<string, string>) };
    const query: Record<string, unknown> = { ...(ctx.query as Record<string, unknown>) };
    // The body is read before the key is looked up: the workspace it names lets one query
    // return the key, the caller's role in that workspace and the workspace itself.
    const text = v.body ? await readBodyText(ctx) : NO_BODY;
    const hint = workspaceHint(op, params, query, text === NO_BODY ? undefined : tryParseJson(text));

    const authenticated = await authenticateKey(db, rawKey, hint);
    if (!authenticated) {
      sendProblem(ctx, UNAUTHORIZED);
      return;
    }
    const { auth, prefetched } = authenticated;
    state.auth = auth;
    state.named = prefetched;
    if (limiter) {
      // Every authenticated request counts, whatever it answers; the headers go on all of them.
      const limit = await limiter.take(auth.keyId);
      ctx.set('ratelimit-limit', String(limit.limit));
      ctx.set('ratelimit-remaining', String(limit.remaining));
      ctx.set('ratelimit-reset', String(limit.resetSeconds));
      ctx.set('ratelimit-policy', policy);
      if (!limit.allowed) {
        ctx.set('retry-after', String(limit.resetSeconds));
        sendProblem(ctx, problem(429, 'rate_limited', 'Too many requests', `This API key may make ${limit.limit} requests a minute; retry in ${limit.resetSeconds} s.`));
        return;
      }
    }
    if (op.scope && !(auth.scopes as string[]).includes(op.scope)) {
      throw new DomainError(403, 'insufficient_scope', 'Insufficient scope', `This operation needs the "${op.scope}" scope.`);
    }

    // A malformed id in a path names nothing: 404, as for an id that does not exist.
    if (v.path && !v.path(params)) throw new NotFound();

    let body: unknown = undefined;
    if (text !== NO_BODY) body = parseJsonBody(ctx, text);
    else if (v.bodyRequired) bodyRequired();

    const queryOk = v.query(query);
    const bodyOk = body === undefined || v.body!(body);
    if (!queryOk || !bodyOk) {
      const errors = [...(queryOk ? [] : toFieldErrors('query', v.query.errors)), ...(bodyOk ? [] : toFieldErrors('body', v.body!.errors))];
      throw new ValidationFailed(describeFieldErrors(errors), errors);
    }

    // Ids are stored lower case; PostgreSQL's uuid type ignores case but SQLite's text does not.
    for (const k of Object.keys(params)) params[k] = params[k].toLowerCase();
    for (const k of ['workspace_id', 'before'] as const) if (typeof query[k] === 'string') query[k] = (query[k] as string).toLowerCase();
    const bodyWorkspace = (body as { workspaceId?: unknown } | undefined)?.workspaceId;
    if (typeof bodyWorkspace === 'string') (body as { workspaceId: string }).workspaceId = bodyWorkspace.toLowerCase();

    const access = new WorkspaceGuard(db, auth, prefetched, (id) => {
      state.workspaceId ??= id;
    });
    const handler = handlers[op.id as OperationId] as unknown as (c: HandlerContext<OperationId>) => Promise<{
      status: number;
      body?: unknown;
      headers?: Record<string, string>;
    }>;
    const reply = await handler({
      path: params as never,
      query: query as never,
      body: body as never,
      auth,
      access,
      db,
      config,
      log,
      requestId: state.requestId,
    });
    ctx.status = reply.status;
    if (reply.headers) ctx.set(reply.headers);
    if (reply.status !== 204) {
      // Serialized once here: given an object, Koa stringifies it to learn its length (asked by
      // koa-compress) and again to send it, which on a page of large deploys is seconds of CPU.
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(reply.body);
    }
  }

  app.use(router.routes());

  // Nothing matched: 405 with Allow when the path exists under another method, else 404.
  app.use(async (ctx) => {
    const match = router.match(ctx.path, ctx.method);
    const allowed = new Set<string>();
    for (const layer of match.path) for (const m of layer.methods) allowed.add(m);
    if (allowed.size > 0) {
      ctx.set('Allow', [...allowed].join(', '));
      throw new DomainError(405, 'method_not_allowed', 'Method not allowed', `${ctx.method} is not allowed here; use ${[...allowed].join(', ')}.`);
    }
    throw new NotFound();
  });

  return app;
}

