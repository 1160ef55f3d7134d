// The server's limits on a recorded deploy, which the SDK keeps to before sending. The OpenAPI
// document defines them (`maxItems`, `maxLength`, `maximum`, `pattern`), so they are never typed
// here: scripts/sync-types.mjs reads them from generated/openapi.json into generated/values.ts
// (committed like generated/types.ts, and checked for drift by test/sdk.test.ts): the published
// package cannot read the document at run time, and the generated types do not carry these keywords.
export {
  /** The server accepts at most this many changes per deploy. */
  MAX_CHANGES,
  /** The server's limit on `message`; longer messages are shortened. */
  MAX_MESSAGE_LENGTH,
  MAX_REF_LENGTH,
  MAX_PATH_LENGTH,
  MAX_SIGNALS_PER_CHANGE,
  MAX_SIGNAL_LINE,
  COMMIT_SHA_PATTERN,
} from './generated/values.js';
