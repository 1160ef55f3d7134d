import crypto from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../../core/db/index.ts';
import { DomainError, ServiceUnavailable } from '../../core/platform/index.ts';
import { ClientAborted } from '../body.ts';
import { problem, problemOf, sendProblem } from '../problem.ts';
import type { RequestState } from '../state.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The outermost middleware: the request id, the headers every response carries, origin-form
 * targets only, and the one error boundary that turns every failure into a problem document
 * (docs/api.md#errors). `onFinish` hears of every response once it has been sent.
 */
export function requestContext(log: Logger, onFinish: (ctx: Context) => void) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const state = ctx.state as RequestState;
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
    ctx.res.once('finish', () => onFinish(ctx));
    try {
      // Only origin-form targets (a path): an absolute URL (`GET http://other.example/...`) is
      // what a proxy receives, and routing it by its path alone would misread it.
      if (!ctx.req.url?.startsWith('/')) {
        throw new DomainError(400, 'bad_request', 'Bad request', 'The request target must be a path, not an absolute URL.');
      }
      await next();
    } catch (err) {
      if (err instanceof DomainError) {
        if (err.retryAfter !== null) ctx.set('retry-after', String(err.retryAfter));
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
  };
}
