// Request logs: every /v1 request against a workspace, batched off the request path, read by GET /v1/logs.
export { RequestLogWriter, type RequestLogWriterOptions } from './writer.ts';
export { writeRequestLogs } from './store.ts';
export { listRequestLogs, logMeta, logWindow, type LogFilters, type LogQuery, type LogMeta, type LogWindow } from './query.ts';
export { requestLogToApi, ERROR_STATUS, type RequestLogInput, type RequestLogRow, type RequestLogApi } from './types.ts';
export { requestLogRetention } from './retention.ts';
