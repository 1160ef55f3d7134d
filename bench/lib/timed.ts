// Closed-loop timing for benchmarks whose unit of work is a few requests in sequence (a sign-in
// with its second step, a passkey ceremony) rather than one route under autocannon: `concurrency`
// loops each run `once` until `count` have run, and the report rows compare each run with a
// yardstick's rate (bench:sign-in, bench:passkeys).

export interface TimedRun {
  label: string;
  count: number;
  perSecond: number;
  /** Milliseconds per `once`, sorted. */
  latencies: number[];
}

export const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

export async function timed(label: string, count: number, concurrency: number, once: (i: number) => Promise<void>): Promise<TimedRun> {
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const started = performance.now();
        await once(i);
        latencies.push(performance.now() - started);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { label, count, perSecond: count / ((performance.now() - t0) / 1000), latencies };
}

/** One Markdown row: engine, load, count, rate, share of the yardstick's rate, p50, p99 and max. */
export function timedRow(engine: string, r: TimedRun, yardstickPerSecond: number): string {
  return `| ${engine} | ${r.label} | ${r.count} | ${r.perSecond.toFixed(1)}/s | ${Math.round((100 * r.perSecond) / yardstickPerSecond)}% | ${percentile(r.latencies, 50).toFixed(1)} | ${percentile(r.latencies, 99).toFixed(1)} | ${r.latencies.at(-1)!.toFixed(1)} |`;
}
