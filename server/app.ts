import crypto from 'node:crypto';
import Koa, { type Context } from 'koa';
import Router from '@koa/router';
import type { Logger } from 'pino';
import type { Db } from '../core/db/connection.ts';
import type { Config } from '../core/config.ts';
import { DomainError, ValidationFailed } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { nowMs } from '../core/clock.ts';
import { listOperations, loadDocument, type OpenApiDocument, type Operation } from './openapi.ts';
import { compileValidators, toFieldErrors } from './validation.ts';
import { problem, sendProblem } from './problem.ts';
import { KeyAuthenticator, type Auth } from './auth.ts';
import { Access } from './access.ts';
import { NO_BODY, bodyRequired, readJsonBody } from './body.ts';
import { serveDocs } from './docs.ts';
import { discardRequestLog, type RequestLogEntry, type RequestLogSink } from './request-log.ts';
import { workspaceOfPath } from '../core/request-logs/path-workspace.ts';
import type { HandlerContext, HandlerMap, OperationId } from './handler-types.ts';

export interface AppOptions {
  db: Db;
  config: Config;
  log: Logger;
  handlers: HandlerMap;
  requestLog?: RequestLogSink;
  document?: OpenApiDocument;
}

interface State {
  requestId: string;
  startedAt: number;
  route: string | null;
  auth: Auth | null;
  workspaceId: string | null;
  /** A workspace id named by the request that is logged under only if the caller can see it. */
  workspaceCandidate: string | null;
  errorMessage: string | null;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const UNAUTHORIZED = problem(401, 'unauthorized', 'Unauthorized', 'Send a valid API key in the X-API-Key header.');

function notFound(): DomainError {
  return new DomainError(404, 'not_found', 'Not found', 'The resource does not exist or you cannot see it.');
}

export function createApp(opts: AppOptions): Koa {
  const { db, config, log, handlers } = opts;
  const requestLog = opts.requestLog ?? discardRequestLog;
  const doc = opts.document ?? loadDocument();
  const ops = listOperations(doc);
  const validators = compileValidators(doc, ops);
  const keys = new KeyAuthenticator(db);
  const docJson = JSON.stringify(doc);

  const app = new Koa({ proxy: false });
  const router = new Router();

  // Outermost: request id, timing, the single error boundary, and the request log hand-off.
  app.use(async (ctx, next) => {
    const state = ctx.state as State;
    const incoming = ctx.get('x-request-id');
    state.requestId = REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    state.startedAt = performance.now();
    state.route = null;
    state.auth = null;
    state.workspaceId = null;
    state.workspaceCandidate = null;
    state.errorMessage = null;
    ctx.set('x-request-id', state.requestId);
    ctx.set('x-content-type-options', 'nosniff');
    ctx.res.once('finish', () => finish(ctx));
    try {
      await next();
    } catch (err) {
      if (err instanceof DomainError) {
        sendProblem(ctx, problem(err.status, err.code, err.title, err.message, err.errors));
      } else {
        log.error({ err, requestId: state.requestId, method: ctx.method, path: ctx.path }, 'unhandled error');
        sendProblem(ctx, problem(500, 'internal_error', 'Internal error', `Something failed on our side; quote request id ${state.requestId} when reporting it.`));
      }
    }
  });

  function finish(ctx: Context): void {
    const state = ctx.state as State;
    const durationMs = Math.round(performance.now() - state.startedAt);
    log.info({ requestId: state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, durationMs }, 'request');
    if (!ctx.path.startsWith('/v1/') || state.route === '/v1/logs') return;
    const auth = state.auth;
    if (!auth) return; // 401s are not tied to a workspace
    const createdAt = nowMs();
    const entry = (workspaceId: string): RequestLogEntry => ({
      workspaceId,
      method: ctx.method,
      path: ctx.path,
      route: state.route,
      statusCode: ctx.status,
      durationMs,
      errorMessage: state.errorMessage,
      apiKeyId: auth.keyId,
      createdAt,
    });
    const known = state.workspaceId ?? auth.workspaceId;
    if (known) return requestLog.record(entry(known));
    // A workspace named by the query or body, else by the path's resource (a request that
    // failed before its handler looked). Only a workspace the caller can see is "known": a 404
    // for someone else's is not logged there.
    const params = (ctx as unknown as { params?: Record<string, string> }).params;
    const named = state.workspaceCandidate ? Promise.resolve(state.workspaceCandidate) : workspaceOfPath(db, state.route, params);
    const later = named
      .then(async (candidate) => {
        if (!candidate) return null;
        await new Access(db, auth, () => {}).workspace(candidate);
        return entry(candidate);
      })
      .catch(() => null);
    if (requestLog.recordLater) requestLog.recordLater(later);
    else void later.then((e) => e && requestLog.record(e));
  }

  // Unauthenticated endpoints outside /v1.
  app.use(async (ctx, next) => {
    if (ctx.path.startsWith('/v1/') || ctx.path === '/v1') return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw notFound();
    if (ctx.path === '/health') {
      ctx.body = { status: 'ok' };
      return;
    }
    if (ctx.path === '/ready') {
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
      ctx.type = 'application/json';
      ctx.body = docJson;
      return;
    }
    if (serveDocs(ctx)) return;
    throw notFound();
  });

  for (const op of ops) {
    router.register(op.koaPath, [op.method], (ctx) => runOperation(ctx as unknown as Context, op));
  }

  async function runOperation(ctx: Context, op: Operation): Promise<void> {
    const state = ctx.state as State;
    state.route = op.route;
    const v = validators.get(op.id)!;

    const auth = await keys.authenticate(ctx.get('x-api-key') || undefined);
    if (!auth) {
      sendProblem(ctx, UNAUTHORIZED);
      return;
    }
    state.auth = auth;
    // Named before the scope check, so a 403 for a workspace the caller sees is logged there too.
    const namedInQuery = (ctx.query as Record<string, unknown>).workspace_id;
    if (typeof namedInQuery === 'string' && isUuid(namedInQuery)) state.workspaceCandidate = namedInQuery.toLowerCase();
    if (op.scope && !(auth.scopes as string[]).includes(op.scope)) {
      throw new DomainError(403, 'insufficient_scope', 'Insufficient scope', `This operation needs the "${op.scope}" scope.`);
    }

    // A malformed id in a path names nothing: 404, as for an id that does not exist.
    const path = { ...(ctx.params as Record<string, string>) };
    if (v.path && !v.path(path)) throw notFound();

    const query: Record<string, unknown> = { ...(ctx.query as Record<string, unknown>) };

    let body: unknown = undefined;
    if (v.body) {
      const parsed = await readJsonBody(ctx);
      if (parsed === NO_BODY) {
        if (v.bodyRequired) bodyRequired();
      } else {
        body = parsed;
        const wid = (parsed as { workspaceId?: unknown } | null)?.workspaceId;
        if (typeof wid === 'string' && isUuid(wid)) state.workspaceCandidate = wid.toLowerCase();
      }
    }

    const queryOk = v.query(query);
    const bodyOk = body === undefined || v.body!(body);
    if (!queryOk || !bodyOk) {
      const errors = [
        ...(queryOk ? [] : toFieldErrors('query', v.query.errors)),
        ...(bodyOk ? [] : toFieldErrors('body', v.body!.errors)),
      ];
      const first = errors[0];
      const detail = first ? `${first.in} ${first.path || '(root)'} ${first.message}` : 'The request is invalid.';
      throw new ValidationFailed(errors.length > 1 ? `${detail} (and ${errors.length - 1} more)` : detail, errors);
    }

    // Ids are stored lower case; PostgreSQL's uuid type ignores case but SQLite's text does not.
    for (const k of Object.keys(path)) path[k] = path[k].toLowerCase();
    for (const k of ['workspace_id', 'before'] as const) if (typeof query[k] === 'string') query[k] = (query[k] as string).toLowerCase();
    if (body && typeof body === 'object' && typeof (body as { workspaceId?: unknown }).workspaceId === 'string') {
      (body as { workspaceId: string }).workspaceId = (body as { workspaceId: string }).workspaceId.toLowerCase();
    }

    const access = new Access(db, auth, (id) => {
      state.workspaceId ??= id;
    });
    const handler = handlers[op.id as OperationId] as unknown as (c: HandlerContext<OperationId>) => Promise<{
      status: number;
      body?: unknown;
      headers?: Record<string, string>;
    }>;
    const reply = await handler({
      path: path as never,
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
    if (reply.status !== 204) ctx.body = reply.body;
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
    throw notFound();
  });

  return app;
}
