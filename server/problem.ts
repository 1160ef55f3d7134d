import type { Context } from 'koa';
import type { ProblemDocument } from '../core/platform/index.ts';

export { problem, problemOf, type ProblemDocument } from '../core/platform/index.ts';

/** Writes an RFC 9457 problem response; the one place that sets the problem media type. */
export function sendProblem(ctx: Context, doc: ProblemDocument): void {
  ctx.status = doc.status;
  ctx.type = 'application/problem+json';
  ctx.body = doc;
  // The request log keeps what went wrong, never more than the client was told.
  ctx.state.errorMessage = doc.detail;
}
