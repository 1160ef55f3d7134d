// Every error the SDK throws. `errorFromResponse` is the one place that turns an API error
// response (an RFC 9457 problem document, or whatever a proxy answered) into a typed error.
import type { components } from './generated/types.js';
import type { FieldError } from './types.js';

/**
 * The stable `code` of every problem document the API answers (docs/api.md#error-codes): the
 * API document's `ProblemCode` enum, each with its page at `/problems/<code>`. Each code has its
 * error class in `ERROR_CLASS_BY_CODE`, which the compiler holds to exactly these codes.
 */
export type ProblemCode = components['schemas']['ProblemCode'];

/**
 * `code` of an error: a problem code, `connection_error` / `timeout` for a `ConnectionError`,
 * `http_error` for an answer that was not a problem document (e.g. a proxy's HTML page), or any
 * code a newer server may add.
 */
export type ErrorCode = ProblemCode | 'connection_error' | 'timeout' | 'http_error' | (string & {});

export interface SiteHealthErrorInit {
  status: number;
  code: ErrorCode;
  title: string;
  detail: string;
  type?: string;
  errors?: FieldError[];
  requestId?: string | null;
  /** The response body as received (parsed JSON, or text when it was not JSON). */
  body?: unknown;
  /** Seconds from `Retry-After`, when the response had one. */
  retryAfter?: number | null;
  /** The `RateLimit-*` headers, when the response had them. */
  rateLimit?: RateLimitInfo | null;
  cause?: unknown;
}

/** What the `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` headers said. */
export interface RateLimitInfo {
  limit: number | null;
  remaining: number | null;
  /** Seconds until the window resets. */
  reset: number | null;
}

/**
 * Base class of every API error. `status` is the HTTP status (0 for a `ConnectionError`:
 * no response), `code` the problem document's stable code (`validation_failed`, `not_found`,
 * ...), `errors` the offending fields of a validation error, `requestId` the response's
 * `x-request-id` (quote it when reporting a problem), `retryAfter` the `Retry-After` hint in
 * seconds (429 and 503 carry one).
 */
export class SiteHealthError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly title: string;
  readonly detail: string;
  readonly type: string;
  readonly errors: FieldError[];
  readonly requestId: string | null;
  readonly retryAfter: number | null;
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
    this.retryAfter = init.retryAfter ?? null;
    this.body = init.body;
  }
}

/**
 * 400 `validation_failed` (every offending field in `errors`), `invalid_json`, or `bad_request`
 * (the request was not well-formed HTTP, or its target was not a path).
 */
export class ValidationError extends SiteHealthError {}
/** 401 `unauthorized`: the API key is missing, unknown or revoked; `key_expired`: it is past its `expiresAt`. */
export class AuthenticationError extends SiteHealthError {}
/** 402 `workspace_limit`: the account cannot hold another workspace. */
export class WorkspaceLimitError extends SiteHealthError {}
/**
 * 403 `insufficient_scope` (the key lacks the operation's scope), `forbidden` (the role is too
 * low), or one of the API-key escalation rules: `scope_escalation`, `workspace_escalation`,
 * `role_escalation`, `expiry_escalation`.
 */
export class PermissionError extends SiteHealthError {}
/** 404 `not_found`: no such resource, or the caller cannot see it. */
export class NotFoundError extends SiteHealthError {}
/** 405 `method_not_allowed`. */
export class MethodNotAllowedError extends SiteHealthError {}
/** 408 `request_timeout`: the request did not arrive in time. */
export class RequestTimeoutError extends SiteHealthError {}
/**
 * 409 `slug_taken`, `webhook_paused`, `connection_exists`, `key_inactive`, `last_owner`,
 * `member_exists`, `invitation_used`, `invitation_expired`, `idempotency_key_reused` or
 * `idempotency_key_in_use`.
 */
export class ConflictError extends SiteHealthError {}
/** 413 `payload_too_large`: the body is over 1 MiB. */
export class PayloadTooLargeError extends SiteHealthError {}
/** 415 `unsupported_media_type`: the body is not JSON. */
export class UnsupportedMediaTypeError extends SiteHealthError {}
/**
 * 429 `rate_limited`: the key's rate limit is spent (after the SDK's retries). `retryAfter` says
 * when to try again, `rateLimit` what the `RateLimit-*` headers said.
 */
export class RateLimitError extends SiteHealthError {
  readonly rateLimit: RateLimitInfo | null;
  constructor(init: SiteHealthErrorInit) {
    super(init);
    this.rateLimit = init.rateLimit ?? null;
  }
}
/** 431 `headers_too_large`: the request line and headers are larger than the server accepts (16 KB). */
export class HeadersTooLargeError extends SiteHealthError {}
/** 5xx: something failed on the server's side (after the SDK's retries, where they apply). */
/** 422: the request was understood, but a third party it depends on refused it (e.g. a repository host refused a token). */
export class UnprocessableError extends SiteHealthError {}

export class ApiError extends SiteHealthError {}
/** 500 `internal_error`. */
export class InternalServerError extends ApiError {}
/** 503 `service_unavailable`: the database is busy or unreachable; nothing was changed. `retryAfter` says when to retry. */
export class ServiceUnavailableError extends ApiError {}
/** No response: the connection failed or timed out (after the SDK's retries, where they apply). */
export class ConnectionError extends SiteHealthError {
  constructor(message: string, opts: { code?: 'connection_error' | 'timeout'; cause?: unknown } = {}) {
    super({ status: 0, code: opts.code ?? 'connection_error', title: 'Connection error', detail: message, cause: opts.cause });
  }
}

/** Why `verifyWebhook` rejected a request. */
export type WebhookVerificationReason =
  | 'invalid_secret'
  | 'missing_header'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'invalid_signature'
  | 'invalid_body_signature'
  | 'invalid_body';

