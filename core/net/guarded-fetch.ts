import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { SecureContextOptions } from 'node:tls';
import { FetchError } from './fetch-error.ts';
import type { RedirectHop } from './fetch-error.ts';
import { FetchLifecycle } from './fetch-lifecycle.ts';
import { discardBody, readBody } from './read-body.ts';
import { isRedirect, methodAfter, withoutBodyHeaders, withoutCredentials } from './redirects.ts';
import { resolveHost, systemResolver } from './resolve.ts';
import type { Resolver } from './resolve.ts';
import { sendRequest } from './send-request.ts';
import { readTarget } from './target-url.ts';
import type { Target } from './target-url.ts';

export const DEFAULT_USER_AGENT = 'sitehealth/1.0 (+https://sitehealth.dev/bot)';

export interface GuardedFetchOptions {
  method?: 'GET' | 'HEAD' | 'POST';
  /** Extra request headers; Host, Content-Length and the hop-by-hop and protocol headers are ours. */
  headers?: Record<string, string>;
  /** Request body, POST only. */
  body?: string | Uint8Array;
  /** ALLOW_PRIVATE_NETWORK, passed in by the caller: opens loopback and private ranges only. */
  allowPrivateNetwork?: boolean;
  /** Refuse http: URLs, on the first hop and on redirects (webhooks). */
  httpsOnly?: boolean;
  /** Default true. False (or maxRedirects 0) returns a 3xx response as it is. */
  followRedirects?: boolean;
  /** Default 10. */
  maxRedirects?: number;
  /** TCP connect plus TLS handshake, per hop. Default 5 s. */
  connectTimeoutMs?: number;
  /** Everything: lookups, connects, redirects, headers and body. Default 15 s. */
  timeoutMs?: number;
  /** Body cap in bytes. Default 5 MiB. */
  maxBodyBytes?: number;
  /** Past the cap, return the first maxBodyBytes with truncated: true instead of failing. */
  truncate?: boolean;
  signal?: AbortSignal;
  /** Default DEFAULT_USER_AGENT; a user-agent entry in headers wins. */
  userAgent?: string;
  /** Default: dns.promises.lookup(host, { all: true, verbatim: true }). */
  resolver?: Resolver;
  /** Extra trusted CA certificates (tests); Node's store and NODE_EXTRA_CA_CERTS always apply. */
  ca?: SecureContextOptions['ca'];
}

export interface FetchResult {
  /** The requested URL, normalised. */
  url: string;
  /** The URL that gave this response. */
  finalUrl: string;
  status: number;
  /** Lower-case names, as Node parses them. */
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** body.length: after a cut, the bytes kept. */
  bytes: number;
  /** From the start of the final hop (lookup, connect, TLS included) to its response head. */
  ttfbMs: number;
  /** From the call to the end of the body, redirects included. */
  totalMs: number;
  /** Every URL that answered with a redirect that was followed, in order. */
  redirects: RedirectHop[];
  truncated: boolean;
  /** The address the final response came from. */
  remoteAddress: string;
  /** https: when the final host's certificate stops being valid (epoch ms); null for http. */
  certificateValidTo: number | null;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 10;
// Owned by the connection layer: a caller's value would desync framing or the pinned host, or
// invite a protocol switch. Dropped whatever the caller's own rules let through.
const RESERVED_HEADERS: ReadonlySet<string> = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', 'te', 'trailer', 'upgrade', 'expect', 'http2-settings']);
const isReserved = (lower: string) => RESERVED_HEADERS.has(lower) || lower.startsWith('proxy-');

function requestHeaders(options: GuardedFetchOptions, body: Buffer | undefined): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { 'user-agent': options.userAgent ?? DEFAULT_USER_AGENT };
  if (options.headers) {
    for (const name of Object.keys(options.headers)) {
      const lower = name.toLowerCase();
      if (!isReserved(lower)) headers[lower] = options.headers[name];
    }
  }
  if (body !== undefined) headers['content-length'] = body.length;
  return headers;
}

function requestBody(options: GuardedFetchOptions, method: string): Buffer | undefined {
  const { body } = options;
  if (body === undefined) return undefined;
  if (method !== 'POST') throw new TypeError(`guardedFetch: a body needs method POST, not ${method}`);
  if (typeof body === 'string') return Buffer.from(body);
  return Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

function targetOrThrow(result: ReturnType<typeof readTarget>, what: string): Target {
  if (result.ok) return result.target;
  throw new FetchError(result.code, what ? `${what}: ${result.reason}` : result.reason);
}

/**
 * GET/HEAD/POST a URL on the public internet (or, with allowPrivateNetwork, the local
 * network) and nowhere else. Every hop: parse, check the host (literal or name), resolve
 * once, check every answer, connect to those checked addresses only.
 */
export async function guardedFetch(input: string | URL, options: GuardedFetchOptions = {}): Promise<FetchResult> {
  const started = performance.now();
  const httpsOnly = options.httpsOnly === true;
  const policy = { allowPrivateNetwork: options.allowPrivateNetwork === true };
  const resolver = options.resolver ?? systemResolver;
  const maxRedirects = Math.max(0, Math.floor(options.maxRedirects ?? DEFAULT_MAX_REDIRECTS));
  const follow = options.followRedirects !== false && maxRedirects > 0;
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const limits = { maxBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, truncate: options.truncate === true };

  let method: string = options.method ?? 'GET';
  let body = requestBody(options, method);
  let headers = requestHeaders(options, body);
  let target = targetOrThrow(readTarget(input, undefined, httpsOnly), '');
  const url = target.url.href;
  const redirects: RedirectHop[] = [];

  const life = new FetchLifecycle(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.signal);
  try {
    for (;;) {
      if (life.reason) throw life.reason;
      life.host = target.host;
      const hopStarted = performance.now();
      const addresses = await life.race(resolveHost(target.host, target.literal, policy, resolver));
      const { res, remoteAddress, certificateValidTo } = await sendRequest(
        { target, addresses, method, headers, body, connectTimeoutMs, ca: options.ca },
        life,
      );
      const ttfbMs = performance.now() - hopStarted;
      const status = res.statusCode ?? 0;
      const location = follow && isRedirect(status) ? res.headers.location : undefined;

      if (location === undefined) {
        const read = await readBody(res, limits, life, target.host);
        return {
          url,
          finalUrl: target.url.href,
          status,
          headers: res.headers,
          body: read.body,
          bytes: read.body.length,
          ttfbMs,
          totalMs: performance.now() - started,
          redirects,
          truncated: read.truncated,
          remoteAddress,
          certificateValidTo,
        };
      }

      discardBody(res);
      redirects.push({ url: target.url.href, status });
      if (redirects.length > maxRedirects) {
        throw new FetchError('too_many_redirects', `more than ${maxRedirects} redirects, the last one from ${target.url.href}`);
      }
      const next = targetOrThrow(readTarget(location, target.url, httpsOnly), `${target.url.href} redirected to an unusable URL`);
      const nextMethod = methodAfter(status, method);
      if (nextMethod !== method) {
        method = nextMethod;
        body = undefined;
        headers = withoutBodyHeaders(headers);
      }
      if (next.url.origin !== target.url.origin) headers = withoutCredentials(headers);
      target = next;
    }
  } catch (err) {
    const failure = err instanceof FetchError ? err : new FetchError('network', `request to ${target.host} failed`, { cause: err });
    failure.redirects = redirects;
    throw failure;
  } finally {
    life.dispose();
  }
}
