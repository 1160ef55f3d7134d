// Every error the SDK throws. `errorFromResponse` is the one place that turns an API error
// response (an RFC 9457 problem document, or whatever a proxy answered) into a typed error.
import type { FieldError } from './types.js';

export interface SiteHealthErrorInit {
  status: number;
  code: string;
  title: string;
  detail: string;
  type?: string;
  errors?: FieldError[];
  requestId?: string | null;
  /** The response body as received (parsed JSON, or text when it was not JSON). */
  body?: unknown;
  /** Seconds from `Retry-After`, when the response had one. */
  retryAfter?: number | null;
  cause?: unknown;
}

/**
 * Base class of every API error. `status` is the HTTP status (0 for a `ConnectionError`:
 * no response), `code` the problem document's stable code (`validation_failed`, `not_found`,
 * ...), `errors` the offending fields of a validation error, `requestId` the response's
 * `x-request-id` (quote it when reporting a problem).
 */
export class SiteHealthError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly type: string;
  readonly errors: FieldError[];
  readonly requestId: string | null;
  readonly body: unknown;

  constructor(init: SiteHealthErrorInit) {
    super(formatMessage(init), init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.title = init.title;
    this.detail = init.detail;
    this.type = init.type ?? 'about:blank';
    this.errors = init.errors ?? [];
    this.requestId = init.requestId ?? null;
    this.body = init.body;
  }
}

/** 400: the body, query or path failed validation (`errors` lists every field), or invalid JSON. */
export class ValidationError extends SiteHealthError {}
/** 401: the API key is missing, unknown or revoked. */
export class AuthenticationError extends SiteHealthError {}
/** 403: the key lacks the scope (`insufficient_scope`) or the role is too low (`forbidden`). */
export class PermissionError extends SiteHealthError {}
/** 404: no such resource, or the caller cannot see it. */
export class NotFoundError extends SiteHealthError {}
/** 409: `slug_taken`, `webhook_paused`. */
export class ConflictError extends SiteHealthError {}
/** 429: too many requests; `retryAfter` is the server's hint in seconds, when given. */
export class RateLimitError extends SiteHealthError {
  readonly retryAfter: number | null;
  constructor(init: SiteHealthErrorInit) {
    super(init);
    this.retryAfter = init.retryAfter ?? null;
  }
}
/** 5xx: something failed on the server's side (after the SDK's retries, where they apply). */
export class ApiError extends SiteHealthError {}
/** No response: the connection failed or timed out (after the SDK's retries, where they apply). */
export class ConnectionError extends SiteHealthError {
  constructor(message: string, opts: { code?: 'connection_error' | 'timeout'; cause?: unknown } = {}) {
    super({ status: 0, code: opts.code ?? 'connection_error', title: 'Connection error', detail: message, cause: opts.cause });
  }
}

/** A webhook request failed verification: do not trust its body. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

const BY_STATUS: Record<number, typeof SiteHealthError> = {
  400: ValidationError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  429: RateLimitError,
};

/**
 * The typed error for a non-2xx response. `body` is what openapi-fetch parsed (JSON when it
 * could, else the text); a body that is not a problem document still yields an error with
 * the HTTP status and code `http_error`.
 */
export function errorFromResponse(response: Response, body: unknown): SiteHealthError {
  const problem = isRecord(body) ? body : {};
  const status = response.status;
  const init: SiteHealthErrorInit = {
    status,
    code: str(problem.code) ?? 'http_error',
    title: str(problem.title) ?? (response.statusText || `HTTP ${status}`),
    detail: str(problem.detail) ?? (typeof body === 'string' ? body.slice(0, 500) : ''),
    type: str(problem.type),
    errors: Array.isArray(problem.errors) ? (problem.errors as FieldError[]) : [],
    requestId: response.headers.get('x-request-id'),
    body,
    retryAfter: parseRetryAfter(response.headers.get('retry-after')),
  };
  const ErrorClass = BY_STATUS[status] ?? (status >= 500 ? ApiError : SiteHealthError);
  return new ErrorClass(init);
}

/** `Retry-After` as seconds (delta-seconds or an HTTP date); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, (at - now) / 1000);
}

function formatMessage(init: SiteHealthErrorInit): string {
  const what = init.status ? `${init.status} ${init.code}` : init.code;
  let text = `${init.detail || init.title} (${what})`;
  const errors = init.errors ?? [];
  // List the fields unless the detail already says everything (one error it names).
  if (errors.length > 1 || (errors.length === 1 && !text.includes(errors[0].path))) {
    const fields = errors.slice(0, 5).map((e) => `${e.in} ${e.path || '/'}: ${e.message}`);
    text += `: ${fields.join('; ')}${errors.length > 5 ? `; and ${errors.length - 5} more` : ''}`;
  }
  if (init.requestId) text += ` [request ${init.requestId}]`;
  return text;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
