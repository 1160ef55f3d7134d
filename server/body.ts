import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { DomainError, ValidationFailed } from '../core/errors.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

const NO_BODY = Symbol('no body');
export type ParsedBody = unknown | typeof NO_BODY;
export { NO_BODY };

function hasBody(ctx: Context): boolean {
  const len = ctx.get('content-length');
  if (len !== '') return Number(len) > 0;
  return ctx.get('transfer-encoding') !== '';
}

/**
 * Reads a JSON request body: 415 when it is not JSON, 413 past 1 MiB (checked against the
 * declared length first, then while streaming), 400 invalid_json when it does not parse.
 */
export async function readJsonBody(ctx: Context): Promise<ParsedBody> {
  if (!hasBody(ctx)) return NO_BODY;
  if (!ctx.request.is('application/json', '+json')) {
    throw new DomainError(415, 'unsupported_media_type', 'Unsupported media type', 'Send the body as application/json.');
  }
  let text: string;
  try {
    text = await getRawBody(ctx.req, {
      limit: BODY_LIMIT_BYTES,
      length: ctx.get('content-length') || undefined,
      encoding: 'utf8',
    });
  } catch (err) {
    // raw-body stops reading and pauses the request when it gives up (e.g. past the limit of a
    // chunked body). Drain the rest, as body-parser does: a paused, half-read request wedges the
    // keep-alive connection and the client's next request on it hangs until the socket times out.
    ctx.req.resume();
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') {
      throw new DomainError(413, 'payload_too_large', 'Payload too large', 'The body is larger than 1 MiB.');
    }
    if (type === 'request.aborted') throw err;
    throw new DomainError(400, 'invalid_json', 'Invalid JSON', 'The body could not be read as UTF-8 JSON.');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new DomainError(400, 'invalid_json', 'Invalid JSON', 'The body is not valid JSON.');
  }
}

export function bodyRequired(): never {
  throw new ValidationFailed('A JSON body is required.', [{ in: 'body', path: '', message: 'is required' }]);
}
