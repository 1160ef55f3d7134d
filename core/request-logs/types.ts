import type { components } from '../../generated/types.ts';
import { toIso } from '../clock.ts';

/** One finished /v1 request, as the HTTP layer hands it over (CONTRACT section 7). */
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
}

/** A row of `request_logs`. */
export interface RequestLogRow {
  id: string;
  workspace_id: string;
  method: string;
  path: string;
  route: string | null;
  status_code: number;
  duration_ms: number;
  error_message: string | null;
  api_key_id: string | null;
  created_at: number;
}

/** A row of `request_log_hourly`: requests and failed requests of one workspace and UTC hour. */
export interface RequestLogHourlyRow {
  id: string;
  workspace_id: string;
  hour_start: number;
  total: number;
  errors: number;
}

/** A row of `request_log_rollups`: requests of one workspace, UTC hour, method, route and status. */
export interface RequestLogRollupRow {
  id: string;
  workspace_id: string;
  hour_start: number;
  method: string;
  /** '' when no route matched. */
  route: string;
  status_code: number;
  total: number;
}

/** The API shape of a log row, as the document defines it. */
export type RequestLogApi = components['schemas']['LogRow'];

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

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** `status=failed` means a status code of 400 or more (CONTRACT section 7). */
export const ERROR_STATUS = 400;
