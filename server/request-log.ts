/** One /v1 request as the request log stores it (CONTRACT section 7). */
export interface RequestLogEntry {
  workspaceId: string;
  method: string;
  path: string;
  route: string | null;
  statusCode: number;
  durationMs: number;
  errorMessage: string | null;
  apiKeyId: string | null;
  createdAt: number;
}

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
