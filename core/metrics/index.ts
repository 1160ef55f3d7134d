// The parts of `GET /metrics` the API server and the worker share. A folder of its own, not
// core/platform, so that only those two processes load prom-client (the operator CLI does not).
export { EXPOSITION_CONTENT_TYPE, METRIC_PREFIX, exposition, newRegistry } from './exposition.ts';
export { MetricsUnauthorized, isLoopback, metricsGate, type MetricsClient } from './access.ts';