/** A webhook request failed verification: do not trust its body. `reason` says why. */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationReason;
  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

type ErrorClass = new (init: SiteHealthErrorInit) => SiteHealthError;

/** The class of each problem code; a code not listed falls back to the status. */
export const ERROR_CLASS_BY_CODE: Readonly<Record<ProblemCode, ErrorClass>> = {
  validation_failed: ValidationError,
  invalid_json: ValidationError,
  bad_request: ValidationError,
  unauthorized: AuthenticationError,
  workspace_limit: WorkspaceLimitError,
  insufficient_scope: PermissionError,
  forbidden: PermissionError,
  not_found: NotFoundError,
  method_not_allowed: MethodNotAllowedError,
  request_timeout: RequestTimeoutError,
  slug_taken: ConflictError,
  webhook_paused: ConflictError,
  idempotency_key_reused: ConflictError,
  idempotency_key_in_use: ConflictError,
  payload_too_large: PayloadTooLargeError,
  unsupported_media_type: UnsupportedMediaTypeError,
  rate_limited: RateLimitError,
  headers_too_large: HeadersTooLargeError,
  internal_error: InternalServerError,
  service_unavailable: ServiceUnavailableError,
  connection_exists: ConflictError,
  repository_unreachable: UnprocessableError,
  bad_signature: AuthenticationError,
  secrets_unconfigured: ServiceUnavailableError,
  key_expired: AuthenticationError,
  scope_escalation: PermissionError,
  workspace_escalation: PermissionError,
  role_escalation: PermissionError,
  expiry_escalation: PermissionError,
  key_inactive: ConflictError,
  last_owner: ConflictError,
  member_exists: ConflictError,
  invitation_used: ConflictError,
  invitation_expired: ConflictError,
  token_used: ConflictError,
  password_exists: ConflictError,
  invalid_credentials: AuthenticationError,
  session_required: PermissionError,
  csrf_failed: PermissionError,
  link_invalid: ValidationError,
  sign_in_throttled: RateLimitError,
  passkey_challenge_invalid: ValidationError,
  passkey_invalid: ValidationError,
  passkey_rejected: AuthenticationError,
  passkey_exists: ConflictError,
  sso_required: PermissionError,
  sso_not_configured: NotFoundError,
  sso_state_invalid: ValidationError,
  sso_expired: ValidationError,
  sso_provider_error: ValidationError,
  sso_token_invalid: ValidationError,
  sso_user_unknown: PermissionError,
  invalid_two_step_code: AuthenticationError,
  two_step_expired: AuthenticationError,
  two_step_enabled: ConflictError,
  two_step_not_started: ConflictError,
  search_console_unconfigured: ServiceUnavailableError,
  search_console_refused: UnprocessableError,
  search_console_not_connected: ConflictError,
};

const BY_STATUS: Record<number, ErrorClass> = {
  400: ValidationError,
  401: AuthenticationError,
  402: WorkspaceLimitError,
  403: PermissionError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  408: RequestTimeoutError,
  409: ConflictError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
  422: UnprocessableError,
  429: RateLimitError,
  431: HeadersTooLargeError,
  500: InternalServerError,
  503: ServiceUnavailableError,
};

/**
 * The typed error for a non-2xx response. `body` is what openapi-fetch parsed (JSON when it
 * could, else the text). The class follows the problem's `code`, else the HTTP status (a
 * proxy's 503 page is still a `ServiceUnavailableError`, with code `http_error`).
 */
export function errorFromResponse(response: Response, body: unknown): SiteHealthError {
  const problem = isRecord(body) ? body : {};
  const status = response.status;
  const code = str(problem.code);
  const init: SiteHealthErrorInit = {
    status,
    code: code ?? 'http_error',
    title: str(problem.title) ?? (response.statusText || `HTTP ${status}`),
    detail: str(problem.detail) ?? (typeof body === 'string' ? body.slice(0, 500) : ''),
    type: str(problem.type),
    // The body is whatever the wire carried: its `errors` are taken as the document's FieldError[] unchecked.
    errors: Array.isArray(problem.errors) ? (problem.errors as FieldError[]) : [],
    requestId: response.headers.get('x-request-id'),
    body,
    retryAfter: parseRetryAfter(response.headers.get('retry-after')),
    rateLimit: parseRateLimit(response.headers),
  };
  const byCode = isProblemCode(code) ? ERROR_CLASS_BY_CODE[code] : undefined;
  const ErrorClass = byCode ?? BY_STATUS[status] ?? (status >= 500 ? ApiError : SiteHealthError);
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

/**
 * `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (the IETF draft's separate
 * headers), or the combined `RateLimit: limit=100, remaining=0, reset=30`; null without either.
 */
export function parseRateLimit(headers: Headers): RateLimitInfo | null {
  const num = (v: string | null | undefined) => {
    const m = v == null ? null : /^\s*(\d+(?:\.\d+)?)/.exec(v);
    return m ? Number(m[1]) : null;
  };
  const combined = headers.get('ratelimit');
  const field = (name: string) => (combined ? new RegExp(`(?:^|[,;\\s])${name}=(\\d+)`).exec(combined)?.[1] : undefined);
  const info: RateLimitInfo = {
    limit: num(headers.get('ratelimit-limit')) ?? num(field('limit')),
    remaining: num(headers.get('ratelimit-remaining')) ?? num(field('remaining')),
    reset: num(headers.get('ratelimit-reset')) ?? num(field('reset')),
  };
  return info.limit === null && info.remaining === null && info.reset === null ? null : info;
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

function isProblemCode(code: string | undefined): code is ProblemCode {
  return code !== undefined && Object.hasOwn(ERROR_CLASS_BY_CODE, code);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
