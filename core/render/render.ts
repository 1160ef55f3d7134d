import type { Logger } from 'pino';
import type { Schemas } from '../contract/index.ts';
import { startGuardProxy } from './guard-proxy.ts';
import { BROWSER_PATH, browserAvailable } from './browser.ts';
import { RenderProcess } from './isolated.ts';
import type { RenderPreset, RunResult } from './lighthouse.ts';

type PageRender = Schemas['PageRender'];

export interface RenderSettings {
  /** RENDER_CHECKS: auto renders when the browser is installed; on expects it (a missing browser fails each page's render). */
  mode: 'auto' | 'on' | 'off';
  /** RENDER_RUNS */
  runs: number;
  /** RENDER_TIMEOUT_MS: one run of one page. */
  timeoutMs: number;
  /** The workspace's Lighthouse preset (spec/workspaces.tsp RenderPreset). */
  preset: RenderPreset;
  allowPrivateNetwork: boolean;
  log: Logger;
  signal?: AbortSignal;
}

export interface RenderOutcome {
  /** By URL as given. */
  renders: Map<string, PageRender>;
  /** Why the check is HTML-only, or null when it rendered. */
  htmlOnlyNote: string | null;
}

const empty = (state: PageRender['state'], reason: string): PageRender => ({
  state,
  reason,
  runs: 0,
  title: null,
  canonical: null,
  robots: [],
  hreflang: [],
  structuredDataTypes: [],
  preset: null,
  metrics: null,
  weight: null,
  scores: null,
});

function median(values: Array<number | null>): number | null {
  const xs = values.filter((v): v is number => v !== null).sort((a, b) => a - b);
  if (xs.length === 0) return null;
  const mid = Math.floor(xs.length / 2);
  return xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

/** The most frequent value (the first seen among equals): tags are values, not numbers. */
function mode<T>(values: T[]): T {
  const counts = new Map<string, { v: T; n: number }>();
  for (const v of values) {
    const k = JSON.stringify(v);
    const c = counts.get(k) ?? { v, n: 0 };
    c.n++;
    counts.set(k, c);
  }
  return [...counts.values()].sort((a, b) => b.n - a.n)[0].v;
}

/** One page's record from its runs: medians of every number, the most frequent rendered tags. */
export function summarize(runs: RunResult[]): PageRender {
  const round = (v: number | null, digits = 0) => (v === null ? null : Number(v.toFixed(digits)));
  const types = [...new Set(runs.flatMap((r) => Object.keys(r.weight)))];
  const weight: Record<string, number> = {};
  for (const t of types) weight[t] = Math.round(median(runs.map((r) => r.weight[t] ?? null)) ?? 0);
  const head = mode(runs.map((r) => ({ title: r.title, canonical: r.canonical, robots: r.robots, hreflang: r.hreflang, structuredDataTypes: r.structuredDataTypes, preset: r.preset })));
  const score = (k: keyof RunResult['scores']) => round(median(runs.map((r) => r.scores[k])));
  return {
    state: 'rendered',
    reason: null,
    runs: runs.length,
    ...head,
    metrics: {
      lcpMs: round(median(runs.map((r) => r.lcpMs))),
      cls: round(median(runs.map((r) => r.cls)), 4),
      tbtMs: round(median(runs.map((r) => r.tbtMs))),
      speedIndexMs: round(median(runs.map((r) => r.speedIndexMs))),
    },
    weight,
    scores: { performance: score('performance'), accessibility: score('accessibility'), bestPractices: score('bestPractices'), seo: score('seo') },
  };
}

/**
 * One browser at a time per process: a worker running several checks at once (WORKER_CONCURRENCY)
 * renders their pages in turn, so its memory holds one browser (about 1.2 GiB at peak, measured by
 * bench:render) whatever the concurrency. The time limit of a run starts when its turn comes.
 */
let lane: Promise<unknown> = Promise.resolve();
function inTurn<T>(fn: () => Promise<T>): Promise<T> {
  const run = lane.then(fn, fn);
  lane = run.catch(() => undefined);
  return run;
}

/**
 * Renders each page (one at a time: a browser is the heaviest thing a worker runs) and returns
 * its record. A page whose render fails is marked `failed` with the reason; it never fails the
 * check. With rendering off or no browser, every page is `skipped` and the check is HTML-only.
 */
export async function renderPages(urls: readonly string[], s: RenderSettings): Promise<RenderOutcome> {
  const renders = new Map<string, PageRender>();
  if (s.mode === 'off') {
    const note = 'rendering is off (RENDER_CHECKS=off): HTML checks only';
    for (const u of urls) renders.set(u, empty('skipped', note));
    return { renders, htmlOnlyNote: note };
  }
  if (!browserAvailable()) {
    if (s.mode === 'auto') {
      const note = `no browser found at ${BROWSER_PATH}: HTML checks only`;
      for (const u of urls) renders.set(u, empty('skipped', note));
      return { renders, htmlOnlyNote: note };
    }
    s.log.warn({ browser: BROWSER_PATH }, 'RENDER_CHECKS=on but no browser is installed');
    for (const u of urls) renders.set(u, empty('failed', `no browser found at ${BROWSER_PATH}`));
    return { renders, htmlOnlyNote: null };
  }
  // Lighthouse runs in a process of its own (isolated.ts): a browser that crashes ends that page's render, not the worker.
  const renderer = new RenderProcess();
  const proxy = await startGuardProxy({ allowPrivateNetwork: s.allowPrivateNetwork });
  try {
    for (const url of urls) {
      if (s.signal?.aborted) {
        renders.set(url, empty('failed', 'the check was stopped'));
        continue;
      }
      try {
        renders.set(url, summarize(await inTurn(() => renderer.render({ url, runs: s.runs, timeoutMs: s.timeoutMs, preset: s.preset, proxy: proxy.address }))));
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        s.log.info({ url, reason }, 'page render failed');
        renders.set(url, empty('failed', reason));
      }
    }
    if (proxy.refused.length) s.log.info({ refused: proxy.refused.length }, 'browser requests to non-public addresses refused');
  } finally {
    renderer.close();
    await proxy.close();
  }
  return { renders, htmlOnlyNote: null };
}
