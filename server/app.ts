import zlib from 'node:zlib';
import Koa, { type Context, type Next } from 'koa';
import compress from 'koa-compress';
import Router, { type RouterMiddleware } from '@koa/router';
import type { Logger } from 'pino';
import type { Db } from '../core/db/index.ts';
import { registerRowTables } from '../core/access/index.ts';
import { documentText, listOperations, type Operation } from '../core/contract/index.ts';
import { DomainError, NotFound, type Config } from '../core/platform/index.ts';
import { compileValidators } from './validation.ts';
import { etag } from './docs.ts';
import { dashboard } from './dashboard.ts';
import { discardRequestLog, type RequestLogSink } from './request-log.ts';
import { HttpMetrics } from './metrics.ts';
import { ROW_RESOURCES } from './resources.ts';
import { requestContext } from './middleware/request-context.ts';
import { recordCompletion } from './middleware/completion.ts';
import { serviceRoutes } from './middleware/service-routes.ts';
import { authenticate, readBody, requireCredentialShape, requireScope } from './middleware/authenticate.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { validateRequest } from './middleware/validate.ts';
import { dispatch, guardWorkspaces } from './middleware/dispatch.ts';
import { idempotent } from './middleware/idempotency.ts';
import { verifySignature } from './middleware/signature.ts';
import type { AnyHandler, HandlerMap } from './handler-types.ts';
import { Mailer } from '../core/mail/index.ts';
import type { OperationState } from './state.ts';

export interface AppOptions {
  db: Db;
  config: Config;
  log: Logger;
  handlers: HandlerMap;
  requestLog?: RequestLogSink;
  mailer?: Mailer;
}

/**
 * The HTTP app: every API route comes from the generated document, and each operation runs
 * the same pipeline, configured by what the operation declares there (`x-scope`,
 * `x-workspace`): key shape, body, authentication, rate limit, scope, validation, workspace
 * guard, handler. No route or field name is written here.
 */
export function createApp(opts: AppOptions): Koa {
  const { db, config, log, handlers } = opts;
  const ops = listOperations();
  const validators = compileValidators(ops);
  const docJson = documentText();
  const metrics = new HttpMetrics();
  const tableOf = new Map(ROW_RESOURCES.map((r) => [r.resource, r.table]));
  for (const op of ops) {
    const of = op.workspace?.of;
    if (of !== undefined && !tableOf.has(of)) throw new Error(`${op.id}: x-workspace names ${of}, which server/resources.ts does not list`);
  }
  registerRowTables(tableOf.values());

  const app = new Koa({ proxy: false });
  // Large lists compress well (a deploy list of 100 deploys with 500 changes each is tens of
  // megabytes of repetitive JSON): gzip or brotli when the client accepts it, above 1 KB.
  // Brotli at quality 4 compresses about as well as gzip -6 at a fraction of brotli's default cost.
  app.use(compress({ threshold: 1024, br: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } } }));
  app.use(requestContext(log, recordCompletion({ log, metrics, requestLog: opts.requestLog ?? discardRequestLog })));
  app.use(serviceRoutes({ db, metrics, metricsToken: config.metricsToken, docJson, docTag: etag(docJson) }));
  app.use(dashboard());

  const router = new Router();
  const authenticated = authenticate(db, tableOf);
  const limited = rateLimit(db, config.rateLimitPerMinute);
  const guarded = guardWorkspaces(db);
  // One mailer per app (core/mail): SMTP_URL, else .eml files under MAIL_DIR.
  const mail = opts.mailer ?? new Mailer(config.mail, log);
  for (const op of ops) {
    // The one place a handler loses its operation's types: the map checks them per operation.
    const handler = handlers[op.id] as unknown as AnyHandler;
    const v = validators.get(op.id)!;
    if (op.signature) {
      // Authenticated by the delivery's signature (`x-signature`), not a key: no scope, no key's
      // rate limit, no workspace guard; the signature is checked before the body is parsed.
      router.register(op.koaPath, [op.method], [
        startOperation(op),
        readBody,
        verifySignature(db, config, op),
        validateRequest(op, v),
        dispatch(handler, { db, config, log, mail }),
      ] as RouterMiddleware[]);
      continue;
    }
    if (op.isPublic) {
      // No key (`x-public`): the request's own credential (a token in its body or query) is the handler's to check.
      router.register(op.koaPath, [op.method], [startOperation(op), readBody, validateRequest(op, v), dispatch(handler, { db, config, log, mail })] as RouterMiddleware[]);
      continue;
    }
    router.register(op.koaPath, [op.method], [
      startOperation(op),
      requireCredentialShape,
      readBody,
      authenticated,
      limited,
      requireScope(op),
      validateRequest(op, v),
      guarded,
      ...(v.idempotencyKey ? [idempotent(db, v.idempotencyKey)] : []),
      dispatch(handler, { db, config, log, mail }),
    ] as RouterMiddleware[]);
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

/** The operation a request matched, and copies of its path and query for the pipeline to refine. */
function startOperation(op: Operation) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const state = ctx.state as OperationState;
    state.route = op.route;
    state.op = op;
    state.params = { ...(ctx.params as Record<string, string>) };
    state.query = { ...(ctx.query as Record<string, unknown>) };
    await next();
  };
}
