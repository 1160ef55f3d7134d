// What sits under the openapi-fetch client: a middleware that adds the key and the user agent,
// and a fetch wrapper that adds the per-attempt timeout and the retries.
import type { Middleware } from 'openapi-fetch';
import { ConnectionError, parseRetryAfter } from './errors.js';

export type FetchLike = (input: Request, init?: RequestInit) => Promise<Response>;

/** Sets `X-API-Key` and `User-Agent` on every request. */
export function authMiddleware(apiKey: string, userAgent: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('X-API-Key', apiKey);
      request.headers.set('User-Agent', userAgent);
      return request;
    },
  };
}

/**
 * Requests that may be sent again without changing the outcome. GET, PUT and DELETE are
 * idempotent by HTTP; of the POSTs only `POST /v1/deploys` is (the same workspace, environment
 * and commitSha update the deploy they recorded). Creating a workspace or a webhook, testing or
 * redelivering a webhook are never retried: a lost response could otherwise create twice.
 */
const IDEMPOTENT_POSTS = new Set(['/v1/deploys']);

export function isRetryable(method: string, pathname: string): boolean {
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD' || m === 'PUT' || m === 'DELETE' || m === 'OPTIONS') return true;
  return m === 'POST' && IDEMPOTENT_POSTS.has(pathname.replace(/\/+$/, ''));
}

/** 429 and 5xx answers worth another try; 501 and 505 will not change. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501 && status !== 505);
}

export interface RetryOptions {
  fetch: FetchLike;
  /** Pathname prefix of the base URL, stripped before matching `IDEMPOTENT_POSTS`. */
  basePath: string;
  maxRetries: number;
  timeoutMs: number;
}

const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
const MAX_RETRY_AFTER_MS = 60_000;

/** Exponential backoff with jitter (0.5 s, 1 s, 2 s, ... up to 8 s, each times 0.5 to 1). */
export function backoffMs(retry: number): number {
  const base = Math.min(MAX_DELAY_MS, INITIAL_DELAY_MS * 2 ** retry);
  return Math.round(base * (0.5 + Math.random() / 2));
}

/**
 * A fetch for openapi-fetch that bounds each attempt by `timeoutMs` and retries retryable
 * requests on network errors, timeouts, 408, 429 and 5xx (honouring `Retry-After` up to 60 s),
 * at most `maxRetries` times. A network failure that is not retried becomes a `ConnectionError`;
 * an error response is returned as is (the caller turns it into a typed error).
 */
export function retryingFetch(opts: RetryOptions): (input: Request) => Promise<Response> {
  return async (request: Request) => {
    const url = new URL(request.url);
    const path = url.pathname.startsWith(opts.basePath) ? url.pathname.slice(opts.basePath.length) || '/' : url.pathname;
    const retryable = isRetryable(request.method, path);
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
      if (last || !isRetryableStatus(response.status)) return response;
      const hint = parseRetryAfter(response.headers.get('retry-after'));
      await response.body?.cancel().catch(() => undefined);
      await sleep(hint === null ? backoffMs(retry) : Math.min(hint * 1000, MAX_RETRY_AFTER_MS));
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
