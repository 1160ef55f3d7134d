// @sitehealth/sdk: the typed client for the sitehealth API, its errors, pagination and webhook
// verification. Runs in Node 20+, browsers and edge runtimes: nothing here imports a Node built-in.
// The diff signal reader is `@sitehealth/sdk/signals`; the `sitehealth` command is @sitehealth/cli.
export { createClient, SiteHealth, DEFAULT_BASE_URL, type ClientOptions, type SiteHealthOptions } from './client.js';
export type { FetchLike } from './transport.js';
export { isRetryable, isRetryableStatus, MAX_RETRY_AFTER_SECONDS } from './transport.js';
export { VERSION } from './version.js';
export {
  SiteHealthError,
  ValidationError,
  AuthenticationError,
  WorkspaceLimitError,
  PermissionError,
  NotFoundError,
  MethodNotAllowedError,
  RequestTimeoutError,
  ConflictError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  RateLimitError,
  HeadersTooLargeError,
  UnprocessableError,
  ApiError,
  InternalServerError,
  ServiceUnavailableError,
  ConnectionError,
  WebhookVerificationError,
  ERROR_CLASS_BY_CODE,
  errorFromResponse,
  parseRetryAfter,
  parseRateLimit,
  type ProblemCode,
  type ErrorCode,
  type RateLimitInfo,
  type SiteHealthErrorInit,
  type WebhookVerificationReason,
} from './errors.js';
export {
  verifyWebhook,
  verifyBodySignature,
  signWebhook,
  signingKey,
  type VerifyWebhookOptions,
  type SiteHealthEvent,
  type SiteHealthEventOf,
  type WebhookEventDataMap,
  type HeadersInput,
  type RawBody,
} from './webhooks.js';
export {
  MAX_CHANGES,
  MAX_MESSAGE_LENGTH,
  MAX_REF_LENGTH,
  MAX_PATH_LENGTH,
  MAX_SIGNALS_PER_CHANGE,
  MAX_SIGNAL_LINE,
  COMMIT_SHA_PATTERN,
} from './limits.js';
export type { RequestOptions, ResponseInfo, WithResponse, Deleted } from './resources/resource.js';
export { Deploys } from './resources/deploys.js';
export { SiteChecks } from './resources/site-checks.js';
export { SiteCrawls } from './resources/site-crawls.js';
export { Workspaces } from './resources/workspaces.js';
export { Logs } from './resources/logs.js';
export { Activity } from './resources/activity.js';
export { Webhooks } from './resources/webhooks.js';
export { Connections } from './resources/connections.js';
export { ApiKeys } from './resources/api-keys.js';
export { Members, Invitations, InvitationAcceptance } from './resources/members.js';
export { Passkeys, PasskeySignIn } from './resources/passkeys.js';
export { SingleSignOn, SsoSignIn, ssoBindingOf, type SsoCompleted } from './resources/sso.js';
export { Notifications, Reports, Unsubscribe } from './resources/digests.js';
export { Sessions, CurrentUser, PasswordReset, EmailVerification, TwoStepSignIn, sessionFromSignIn, type SessionCredential } from './resources/sessions.js';
export { SearchPerformance } from './resources/search-performance.js';
export { SearchConsole, SearchConsoleCallback } from './resources/search-console.js';
export type * from './types.js';
