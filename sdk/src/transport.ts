// What sits under the openapi-fetch client: a middleware that adds the key and the user agent,
// and a fetch wrapper that adds the per-attempt timeout and the retries.
import type { Middleware } from 'openapi-fetch';
import { ConnectionError, parseRetryAfter } from './errors.js';

export type FetchLike = (input: Request, init?: RequestInit) => Promise<Response>;

/**
 * Sets the credential and `User-Agent` on every request: `X-API-Key`, or a session's cookie and,
 * on anything but GET and HEAD, its `X-CSRF-Token`.
 */
export function authMiddleware(credential: { apiKey: string } | { session: { token: string; csrfToken: string } }, userAgent: string): Middleware {
  return {
    onRequest({ request }) {
      if ('apiKey' in credential) request.headers.set('X-API-Key', credential.apiKey);
      else {
        request.headers.set('Cookie', `sitehealth_session=${credential.session.token}`);
        if (!['GET', 'HEAD'].includes(request.method.toUpperCase())) request.headers.set('X-CSRF-Token', credential.session.csrfToken);
      }
      request.headers.set('User-Agent', userAgent);
      return request;
    },
  };
}

/**
 * Requests that may be sent again without changing anything: the safe methods (GET, HEAD,
 * OPTIONS), and every POST, each sent with an `Idempotency-Key` (the caller's, or a new UUID for
 * the call): the API answers a repeat with the first answer and does nothing again. Updates and
 * deletes are not retried: a rotated secret or a delete could otherwise answer a confusing 404
 * or 409 for a success.
 */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isRetryable(method: string): boolean {
  const m = method.toUpperCase();
  return SAFE_METHODS.has(m) || m === 'POST';
}

/** The request with an `Idempotency-Key`: the one it has, or a new one for this call (a POST). */
export function withIdempotencyKey(request: Request): Request {
  if (request.method.toUpperCase() !== 'POST' || request.headers.has('idempotency-key')) return request;
  const headers = new Headers(request.headers);
  headers.set('idempotency-key', globalThis.crypto.randomUUID());
  return new Request(request, { headers });
}

/** A 409 saying the first request with this key is still running: worth waiting for. */
async function stillRunning(response: Response): Promise<boolean> {
  if (response.status !== 409) return false;
  try {
    return ((await response.clone().json()) as { code?: unknown }).code === 'idempotency_key_in_use';
  } catch {
    return false;
  }
}

/**
 * Answers worth another try: 429 (rate limited), 502, 503 and 504 (a gateway or the service
 * busy for a moment). A 500 is a bug on the server's side and 4xx answers will not change.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504;
}

export interface RetryOptions {
  fetch: FetchLike;
  maxRetries: number;
  timeoutMs: number;
}

const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** A `Retry-After` longer than this is not waited for: the error is thrown with `retryAfter` set. */
export const MAX_RETRY_AFTER_SECONDS = 60;

/** Exponential backoff with jitter: 0.5 s, 1 s, 2 s, ... up to 8 s, each times a random 0.5 to 1. */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_DELAY_MS, INITIAL_DELAY_MS * 2 ** retry);
  return Math.round(base * (0.5 + random() / 2));
}

/**
 * A fetch for openapi-fetch that bounds each attempt by `timeoutMs` and retries retryable
 * requests (see `isRetryable`) on network errors, timeouts, 429, 502, 503 and 504, at most
 * `maxRetries` times, with `backoffMs` between attempts. A `Retry-After` answer is honoured:
 * the next attempt waits exactly that long, and one asking for more than 60 s ends the retries
 * (the caller gets the error, with `retryAfter`). A network failure that is not retried becomes
 * a `ConnectionError`; an error response is returned as is (the caller turns it into a typed
 * error).
 */
export function retryingFetch(opts: RetryOptions): (input: Request) => Promise<Response> {
  return async (sent: Request) => {
    const request = withIdempotencyKey(sent);
    const url = new URL(request.url);
    const retryable = isRetryable(request.method);
    const maxRetries = retryable ? Math.max(0, opts.maxRetries) : 0;
    for (let retry = 0; ; retry++) {
      const last = retry >= maxRetries;
      const timeout = AbortSignal.timeout(opts.timeoutMs);
      const signal = AbortSignal.any([request.signal, timeout]);
      let response: Response;
      try {
        response = await opts.fetch(last ? request : request.clone(), { signal });
      } catch (err) {
        if (request.signal.aborted) throw err; // the caller cancelled: not ours to retry or wrap
        const timedOut = timeout.aborted;
        if (!last) {
          await sleep(backoffMs(retry));
          continue;
        }
        const what = timedOut ? `timed out after ${opts.timeoutMs} ms` : `failed: ${describe(err)}`;
        throw new ConnectionError(`${request.method} ${url.origin}${url.pathname} ${what}`, {
          code: timedOut ? 'timeout' : 'connection_error',
          cause: err,
        });
      }
      if (last || !(isRetryableStatus(response.status) || (await stillRunning(response)))) return response;
      const hint = parseRetryAfter(response.headers.get('retry-after'));
      if (hint !== null && hint > MAX_RETRY_AFTER_SECONDS) return response;
      await response.body?.cancel().catch(() => undefined);
      await sleep(hint === null ? backoffMs(retry) : Math.ceil(hint * 1000));
    }
  };
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    const detail = cause instanceof Error ? cause.message : '';
    return detail && detail !== err.message ? `${err.message} (${detail})` : err.message;
  }
  return String(err);
}
