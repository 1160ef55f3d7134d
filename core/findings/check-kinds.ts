import type { Schemas } from '../contract/index.ts';

// One entry per site-check finding kind, Lighthouse-audit style: its severity, what it compares
// (`worse`: a page got worse between two checks, a finding; `wrong`: a page is wrong on its own,
// an issue) and how it explains itself (`explain`: the page's value as a person reads it, a
// finding's `before` and `after` and an issue's `value`: "200" -> "500", "index, follow" ->
// "noindex", "850 words" -> "120 words"). Crawl kinds have a table of the same shape beside it
// (crawl-kinds.ts). A new kind is one entry here, its contract enum value and a test. Severities
// and thresholds are the table on CheckFindingKind in spec/site-checks.tsp (docs/api.md#check-findings).

type Page = Schemas['PageRecord'];
export type CheckFindingKind = Schemas['CheckFindingKind'];
export type Severity = Schemas['Severity'];

/** Words of visible text: a drop to half or less, from at least this many, is content_shrunk. */
export const CONTENT_SHRUNK = { ratio: 0.5, minBefore: 100, thinBelow: 50 } as const;
/** Same-origin links: a drop to half or less, from at least this many, is internal_links_dropped. */
export const LINKS_DROPPED = { ratio: 0.5, minBefore: 10 } as const;
/** Time to first byte: at least twice as slow and 500 ms slower; 2 s or more is an issue alone. */
export const SLOWER_RESPONSE = { ratio: 2, minIncreaseMs: 500, slowMs: 2000 } as const;
/**
 * Body size: at least twice as heavy, whatever the page's size, and at least 10 KB heavier; 3 MB
 * or more is an issue alone. Growth is judged relative to the page because a small page that grew
 * sevenfold (images inlined as base64, say) is as much a regression as a large one that doubled;
 * the small floor keeps a tiny page (a 2 KB stub that gained a paragraph) from counting.
 */
export const HEAVIER_PAGE = { ratio: 2, minIncreaseBytes: 10_000, heavyBytes: 3_000_000 } as const;

/**
 * Rendered metrics (medians of RENDER_RUNS Lighthouse runs): how much worse the after-median must
 * be than the before-median to count. Each band is above the largest run-to-run spread that
 * bench:render measured on the fixture pages (bench/results/render.md), so noise alone never
 * reaches it; spec/site-checks.tsp documents the same numbers.
 */
export const RENDER_BANDS = {
  /** LCP: at least this much slower, and by this ratio. */
  lcp: { minIncreaseMs: 500, ratio: 1.2 },
  /** CLS: at least this much more shift. */
  cls: { minIncrease: 0.05 },
  /** TBT: at least this much more blocking (the measured spread reached 305 ms on a loaded machine). */
  tbt: { minIncreaseMs: 400 },
  /** Total transfer bytes: at least this ratio and this many bytes heavier. */
  weight: { ratio: 1.25, minIncreaseBytes: 20_000 },
  /** A category score (0 to 100): at least this many points lower. */
  score: { minDrop: 10 },
} as const;

export interface CheckKindRule {
  kind: CheckFindingKind;
  severity: Severity;
  /**
   * The page's content is compared only when it answered 2xx both times, and the same page
   * (no redirect added): comparing a 404 page's title with the old page's says nothing.
   */
  needsContent: boolean;
  /** The page got worse from the baseline to the check: a finding. */
  worse(before: Page, after: Page): boolean;
  /** The page is wrong on its own: an issue. Absent for kinds only a comparison can tell. */
  wrong?(page: Page): boolean;
  /** The page's value for this kind as a person reads it: a finding's before/after, an issue's value. */
  explain(page: Page): unknown;
  /** When before/after depend on both pages (which category dropped): a finding's pair. */
  explainPair?(before: Page, after: Page): { before: unknown; after: unknown };
}

