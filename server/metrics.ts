import { Counter, Histogram } from 'prom-client';
import { METRIC_PREFIX, exposition, newRegistry } from '../core/metrics/index.ts';

/** The route label of a request that matched no operation and no fixed endpoint. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Methods outside this list are labelled `other`: a client may send any token as a method. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

type Labels = 'method' | 'route' | 'status';

interface Series {
  requests: Counter.Internal;
  duration: Histogram.Internal<Labels>;
}

/**
 * The API server's request metrics. Every label is bounded: `route` is the OpenAPI template an
 * operation matched (`/v1/deploys/{id}`), one of the fixed endpoints outside /v1, or
 * `unmatched`; never the raw path.
 */
export class HttpMetrics {
  readonly registry = newRegistry();
  private readonly requests = new Counter({
    name: `${METRIC_PREFIX}http_requests_total`,
    help: 'Requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: `${METRIC_PREFIX}http_request_duration_seconds`,
    help: 'Time from the request reaching the app to the last byte of the response handed to the socket.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  /** route -> method -> status -> the label children, built once per combination. */
  private readonly series = new Map<string, Map<string, Map<number, Series>>>();

  /** On the hot path: map lookups and two updates of prebuilt children, nothing awaited. */
  observe(method: string, route: string | null, status: number, seconds: number): void {
    const r = route ?? UNMATCHED_ROUTE;
    const m = METHODS.has(method) ? method : 'other';
    let byMethod = this.series.get(r);
    if (!byMethod) this.series.set(r, (byMethod = new Map()));
    let byStatus = byMethod.get(m);
    if (!byStatus) byMethod.set(m, (byStatus = new Map()));
    let s = byStatus.get(status);
    if (!s) {
      const labels = { method: m, route: r, status: String(status) };
      byStatus.set(status, (s = { requests: this.requests.labels(labels), duration: this.duration.labels(labels) }));
    }
    s.requests.inc();
    s.duration.observe(seconds);
  }

  text(): Promise<string> {
    return exposition(this.registry);
  }
}
