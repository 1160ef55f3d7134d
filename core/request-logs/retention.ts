import { DAY_MS, HOUR_MS, type RetentionRule } from '../db/index.ts';

// Request logs are kept 30 days. An hour's rollups go once all of the hour is past the logs'
// cutoff, so they are never dropped while rows they count remain; no GET /v1/logs window (at
// most 30 UTC days) reaches them then.
export const requestLogRetention: RetentionRule[] = [
  { name: 'request_logs', table: 'request_logs', column: 'created_at', maxAgeMs: 30 * DAY_MS },
  { name: 'request_log_hourly', table: 'request_log_hourly', column: 'hour_start', maxAgeMs: 30 * DAY_MS + HOUR_MS },
  { name: 'request_log_rollups', table: 'request_log_rollups', column: 'hour_start', maxAgeMs: 30 * DAY_MS + HOUR_MS },
];
