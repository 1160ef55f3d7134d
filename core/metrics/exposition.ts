import { Registry, collectDefaultMetrics } from 'prom-client';

// Each listener keeps its own metrics in a Registry of its own (never prom-client's global one),
// so several apps in one test process count apart; the process metrics are shared.

export const METRIC_PREFIX = 'sitehealth_';

/** `text/plain; version=0.0.4; charset=utf-8`: the Prometheus text format. */
export const EXPOSITION_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

let processRegistry: Registry | null = null;

/**
 * CPU, memory, event loop and GC describe the process, not one app in it: collected once per
 * process (collectDefaultMetrics starts an event-loop monitor and a GC observer per call).
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, prefix: METRIC_PREFIX });
  }
  return processRegistry;
}

/**
 * A registry for one listener's own metrics. Creating it starts the process metrics too: their
 * CPU counters count from their creation, which must not wait for the first scrape.
 */
export function newRegistry(): Registry {
  processMetrics();
  return new Registry();
}

/** The exposition text of the process metrics followed by `own`'s (made by newRegistry). */
export async function exposition(own: Registry): Promise<string> {
  const [proc, mine] = await Promise.all([processMetrics().metrics(), own.metrics()]);
  return proc + mine;
}
