// `@sitehealth/sdk/signals`: what a diff says about a deploy, without its code. Each changed
// file's category and the signals its changed lines carry (a canonical removed, a robots rule
// added, ...). The `sitehealth` CLI reads git with it, and the service reads a connected
// repository's patches with it, so both describe one diff the same way. No I/O, no Node built-ins.
export { categorize, normalizePath, CATEGORY_PRIORITY } from './categorize.js';
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
} from './scanner.js';
export {
  unquoteGitPath,
  UnifiedDiffParser,
  MAX_DIFF_LINE_BYTES,
  type ChangedFile,
  type DiffFileHeader,
  type DiffLineSink,
  type DiffParserHandler,
} from './diff-parser.js';
export {
  ChangeAnalysis,
  changesFromDiffText,
  changesFromFilePatches,
  MAX_FILES_PER_DEPLOY,
  type AnalyzedChange,
  type ChangeLimits,
  type ChangesResult,
  type FilePatch,
} from './changes.js';
