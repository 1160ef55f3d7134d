import type { RequestLogInput } from '../core/request-logs/index.ts';

/** Where the app hands finished requests; writing happens off the request path. */
export interface RequestLogSink {
  record(entry: RequestLogInput): void;
  /** Resolves once everything recorded so far is stored (tests read their own requests back). */
  flush?(): Promise<void>;
  close(): Promise<void>;
}

export const discardRequestLog: RequestLogSink = {
  record() {},
  async close() {},
};
