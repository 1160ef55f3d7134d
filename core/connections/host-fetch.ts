import { FetchError, guardedFetch } from '../net/index.ts';

// The one way a connection reaches its host: the WHATWG `fetch` that @octokit/rest and
// @gitbeaker/rest are given, over core/net's guarded fetch (every hop's address checked, the
// connection pinned to it), with the retries a host's answers call for.

export interface HostFetchOptions {
  allowPrivateNetwork: boolean;
  /** One attempt, everything included. */
  timeoutMs: number;
  /** Attempts in all for an answer worth repeating (5xx, rate limited, no answer). Default 3. */
  attempts?: number;
  /** The longest a rate limit's reset is waited for; a later reset gives up at once. Default 60 s. */
  maxWaitMs?: number;
  /** First retry's delay when the host names none; doubles each time. Default 500 ms. */
  backoffMs?: number;
  signal?: AbortSignal;
}

/** A host's API answers in JSON; a compare of many files is a few megabytes. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

/**
 * How long to wait before repeating an answer, or null when it is not worth repeating. GitHub
 * says when a rate limit resets in `x-ratelimit-reset` (epoch seconds, with
 * `x-ratelimit-remaining: 0` on a 403 or 429), GitLab in `ratelimit-reset`; both may send
 * `retry-after` (seconds) for secondary limits.
 */
export function retryDelayMs(status: number, headers: Headers, now: number): number | null {
  const limited = status === 429 || (status === 403 && (headers.get('x-ratelimit-remaining') === '0' || headers.has('retry-after')));
  if (!limited && status < 500) return null;
  const retryAfter = Number(headers.get('retry-after'));
  if (headers.has('retry-after') && Number.isFinite(retryAfter)) return Math.max(0, retryAfter * 1000);
  const reset = Number(headers.get('x-ratelimit-reset') ?? headers.get('ratelimit-reset'));
  if (limited && Number.isFinite(reset) && reset > 0) return Math.max(0, reset * 1000 - now);
  return 0;
}

function toHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const h = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) h.append(name, v);
  }
  return h;
}

/** A `fetch` for a host's client: guarded, bounded, and retried where the host asks for it. */
export function hostFetch(o: HostFetchOptions): typeof fetch {
  const attempts = o.attempts ?? 3;
  const maxWaitMs = o.maxWaitMs ?? 60_000;
  const backoffMs = o.backoffMs ?? 500;
  return async (input, init) => {
    const request = new Request(input, init);
    const method = request.method.toUpperCase();
    if (method !== 'GET' && method !== 'POST' && method !== 'HEAD') throw new TypeError(`a host is only read and given statuses, not sent ${method}`);
    const body = method === 'POST' ? Buffer.from(await request.arrayBuffer()) : undefined;
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    const signal = init?.signal ?? o.signal;
    let lastError: unknown;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      let response: Response;
      try {
        const r = await guardedFetch(request.url, {
          method,
          headers,
          body,
          allowPrivateNetwork: o.allowPrivateNetwork,
          timeoutMs: o.timeoutMs,
          maxBodyBytes: MAX_BODY_BYTES,
          signal: signal ?? undefined,
          userAgent: 'sitehealth',
        });
        response = new Response(NULL_BODY_STATUSES.has(r.status) ? null : new Uint8Array(r.body), { status: r.status, headers: toHeaders(r.headers) });
      } catch (err) {
        // Refused by the address guard: repeating cannot help.
        if (err instanceof FetchError && (err.code === 'blocked_address' || err.code === 'invalid_url' || err.code === 'unsupported_scheme')) throw err;
        if (signal?.aborted) throw err;
        lastError = err;
        if (attempt < attempts) await sleep(backoffMs * 2 ** (attempt - 1), signal ?? undefined);
        continue;
      }
      const wait = retryDelayMs(response.status, response.headers, Date.now());
      if (wait === null || attempt === attempts || wait > maxWaitMs) return response;
      await sleep(Math.max(wait, backoffMs * 2 ** (attempt - 1)), signal ?? undefined);
    }
    throw lastError;
  };
}
