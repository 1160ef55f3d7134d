import type { Client } from 'openapi-fetch';
import { errorFromResponse, parseRateLimit, type RateLimitInfo } from '../errors.js';
import type { paths } from '../generated/types.js';
import { retryingFetch, type FetchLike } from '../transport.js';

export type ApiClient = Client<paths>;

/**
 * Options of one call, the last argument of every resource method. Each overrides the client's
 * option of the same name for this call only.
 *
 * ```ts
 * await client.workspaces.create({ name: 'Shop', website: 'https://shop.example' }, { idempotencyKey: orderId, timeoutMs: 5_000 });
 * ```
 */
export interface RequestOptions {
  /** Cancels the call (and its retries): the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Time limit of each attempt in milliseconds. */
  timeoutMs?: number;
  /** Extra request headers (the key and `User-Agent` are the client's). */
  headers?: Record<string, string>;
  /** How many times a retryable request is sent again; 0 turns retries off for this call. */
  maxRetries?: number;
  /**
   * `Idempotency-Key` of a POST: the API answers a repeat of the key with the first answer for 24
   * hours, and 409 `idempotency_key_reused` when the body differs. Default: a new UUID per call,
   * kept across that call's retries.
   */
  idempotencyKey?: string;
}

/** What a successful response said besides its body. */
export interface ResponseInfo {
  status: number;
  /** `X-Request-Id`: quote it when reporting a problem. */
  requestId: string | null;
  /** The `RateLimit-*` headers: how many requests are left in the window. */
  rateLimit: RateLimitInfo | null;
  headers: Headers;
}

/**
 * A method's result with its response's details in `lastResponse` (as stripe-node names it).
 * The property is not enumerable: it stays out of `JSON.stringify` and of equality checks.
 */
export type WithResponse<T> = T & { readonly lastResponse: ResponseInfo };

/** The result of a delete, which answers 204 with no body. */
export interface Deleted {
  id: string;
  deleted: true;
}

/** What every resource of one client shares: the openapi-fetch client and its transport settings. */
export interface Transport {
  client: ApiClient;
  fetch: FetchLike;
  maxRetries: number;
  timeoutMs: number;
}

/**
 * What openapi-fetch resolves to (its `FetchResponse`): `{data, response}` for a 2xx response,
 * `{error, response}` otherwise. `T` is inferred from the first part only: the union, kept out of
 * inference by `NoInfer`, would add its `data?: never` (`undefined`) to every `T`.
 */
type Result<T> = { data?: T; error?: unknown; response: Response } &
  NoInfer<{ data: T; error?: never } | { data?: never; error: unknown }>;

export function responseInfo(response: Response): ResponseInfo {
  return { status: response.status, requestId: response.headers.get('x-request-id'), rateLimit: parseRateLimit(response.headers), headers: response.headers };
}

function withResponse<T extends object>(value: T, response: Response): WithResponse<T> {
  return Object.defineProperty(value, 'lastResponse', { value: responseInfo(response), enumerable: false, configurable: true }) as WithResponse<T>;
}

/** The success body of an openapi-fetch call, with `lastResponse`, or the typed error of its response. */
export async function unwrap<T extends object>(call: Promise<Result<T>>): Promise<WithResponse<T>> {
  const result = await call;
  if ('error' in result || !result.response.ok) throw errorFromResponse(result.response, result.error);
  return withResponse(result.data, result.response);
}

/**
 * `unwrap` for an operation that answers JSON or an HTML page (whichever `Accept` asks for),
 * called for JSON: the body is the JSON one.
 */
export async function unwrapJson<T extends object>(call: Promise<{ data?: T | string; error?: unknown; response: Response }>): Promise<WithResponse<T>> {
  const result = await call;
  if ('error' in result || !result.response.ok) throw errorFromResponse(result.response, result.error);
  const data = result.data;
  if (data === undefined || typeof data === 'string') throw errorFromResponse(result.response, { detail: 'expected a JSON body' });
  return withResponse(data, result.response);
}

/** `unwrap` for a text body (an HTML page): `{ html }`. */
export async function unwrapText(call: Promise<{ data?: string; error?: unknown; response: Response }>): Promise<WithResponse<{ html: string }>> {
  const result = await call;
  if ('error' in result || !result.response.ok) throw errorFromResponse(result.response, result.error);
  return withResponse({ html: result.data ?? '' }, result.response);
}

/** `unwrap` for a 204: the id of what was deleted. */
export async function unwrapDeleted(call: Promise<{ error?: unknown; response: Response }>, id: string): Promise<WithResponse<Deleted>> {
  const result = await call;
  if ('error' in result || !result.response.ok) throw errorFromResponse(result.response, result.error);
  return withResponse({ id, deleted: true as const }, result.response);
}

/** What an operation without a body answers (202, 204): its status. */
export interface Done {
  status: number;
}

/** `unwrap` for an answer without a body (202 or 204). */
export async function unwrapDone(call: Promise<{ error?: unknown; response: Response }>): Promise<WithResponse<Done>> {
  const result = await call;
  if ('error' in result || !result.response.ok) throw errorFromResponse(result.response, result.error);
  return withResponse({ status: result.response.status }, result.response);
}

/** A page of any list: every list pages the same way (`meta.next_cursor`, passed back as `cursor`). */
export interface Page<Row> {
  data: Row[];
  meta: { next_cursor: string | null };
}

/** Every row of a list, page after page, following `meta.next_cursor` (`query.limit` is the page size). */
export async function* everyRow<Q extends { cursor?: string }, Row>(list: (query: Q) => Promise<Page<Row>>, query: Q): AsyncGenerator<Row, void, undefined> {
  let params: Q = { ...query };
  for (;;) {
    const page = await list(params);
    yield* page.data;
    const cursor = page.meta.next_cursor;
    if (!cursor || page.data.length === 0) return;
    params = { ...params, cursor };
  }
}

/** Base of the resource classes: each holds the one transport of its `SiteHealth`. */
export abstract class Resource {
  protected readonly client: ApiClient;

  constructor(private readonly transport: Transport) {
    this.client = transport.client;
  }

  /**
   * The openapi-fetch options of one call: its signal and headers, and, when it changes the
   * timeout or the retries, a fetch of its own with those settings.
   */
  protected call(options: RequestOptions = {}): { signal?: AbortSignal; headers?: Record<string, string>; fetch?: (request: Request) => Promise<Response> } {
    const { signal, timeoutMs, maxRetries, idempotencyKey } = options;
    const headers = { ...options.headers, ...(idempotencyKey !== undefined && { 'Idempotency-Key': idempotencyKey }) };
    // A bad option rejects the call's promise, as any other failure of the call does.
    const invalid =
      timeoutMs !== undefined && !(timeoutMs > 0) ? '`timeoutMs` must be a positive number'
      : maxRetries !== undefined && (!Number.isInteger(maxRetries) || maxRetries < 0) ? '`maxRetries` must be an integer >= 0'
      : null;
    if (invalid) return { fetch: () => Promise.reject(new TypeError(`SiteHealth: ${invalid}`)) };
    const own = timeoutMs !== undefined || maxRetries !== undefined;
    return {
      ...(signal && { signal }),
      ...(Object.keys(headers).length > 0 && { headers }),
      ...(own && {
        fetch: retryingFetch({ fetch: this.transport.fetch, maxRetries: maxRetries ?? this.transport.maxRetries, timeoutMs: timeoutMs ?? this.transport.timeoutMs }),
      }),
    };
  }
}
