// @sitehealth/sdk: the typed client for the sitehealth API.
export { SiteHealth, DEFAULT_BASE_URL, type SiteHealthOptions } from './client.js';
export type { FetchLike } from './transport.js';
export { VERSION } from './version.js';
export {
  SiteHealthError,
  ValidationError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  ConflictError,
  RateLimitError,
  ApiError,
  ConnectionError,
  WebhookVerificationError,
  errorFromResponse,
  type SiteHealthErrorInit,
} from './errors.js';
export {
  verifyWebhook,
  verifyBodySignature,
  signWebhook,
  signingKey,
  type VerifyWebhookOptions,
  type WebhookEventPayload,
  type HeadersInput,
} from './webhooks.js';
export { recordDeploy, changesFromPaths, categorize, MAX_CHANGES, MAX_MESSAGE_LENGTH, type RecordDeployInput } from './deploy.js';
export {
  detectSignals,
  SignalScanner,
  SIGNAL_PRIORITY,
  MAX_SIGNALS_PER_FILE,
  listChangedFiles,
  streamDiff,
  commitExists,
  resolveCommit,
  unquoteGitPath,
  UnifiedDiffParser,
  GitError,
  MAX_DIFF_LINE_BYTES,
  changesFromGit,
  changesFromDiffText,
  MAX_FILES_PER_DEPLOY,
  detectCi,
  buildDeployBody,
  CATEGORY_PRIORITY,
  type DiffLine,
  type ChangeSide,
  type FileStatus,
  type SignalScanOptions,
  type SignalScanResult,
  type ChangedFile,
  type DiffFileHeader,
  type DiffLineSink,
  type DiffParserHandler,
  type GitRange,
  type AnalyzedChange,
  type ChangesResult,
  type ChangesFromGitOptions,
  type ChangesFromGitResult,
  type CiInfo,
  type DetectCiOptions,
  type BaseSource,
  type DeployBodyInput,
} from './ci/index.js';
export { Deploys } from './resources/deploys.js';
export { SiteChecks } from './resources/site-checks.js';
export { Workspaces } from './resources/workspaces.js';
export { Logs } from './resources/logs.js';
export { Activity } from './resources/activity.js';
export { Webhooks } from './resources/webhooks.js';
export type * from './types.js';
