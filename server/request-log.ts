import type { RequestLogInput } from '../core/request-logs/types.ts';

/** One /v1 request as the request log stores it (CONTRACT section 7). */
export type RequestLogEntry = RequestLogInput;

/** Where the app hands finished requests; writing happens off the request path. */
export interface RequestLogSink {
  record(entry: RequestLogEntry): void;
  /** An entry that needs a lookup first (is its workspace visible?); null means not logged. */
  recordLater?(entry: Promise<RequestLogEntry | null>): void;
  /** Resolves once everything recorded so far is stored (tests read their own requests back). */
  flush?(): Promise<void>;
  close(): Promise<void>;
}

export const discardRequestLog: RequestLogSink = {
  record() {},
  async close() {},
};
