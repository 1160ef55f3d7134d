// The CI deploy analysis: `@sitehealth/sdk/ci`, also re-exported from the package root.
export { categorize, CATEGORY_PRIORITY } from './categorize.js';
export {
  detectSignals,
  SignalScanner,
  SIGNAL_PRIORITY,
  MAX_SIGNALS_PER_FILE,
  type DiffLine,
  type ChangeSide,
  type FileStatus,
  type SignalScanOptions,
  type SignalScanResult,
} from './signals.js';
export {
  listChangedFiles,
  streamDiff,
  commitExists,
  resolveCommit,
  unquoteGitPath,
  UnifiedDiffParser,
  GitError,
  MAX_DIFF_LINE_BYTES,
  type ChangedFile,
  type DiffFileHeader,
  type DiffLineSink,
  type DiffParserHandler,
  type GitRange,
} from './diff.js';
export {
  changesFromGit,
  changesFromDiffText,
  MAX_FILES_PER_DEPLOY,
  type AnalyzedChange,
  type ChangesResult,
  type ChangesFromGitOptions,
  type ChangesFromGitResult,
} from './changes.js';
export { detectCi, type CiInfo, type DetectCiOptions, type BaseSource } from './provider.js';
export { buildDeployBody, type DeployBodyInput } from './body.js';
