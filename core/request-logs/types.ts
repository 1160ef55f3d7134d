import type { ModelObject } from 'objection';
import type { RequestLog, RequestLogHourly, RequestLogRollup } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { toIso } from '../platform/index.ts';

/** One finished /v1 request, as the HTTP layer hands it over (docs/api.md#request-logs). */
export interface RequestLogInput {
  workspaceId: string;
  method: string;
  /** Path without the query string. */
  path: string;
  /** OpenAPI form, e.g. `/v1/deploys/{id}`; null when no route matched. */
  route: string | null;
  statusCode: number;
  durationMs: number;
  /** The problem `detail` of a failed request. */
  errorMessage: string | null;
  apiKeyId: string | null;
  /** Epoch ms. */
  createdAt: number;
  /** The row's id; the writer sets it before the first try, so a retried entry keeps it. */
  id?: string;
}

export type RequestLogRow = ModelObject<RequestLog>;
export type RequestLogHourlyRow = ModelObject<RequestLogHourly>;
export type RequestLogRollupRow = ModelObject<RequestLogRollup>;

/** The API shape of a log row, as the document defines it. */
export type RequestLogApi = Schemas['LogRow'];

export function requestLogToApi(row: RequestLogRow): RequestLogApi {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    method: row.method,
    path: row.path,
    route: row.route ?? null,
    status_code: Number(row.status_code),
    duration_ms: Number(row.duration_ms),
    error_message: row.error_message ?? null,
    api_key_id: row.api_key_id ?? null,
    created_at: toIso(row.created_at)!,
  };
}

export { HOUR_MS, DAY_MS } from '../db/index.ts';

/** `status=failed` means a status code of 400 or more (docs/api.md#request-logs). */
export const ERROR_STATUS = 400;
