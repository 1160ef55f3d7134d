import type { Context } from 'koa';
import type { FieldError } from '../core/platform/index.ts';

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldError[];
}

export function problem(status: number, code: string, title: string, detail: string, errors?: FieldError[]): ProblemDocument {
  const doc: ProblemDocument = { type: `/problems/${code}`, title, status, detail, code };
  if (errors && errors.length) doc.errors = errors;
  return doc;
}

/** Writes an RFC 9457 problem response; the one place that sets the problem media type. */
export function sendProblem(ctx: Context, doc: ProblemDocument): void {
  ctx.status = doc.status;
  ctx.type = 'application/problem+json';
  ctx.body = doc;
  // The request log keeps what went wrong, never more than the client was told.
  ctx.state.errorMessage = doc.detail;
}
