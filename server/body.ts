import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { DomainError, ValidationFailed } from '../core/platform/index.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export const NO_BODY = Symbol('no body');

function hasBody(ctx: Context): boolean {
  const len = ctx.get('content-length');
  if (len !== '') return Number(len) > 0;
  return ctx.get('transfer-encoding') !== '';
}

/** A client went away mid-request: nothing to answer, nothing wrong on our side. */
export class ClientAborted extends Error {
  constructor() {
    super('the client closed the connection before the request was complete');
    this.name = 'ClientAborted';
  }
}

/**
 * Reads the request body as UTF-8 text, up to 1 MiB or the operation's `x-body-limit` (413 past it, checked against the declared
 * length first, then while streaming). Returns NO_BODY when the request has none.
 */
export async function readBodyText(ctx: Context, limit = BODY_LIMIT_BYTES): Promise<string | typeof NO_BODY> {
  if (!hasBody(ctx)) return NO_BODY;
  try {
    return await getRawBody(ctx.req, { limit, length: ctx.get('content-length') || undefined, encoding: 'utf8' });
  } catch (err) {
    // raw-body stops reading and pauses the request when it gives up (e.g. past the limit of a
    // chunked body). Drain the rest, as body-parser does: a paused, half-read request wedges the
    // keep-alive connection and the client's next request on it hangs until the socket times out.
    ctx.req.resume();
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') throw new DomainError(413, 'payload_too_large', 'Payload too large', `The body is larger than ${limit === BODY_LIMIT_BYTES ? '1 MiB' : `${Math.round(limit / 1_000_000)} MB`}.`);
    if (type === 'request.aborted') throw new ClientAborted();
    throw new DomainError(400, 'invalid_json', 'Invalid JSON', 'The body could not be read as UTF-8 JSON.');
  }
}

/** A JSON value, or undefined when the text is not JSON (no error: used before authentication). */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** 415 unless the request says it is JSON; 400 invalid_json when it does not parse. */
export function parseJsonBody(ctx: Context, text: string): unknown {
  if (!ctx.request.is('application/json', '+json')) {
    throw new DomainError(415, 'unsupported_media_type', 'Unsupported media type', 'Send the body as application/json.');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new DomainError(400, 'invalid_json', 'Invalid JSON', 'The body is not valid JSON.');
  }
}

export const FORM = 'application/x-www-form-urlencoded';

/**
 * The fields of a form body, for the operations whose document declares one: URL-encoded, or
 * `multipart/form-data` (RFC 8058 lets mail clients send either); text fields only, the last of
 * a repeated name winning. 415 for any other media type.
 */
export function parseFormBody(ctx: Context, text: string): Record<string, string> {
  if (ctx.request.is(FORM)) return Object.fromEntries(new URLSearchParams(text));
  if (ctx.request.is('multipart/form-data')) {
    const boundary = /boundary="?([^";]+)"?/i.exec(ctx.get('content-type'))?.[1];
    if (!boundary) throw new DomainError(400, 'bad_request', 'Bad request', 'The multipart/form-data body has no boundary.');
    const out: Record<string, string> = {};
    for (const part of text.split(`--${boundary}`)) {
      const m = /^\r?\n([\s\S]*?)\r?\n\r?\n([\s\S]*?)\r?\n$/.exec(part);
      const name = m && /content-disposition:[^\r\n]*\bname="([^"]*)"/i.exec(m[1])?.[1];
      if (m && name) out[name] = m[2];
    }
    return out;
  }
  throw new DomainError(415, 'unsupported_media_type', 'Unsupported media type', `Send the body as ${FORM}.`);
}

export function bodyRequired(): never {
  throw new ValidationFailed('A JSON body is required.', [{ in: 'body', path: '', message: 'is required' }]);
}
