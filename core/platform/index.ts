// Platform pieces every domain uses: clock, ids, errors, logging, configuration, redaction,
// problem documents.
export { nowMs, toIso, setClockOffset } from './clock.ts';
export { newId, isUuid } from './ids.ts';
export { encodeCursor, decodeCursor, type Keyset } from './cursor.ts';
export {
  DomainError,
  ValidationFailed,
  NotFound,
  referenceNotFound,
  Forbidden,
  InsufficientScope,
  Conflict,
  WorkspaceLimitReached,
  ServiceUnavailable,
  type FieldError,
  type ProblemMembers,
  type ReferencingField,
} from './errors.ts';
export { createLogger } from './logger.ts';
export { loadConfig, type Config } from './config.ts';
export { redactSecrets } from './redact.ts';
export { safeErrorText } from './error-text.ts';
export { stopGracefully } from './shutdown.ts';
export { problem, problemOf, type ProblemDocument } from './problem.ts';
