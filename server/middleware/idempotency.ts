import type { Context, Next } from 'koa';
import type { ValidateFunction } from 'ajv';
import type { Db } from '../../core/db/index.ts';
import { claimKey, idempotentRequest, rememberAnswer, releaseKey } from '../../core/idempotency/index.ts';
import { Conflict, ValidationFailed, nowMs } from '../../core/platform/index.ts';
import { NO_BODY } from '../body.ts';
import type { OperationState } from '../state.ts';

/**
 * A POST that declares the `Idempotency-Key` header (spec/common/errors.tsp `IdempotencyKey`):
 * with the header, the first request runs and its successful answer is kept for 24 hours; a
 * repeat gets that answer again (`Idempotent-Replayed: true`) and changes nothing. Runs after
 * validation, so a request that could not run claims no key, and after authentication: the API
 * key as sent seals the kept answer (core/idempotency), so it must be the one that was checked.
 */
export function idempotent(db: Db, valid: ValidateFunction) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const key = ctx.get('idempotency-key');
    // Kept per API key (spec/common/errors.tsp IdempotencyKey): a session's requests run as sent.
    if (key === '' || (ctx.state as OperationState).auth!.credential !== 'api_key') return next();
    if (!valid(key)) {
      throw new ValidationFailed('The Idempotency-Key header must be 1 to 255 printable ASCII characters.', [
        { in: 'header', path: '/Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' },
      ]);
    }
    const state = ctx.state as OperationState;
    const body = state.bodyText === NO_BODY ? '' : state.bodyText;
    const request = idempotentRequest({ apiKeyId: state.auth!.keyId, credential: ctx.get('x-api-key'), key, operationId: state.op.id, path: ctx.path, body, now: nowMs() });
    const claim = await claimKey(db, request);
    if (claim.kind === 'reused') {
      throw new Conflict('idempotency_key_reused', 'This Idempotency-Key was sent with a different request in the last 24 hours: use a new key for a new request.');
    }
    if (claim.kind === 'in_use') {
      throw new Conflict('idempotency_key_in_use', 'A request with this Idempotency-Key is still running: retry after it has finished.');
    }
    if (claim.kind === 'replay') {
      ctx.status = claim.status;
      ctx.set('Idempotent-Replayed', 'true');
      if (claim.response !== '') {
        ctx.type = 'application/json';
        ctx.body = claim.response;
      }
      return;
    }
    try {
      await next();
    } catch (err) {
      await releaseKey(db, request).catch(() => {});
      throw err;
    }
    if (ctx.status >= 200 && ctx.status < 300) await rememberAnswer(db, request, ctx.status, typeof ctx.body === 'string' ? ctx.body : '');
    else await releaseKey(db, request);
  };
}