const ok = (p: Page) => p.status !== null && p.status >= 200 && p.status < 300;
const statusText = (p: Page) => (p.status === null ? 'network error' : String(p.status));
const isError = (p: Page) => p.status === null || p.status >= 500;
const isMissing = (p: Page) => p.status === 404 || p.status === 410;
/** A missing robots directive list means the defaults, which a person reads as "index, follow". */
const robotsText = (p: Page) => (p.robots.length ? p.robots.join(', ') : 'index, follow');
const hasRobots = (p: Page, d: 'noindex' | 'nofollow') => p.robots.includes(d) || p.robots.includes('none');
const chainText = (p: Page) =>
  p.redirects.length === 0 ? 'no redirect' : `${p.redirects.map((r) => `${r.status} ${r.url}`).join(' -> ')} -> ${p.finalUrl}`;
const present = (v: string | null | undefined): v is string => typeof v === 'string' && v.trim() !== '';
/** A blank value reads as absent (null), as a missing one does. */
const orNull = (v: string | null | undefined) => (present(v) ? v : null);
const languages = (p: Page) => [...new Set(p.hreflang.map((h) => h.lang))];
const ms = (n: number | null) => (n === null ? null : `${Math.round(n)} ms`);
const size = (n: number | null) => (n === null ? null : n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)} MB` : `${Math.round(n / 1000)} KB`);
const sameUrl = (a: string, b: string) => {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
};

/** The page's render when every run finished, else null: a failed or skipped render is never judged. */
const rendered = (p: Page) => (p.render?.state === 'rendered' ? p.render : null);
/**
 * Both pages' renders when both finished with the same Lighthouse preset, else null: a mobile
 * and a desktop render measure different devices (spec/workspaces.tsp RenderPreset).
 */
export function renderedPair(b: Page, a: Page): [NonNullable<Page['render']>, NonNullable<Page['render']>] | null {
  const rb = rendered(b);
  const ra = rendered(a);
  return rb && ra && rb.preset === ra.preset ? [rb, ra] : null;
}
/** A rendered metric of both pages, or null when either lacks it. */
function pair(b: Page, a: Page, get: (r: NonNullable<Page['render']>) => number | null | undefined): [number, number] | null {
  const both = renderedPair(b, a);
  if (!both) return null;
  const x = get(both[0]);
  const y = get(both[1]);
  return typeof x === 'number' && typeof y === 'number' ? [x, y] : null;
}
const CATEGORIES = [
  ['performance', 'performance'],
  ['accessibility', 'accessibility'],
  ['bestPractices', 'best-practices'],
  ['seo', 'SEO'],
] as const;
function droppedCategories(b: Page, a: Page): Array<{ name: string; before: number; after: number }> {
  const out: Array<{ name: string; before: number; after: number }> = [];
  for (const [key, name] of CATEGORIES) {
    const v = pair(b, a, (r) => r.scores?.[key]);
    if (v && v[0] - v[1] >= RENDER_BANDS.score.minDrop) out.push({ name, before: v[0], after: v[1] });
  }
  return out;
}
const renderedValue = (p: Page, text: (r: NonNullable<Page['render']>) => string | null) => {
  const r = rendered(p);
  return r ? text(r) : null;
};

export const CHECK_KINDS: readonly CheckKindRule[] = [
  {
    // The page answered before and fails now: a 5xx or no answer at all.
    kind: 'page_error',
    severity: 'critical',
    needsContent: false,
    worse: (b, a) => !isError(b) && isError(a),
    wrong: isError,
    explain: statusText,
  },
  {
    // The page existed before and is 404 or 410 now.
    kind: 'page_not_found',
    severity: 'critical',
    needsContent: false,
    worse: (b, a) => !isMissing(b) && !isError(b) && isMissing(a),
    wrong: isMissing,
    explain: statusText,
  },
  {
    // noindex (or none) in meta robots or X-Robots-Tag, absent before.
    kind: 'noindex_added',
    severity: 'critical',
    needsContent: false,
    worse: (b, a) => ok(a) && !hasRobots(b, 'noindex') && hasRobots(a, 'noindex'),
    wrong: (p) => ok(p) && hasRobots(p, 'noindex'),
    explain: robotsText,
  },
  {
    // robots.txt now disallows the page for crawlers.
    kind: 'robots_blocked',
    severity: 'critical',
    needsContent: false,
    worse: (b, a) => !b.blockedByRobotsTxt && a.blockedByRobotsTxt,
    wrong: (p) => p.blockedByRobotsTxt,
    explain: (p) => (p.blockedByRobotsTxt ? 'disallowed by robots.txt' : 'allowed by robots.txt'),
  },
  {
    kind: 'nofollow_added',
    severity: 'high',
    needsContent: false,
    worse: (b, a) => ok(a) && !hasRobots(b, 'nofollow') && hasRobots(a, 'nofollow'),
    wrong: (p) => ok(p) && hasRobots(p, 'nofollow'),
    explain: robotsText,
  },
  {
    // The page answered directly before and redirects now (or redirects somewhere else).
    kind: 'redirect_added',
    severity: 'high',
    needsContent: false,
    worse: (b, a) => a.redirects.length > 0 && (b.redirects.length === 0 || !sameUrl(b.finalUrl, a.finalUrl)),
    wrong: (p) => p.redirects.length > 0,
    explain: chainText,
  },
  {
    // Both checks have a canonical URL and they differ.
    kind: 'canonical_changed',
    severity: 'high',
    needsContent: true,
    worse: (b, a) => present(b.canonical) && present(a.canonical) && !sameUrl(b.canonical, a.canonical),
    // Alone: a canonical that points to another page than the one served.
    wrong: (p) => ok(p) && present(p.canonical) && !sameUrl(p.canonical, p.finalUrl),
    explain: (p) => orNull(p.canonical),
  },
  {
    kind: 'title_missing',
    severity: 'high',
    needsContent: true,
    worse: (b, a) => present(b.title) && !present(a.title),
    wrong: (p) => ok(p) && !present(p.title),
    explain: (p) => orNull(p.title),
  },
  {
    kind: 'canonical_removed',
    severity: 'medium',
    needsContent: true,
    worse: (b, a) => present(b.canonical) && !present(a.canonical),
    wrong: (p) => ok(p) && !present(p.canonical),
    explain: (p) => orNull(p.canonical),
  },
  {
    kind: 'meta_description_missing',
    severity: 'medium',
    needsContent: true,
    worse: (b, a) => present(b.metaDescription) && !present(a.metaDescription),
    wrong: (p) => ok(p) && !present(p.metaDescription),
    explain: (p) => orNull(p.metaDescription),
  },
  {
    kind: 'h1_missing',
    severity: 'medium',
    needsContent: true,
    worse: (b, a) => b.h1Count > 0 && a.h1Count === 0,
    wrong: (p) => ok(p) && p.h1Count === 0,
    explain: (p) => (p.h1Count === 0 ? 'no h1' : `${p.h1Count} h1`),
  },
  {
    // Any structured-data type of the baseline is gone. Alone, a page without any is not wrong.
    kind: 'structured_data_removed',
    severity: 'medium',
    needsContent: true,
    worse: (b, a) => b.structuredDataTypes.some((t) => !a.structuredDataTypes.includes(t)),
    explain: (p) => p.structuredDataTypes.join(', ') || null,
  },
  {
    // Any alternate language of the baseline is gone. Alone, a page in one language is not wrong.
    kind: 'hreflang_removed',
    severity: 'medium',
    needsContent: true,
    worse: (b, a) => languages(b).some((l) => !languages(a).includes(l)),
    explain: (p) => languages(p).join(', ') || null,
  },
  {
    kind: 'content_shrunk',
    severity: 'medium',
    needsContent: true,
    worse: (b, a) => b.wordCount >= CONTENT_SHRUNK.minBefore && a.wordCount <= b.wordCount * CONTENT_SHRUNK.ratio,
    wrong: (p) => ok(p) && p.wordCount < CONTENT_SHRUNK.thinBelow,
    explain: (p) => `${p.wordCount} words`,
  },
  {
    kind: 'internal_links_dropped',
    severity: 'medium',
    needsContent: true,
    worse: (b, a) => b.internalLinks >= LINKS_DROPPED.minBefore && a.internalLinks <= b.internalLinks * LINKS_DROPPED.ratio,
    wrong: (p) => ok(p) && p.internalLinks === 0,
    explain: (p) => `${p.internalLinks} internal links`,
  },
  {
    kind: 'slower_response',
    severity: 'medium',
    needsContent: false,
    worse: (b, a) =>
      b.ttfbMs !== null && a.ttfbMs !== null && ok(a) && a.ttfbMs >= b.ttfbMs * SLOWER_RESPONSE.ratio && a.ttfbMs - b.ttfbMs >= SLOWER_RESPONSE.minIncreaseMs,
    wrong: (p) => p.ttfbMs !== null && p.ttfbMs >= SLOWER_RESPONSE.slowMs,
    explain: (p) => ms(p.ttfbMs),
  },
  {
    kind: 'page_weight_increased',
    severity: 'low',
    needsContent: true,
    worse: (b, a) => b.bytes !== null && a.bytes !== null && a.bytes >= b.bytes * HEAVIER_PAGE.ratio && a.bytes - b.bytes >= HEAVIER_PAGE.minIncreaseBytes,
    wrong: (p) => ok(p) && p.bytes !== null && p.bytes >= HEAVIER_PAGE.heavyBytes,
    explain: (p) => size(p.bytes),
  },
  // Rendered metrics: judged only when the page was rendered in both checks, on the medians.
  {
    kind: 'lcp_regressed',
    severity: 'medium',
    needsContent: true,
    worse: (b, a) => {
      const v = pair(b, a, (r) => r.metrics?.lcpMs);
      return v !== null && v[1] - v[0] >= RENDER_BANDS.lcp.minIncreaseMs && v[1] >= v[0] * RENDER_BANDS.lcp.ratio;
    },
    explain: (p) => renderedValue(p, (r) => ms(r.metrics?.lcpMs ?? null)),
  },
  {
    kind: 'cls_regressed',
    severity: 'medium',
    needsContent: true,
    worse: (b, a) => {
      const v = pair(b, a, (r) => r.metrics?.cls);
      return v !== null && v[1] - v[0] >= RENDER_BANDS.cls.minIncrease;
    },
    explain: (p) => renderedValue(p, (r) => (r.metrics?.cls == null ? null : r.metrics.cls.toFixed(3))),
  },
  {
    kind: 'tbt_regressed',
    severity: 'medium',
    needsContent: true,
    worse: (b, a) => {
      const v = pair(b, a, (r) => r.metrics?.tbtMs);
      return v !== null && v[1] - v[0] >= RENDER_BANDS.tbt.minIncreaseMs;
    },
    explain: (p) => renderedValue(p, (r) => ms(r.metrics?.tbtMs ?? null)),
  },
  {
    kind: 'total_weight_increased',
    severity: 'low',
    needsContent: true,
    worse: (b, a) => {
      const v = pair(b, a, (r) => r.weight?.total);
      return v !== null && v[1] >= v[0] * RENDER_BANDS.weight.ratio && v[1] - v[0] >= RENDER_BANDS.weight.minIncreaseBytes;
    },
    explain: (p) => renderedValue(p, (r) => size(r.weight?.total ?? null)),
  },
  {
    kind: 'category_score_dropped',
    severity: 'medium',
    needsContent: true,
    worse: (b, a) => droppedCategories(b, a).length > 0,
    explain: (p) => renderedValue(p, (r) => CATEGORIES.map(([k, name]) => `${name} ${r.scores?.[k] ?? 'n/a'}`).join(', ')),
    // Names only the categories that dropped: "performance 96" -> "performance 71".
    explainPair: (b, a) => {
      const d = droppedCategories(b, a);
      return { before: d.map((x) => `${x.name} ${x.before}`).join(', '), after: d.map((x) => `${x.name} ${x.after}`).join(', ') };
    },
  },
];

export const CHECK_SEVERITY = Object.fromEntries(CHECK_KINDS.map((k) => [k.kind, k.severity])) as Record<CheckFindingKind, Severity>;
