import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { Audit, Gatherer, type Config, type Flags } from 'lighthouse';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import type { Schemas } from '../contract/index.ts';
import { addItemtypes, addJsonLdTypes } from '../pages/index.ts';
import { CHROME_FLAGS, launchPath } from './browser.ts';
import { RenderError } from './errors.ts';

// One page rendered by Lighthouse in a fresh headless Chromium, `runs` times. Everything the
// browser asks for goes through the guard proxy (guard-proxy.ts). The workspace's preset
// (spec/workspaces.tsp RenderPreset: Lighthouse's default mobile one, or its desktop one), the
// four categories it has by default; the metrics are simulated from the trace (Lighthouse's
// `simulate` throttling), which is what keeps run-to-run noise small.

export type RenderPreset = Schemas['RenderPreset'];

/** What one run saw. */
export interface RunResult {
  title: string | null;
  canonical: string | null;
  /** Directives of meta robots (and googlebot) in the rendered DOM, lower case. */
  robots: string[];
  /** `<link rel=alternate hreflang>` of the rendered DOM: language lower case, URL resolved. */
  hreflang: Array<{ lang: string; href: string }>;
  /** schema.org types of the rendered DOM's JSON-LD and microdata, sorted. */
  structuredDataTypes: string[];
  /** The form factor Lighthouse reports it emulated. */
  preset: RenderPreset;
  lcpMs: number | null;
  cls: number | null;
  tbtMs: number | null;
  speedIndexMs: number | null;
  /** Transfer bytes by resource type (Lighthouse's resource summary): total, document, script... */
  weight: Record<string, number>;
  /** Category scores, 0..100. */
  scores: { performance: number | null; accessibility: number | null; bestPractices: number | null; seo: number | null };
}

interface HeadArtifact {
  title: string | null;
  canonical: string | null;
  robots: string[];
  hreflang: Array<{ lang: string; href: string }>;
  /** Texts of the JSON-LD blocks and values of itemtype attributes, parsed here (core/pages), not in the page. */
  jsonLd: string[];
  itemtypes: string[];
}

/** What the page may hand back of its structured data: a page of a million JSON-LD blocks is read in part. */
const MAX_BLOCKS = 200;
const MAX_BLOCK_CHARS = 200_000;

/* The rendered head, read in the page after load. Stringified into the page: self-contained. */
function collectHead(maxBlocks: number, maxChars: number): HeadArtifact {
  const robots: string[] = [];
  for (const m of Array.from(document.querySelectorAll('meta[name]'))) {
    const name = (m.getAttribute('name') ?? '').toLowerCase();
    if (name !== 'robots' && name !== 'googlebot') continue;
    for (const d of (m.getAttribute('content') ?? '').split(',')) {
      const v = d.trim().toLowerCase();
      if (v && !robots.includes(v)) robots.push(v);
    }
  }
  const link = document.querySelector('link[rel~="canonical" i][href]') as HTMLLinkElement | null;
  const title = document.title.trim();
  const hreflang: Array<{ lang: string; href: string }> = [];
  const seen = new Set<string>();
  for (const a of Array.from(document.querySelectorAll('link[rel~="alternate" i][hreflang][href]')) as HTMLLinkElement[]) {
    const lang = (a.getAttribute('hreflang') ?? '').trim().toLowerCase();
    // `.href` is resolved against the document's base; an empty href resolves to the page itself, which the HTML reader ignores.
    if (lang === '' || (a.getAttribute('href') ?? '').trim() === '' || seen.has(`${lang} ${a.href}`)) continue;
    seen.add(`${lang} ${a.href}`);
    hreflang.push({ lang, href: a.href });
  }
  const jsonLd = Array.from(document.querySelectorAll('script[type="application/ld+json" i]'))
    .slice(0, maxBlocks)
    .map((s) => (s.textContent ?? '').slice(0, maxChars));
  const itemtypes = Array.from(document.querySelectorAll('[itemtype]'))
    .slice(0, maxBlocks)
    .map((e) => (e.getAttribute('itemtype') ?? '').slice(0, maxChars));
  return { title: title === '' ? null : title, canonical: link ? link.href : null, robots, hreflang, jsonLd, itemtypes };
}

type GatherContext = Parameters<Gatherer['getArtifact']>[0];

class RenderedHead extends Gatherer {
  meta = { supportedModes: ['navigation' as const] };
  getArtifact(context: GatherContext) {
    // Lighthouse's artifact types list its own artifacts only; this one is read back by the audit below.
    return context.driver.executionContext.evaluate(collectHead, { args: [MAX_BLOCKS, MAX_BLOCK_CHARS], useIsolation: true }) as unknown as ReturnType<Gatherer['getArtifact']>;
  }
}

class RenderedHeadAudit extends Audit {
  static get meta() {
    return {
      id: 'sitehealth-rendered-head',
      title: 'Rendered head',
      description: 'The title, canonical URL, robots directives, hreflang alternates and structured data of the rendered DOM.',
      scoreDisplayMode: 'informative' as const,
      requiredArtifacts: ['RenderedHead'] as unknown as typeof Audit.meta.requiredArtifacts,
    };
  }
  static audit(artifacts: Parameters<typeof Audit.audit>[0]) {
    const head = (artifacts as unknown as { RenderedHead: object }).RenderedHead;
    return { score: null, details: { type: 'debugdata' as const, ...head } };
  }
}

const CONFIG = {
  extends: 'lighthouse:default',
  artifacts: [{ id: 'RenderedHead', gatherer: { implementation: RenderedHead } }],
  audits: [{ implementation: RenderedHeadAudit }],
  categories: { seo: { auditRefs: [{ id: 'sitehealth-rendered-head', weight: 0 }] } },
} as unknown as Config;

