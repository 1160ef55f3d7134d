import { Model } from 'objection';

export class RequestLog extends Model {
  static tableName = 'request_logs';

  declare id: string;
  declare workspace_id: string;
  declare method: string;
  declare path: string;
  /** OpenAPI form, e.g. `/v1/deploys/{id}`; null when no route matched. */
  declare route: string | null;
  declare status_code: number;
  declare duration_ms: number;
  declare error_message: string | null;
  declare api_key_id: string | null;
  declare created_at: number;
}

/** Requests and failed requests of one workspace and UTC hour. */
export class RequestLogHourly extends Model {
  static tableName = 'request_log_hourly';

  declare id: string;
  declare workspace_id: string;
  declare hour_start: number;
  declare total: number;
  declare errors: number;
}

/** Requests of one workspace, UTC hour, method, route ('' when none matched) and status code. */
export class RequestLogRollup extends Model {
  static tableName = 'request_log_rollups';

  declare id: string;
  declare workspace_id: string;
  declare hour_start: number;
  declare method: string;
  declare route: string;
  declare status_code: number;
  declare total: number;
}
