// @sitehealth/cli: the `sitehealth` command, and the same steps for scripts that record deploys
// from Node: read the CI context, the changes from git, record, wait for the check, judge it.
// The API client itself is @sitehealth/sdk.
export {
  recordDeploy,
  waitForSiteCheck,
  checkSearchScope,
  findingsAtOrAbove,
  sortBySeverity,
  isSeverity,
  changesFromPaths,
  DeployConfigError,
  SEVERITIES,
  DEFAULT_WAIT_TIMEOUT_MS,
  DEFAULT_POLL_INTERVAL_MS,
  type RecordDeployOptions,
  type RecordDeployResult,
  type DeployOutcome,
  type DeployProgress,
  type WaitOptions,
  type WaitResult,
} from './deploy.js';
export { changesFromGit, type ChangesFromGitOptions, type ChangesFromGitResult } from './changes-from-git.js';
export { listChangedFiles, streamDiff, commitExists, resolveCommit, GitError, type GitRange } from './git.js';
export { detectCi, type CiInfo, type DetectCiOptions, type BaseSource } from './provider.js';
export { buildDeployBody, type DeployBodyInput } from './body.js';
export { run, type CliIO } from './command/index.js';
export { VERSION } from './version.js';