/** Per preset: the default settings are mobile; desktop takes Lighthouse's own desktop settings (screen, user agent, throttling). */
const CONFIGS: Record<RenderPreset, Config> = {
  mobile: CONFIG,
  desktop: { ...CONFIG, settings: { ...desktopConfig.settings } },
};

export interface RenderRunsOptions {
  runs: number;
  preset: RenderPreset;
  /** One run, load to report. */
  timeoutMs: number;
  /** `127.0.0.1:<port>` of the guard proxy. */
  proxy: string;
}


/**
 * Renders `url` `runs` times in one fresh browser (its own user-data dir, removed afterwards).
 * A run that errs, reports a runtime error or outlasts `timeoutMs` fails the whole render: no
 * partial result is ever returned.
 */
export async function renderRuns(url: string, o: RenderRunsOptions): Promise<RunResult[]> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-chromium-'));
  let chrome: chromeLauncher.LaunchedChrome | null = null;
  try {
    chrome = await launchBrowser(userDataDir, o.proxy);
    const out: RunResult[] = [];
    for (let i = 0; i < o.runs; i++) out.push(await oneRun(url, chrome, o.timeoutMs, CONFIGS[o.preset]));
    return out;
  } finally {
    if (chrome) {
      try {
        chrome.kill();
      } catch {
        // already gone (it crashed): nothing to stop
      }
    }
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
}

/**
 * A headless browser whose every request, loopback included, goes through the guard proxy
 * (`<-loopback>` removes Chromium's implicit bypass of localhost and 127.0.0.1), and which ends
 * with this process (browser.ts launchPath).
 */
export function launchBrowser(userDataDir: string, proxy: string): Promise<chromeLauncher.LaunchedChrome> {
  return chromeLauncher.launch({
    chromePath: launchPath(),
    userDataDir,
    logLevel: 'silent',
    chromeFlags: [...CHROME_FLAGS, `--proxy-server=http://${proxy}`, '--proxy-bypass-list=<-loopback>'],
  });
}

async function oneRun(url: string, chrome: chromeLauncher.LaunchedChrome, timeoutMs: number, config: Config): Promise<RunResult> {
  const flags: Flags = {
    port: chrome.port,
    logLevel: 'silent',
    output: 'json',
    // Lighthouse would go on after this with what it has; the deadline below ends the run first.
    maxWaitForLoad: timeoutMs * 2,
    disableFullPageScreenshot: true,
    skipAudits: ['screenshot-thumbnails', 'final-screenshot', 'bf-cache'],
  };
  let timer: NodeJS.Timeout | undefined;
  let onExit: ((code: number | null, signal: string | null) => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RenderError(`the page did not finish rendering within ${timeoutMs} ms`)), timeoutMs);
  });
  // Lighthouse does not notice a browser that died while it waits for the page (a load event that
  // never comes): the run would last until the deadline. The browser's exit ends it at once.
  const crashed = new Promise<never>((_, reject) => {
    onExit = (code, signal) => reject(new RenderError(`the browser failed: it ended during the render (${signal ?? `exit code ${code}`})`));
    chrome.process.once('exit', onExit);
  });
  crashed.catch(() => undefined);
  try {
    const result = await Promise.race([lighthouse(url, flags, config), deadline, crashed]);
    const lhr = result?.lhr;
    if (!lhr) throw new RenderError('the browser returned no report');
    if (lhr.runtimeError) throw new RenderError(`the render failed: ${lhr.runtimeError.code}`);
    return fromReport(lhr);
  } catch (err) {
    // A timed-out or crashed run leaves the browser in an unknown state: it is not reused.
    try {
      chrome.kill();
    } catch {
      // gone already
    }
    if (err instanceof RenderError) throw err;
    throw new RenderError(`the browser failed: ${(err as Error)?.message ?? String(err)}`.slice(0, 300));
  } finally {
    clearTimeout(timer);
    if (onExit) chrome.process.off('exit', onExit);
  }
}

type Lhr = NonNullable<Awaited<ReturnType<typeof lighthouse>>>['lhr'];

function fromReport(lhr: Lhr): RunResult {
  const num = (id: string) => {
    const v = lhr.audits[id]?.numericValue;
    return typeof v === 'number' && Number.isFinite(v) ? v : null;
  };
  const score = (id: string) => {
    const s = lhr.categories[id]?.score;
    return typeof s === 'number' ? Math.round(s * 100) : null;
  };
  const head = (lhr.audits['sitehealth-rendered-head']?.details ?? {}) as Partial<HeadArtifact>;
  const types = new Set<string>();
  for (const block of head.jsonLd ?? []) addJsonLdTypes(block, types);
  for (const value of head.itemtypes ?? []) addItemtypes(value, types);
  const weight: Record<string, number> = {};
  const items = (lhr.audits['resource-summary']?.details as { items?: Array<{ resourceType: string; transferSize: number }> } | undefined)?.items ?? [];
  for (const it of items) if (it.resourceType !== 'third-party') weight[it.resourceType] = Math.round(it.transferSize);
  return {
    title: head.title ?? null,
    canonical: head.canonical ?? null,
    robots: Array.isArray(head.robots) ? head.robots : [],
    hreflang: Array.isArray(head.hreflang) ? head.hreflang : [],
    structuredDataTypes: [...types].sort(),
    preset: lhr.configSettings.formFactor === 'desktop' ? 'desktop' : 'mobile',
    lcpMs: num('largest-contentful-paint'),
    cls: num('cumulative-layout-shift'),
    tbtMs: num('total-blocking-time'),
    speedIndexMs: num('speed-index'),
    weight,
    scores: { performance: score('performance'), accessibility: score('accessibility'), bestPractices: score('best-practices'), seo: score('seo') },
  };
}
