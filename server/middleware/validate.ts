import type { Context, Next } from 'koa';
import { describeFieldErrors, toFieldErrors, type Operation } from '../../core/contract/index.ts';
import { NotFound, ValidationFailed } from '../../core/platform/index.ts';
import { FORM, NO_BODY, bodyRequired, parseFormBody, parseJsonBody } from '../body.ts';
import type { OperationState } from '../state.ts';
import type { OperationValidators } from '../validation.ts';

/**
 * Path, query and body against the operation's schemas (defaults filled in, query values
 * coerced), then the ids the document marks as UUIDs in lower case, as they are stored.
 */
export function validateRequest(op: Operation, v: OperationValidators) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const state = ctx.state as OperationState;
    const { params, query } = state;
    // A malformed id in a path names nothing: 404, as for an id that does not exist.
    if (v.path && !v.path(params)) throw new NotFound();

    let body: unknown = undefined;
    const takesForm = op.def.requestBody?.content[FORM] !== undefined;
    if (state.bodyText !== NO_BODY) body = takesForm ? parseFormBody(ctx, state.bodyText) : parseJsonBody(ctx, state.bodyText);
    else if (v.bodyRequired) bodyRequired();

    const queryOk = v.query(query);
    const bodyOk = body === undefined || v.body!(body);
    if (!queryOk || !bodyOk) {
      const errors = [...(queryOk ? [] : toFieldErrors('query', v.query.errors)), ...(bodyOk ? [] : toFieldErrors('body', v.body!.errors))];
      throw new ValidationFailed(describeFieldErrors(errors), errors);
    }

    // PostgreSQL's uuid type ignores case but SQLite's text does not.
    for (const k of Object.keys(params)) params[k] = params[k].toLowerCase();
    for (const k of op.uuidFields.query) if (typeof query[k] === 'string') query[k] = query[k].toLowerCase();
    const fields = body as Record<string, unknown> | undefined;
    for (const k of op.uuidFields.body) if (typeof fields?.[k] === 'string') fields[k] = fields[k].toLowerCase();
    state.body = body;
    await next();
  };
}
