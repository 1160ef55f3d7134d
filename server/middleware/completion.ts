import type { Context } from 'koa';
import type { Logger } from 'pino';
import { bindingAllows } from '../../core/access/index.ts';
import { nowMs } from '../../core/platform/index.ts';
import type { HttpMetrics } from '../metrics.ts';
import type { RequestLogSink } from '../request-log.ts';
import type { OperationState, RequestState } from '../state.ts';

/**
 * What happens once a response has gone out: its metrics, its log line, and its row in the
 * workspace's request log (docs/api.md#request-logs) when the request's workspace is known.
 */
export function recordCompletion(o: { log: Logger; metrics: HttpMetrics; requestLog: RequestLogSink }) {
  return (ctx: Context): void => {
    const state = ctx.state as RequestState;
    const elapsedMs = performance.now() - state.startedAt;
    o.metrics.observe(ctx.method, state.route, ctx.status, elapsedMs / 1000);
    const durationMs = Math.round(elapsedMs);
    o.log.info({ requestId: state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, durationMs }, 'request');
    const auth = state.auth;
    if (!auth) return; // not an operation, or a 401: tied to no workspace
    if ((state as Partial<OperationState>).op?.requestLogged === false) return;
    // The workspace the handler checked; else the one the request named, if the caller can see
    // it (a 404 for someone else's workspace is not logged there); else the key's binding.
    const named = state.named && bindingAllows(auth, state.named.workspace.id) ? state.named.workspace.id : null;
    const workspaceId = state.workspaceId ?? named ?? auth.workspaceId;
    if (!workspaceId) return;
    o.requestLog.record({
      workspaceId,
      method: ctx.method,
      path: ctx.path,
      route: state.route,
      statusCode: ctx.status,
      durationMs,
      errorMessage: state.errorMessage,
      apiKeyId: auth.credential === 'api_key' ? auth.keyId : null,
      createdAt: nowMs(),
    });
  };
}
