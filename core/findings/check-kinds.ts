import type { Schemas } from '../contract/index.ts';

// One entry per site-check finding kind, Lighthouse-audit style: its severity, the rule that
// says a page got worse between two checks (`compare`), and the rule that says a page is wrong
// on its own (`judge`, for `issues`). Values are written as a person reads them: "200" ->
// "500", "index, follow" -> "noindex", "850 words" -> "120 words". A new kind is one entry here,
// its contract enum value and a test. Thresholds are documented in spec/site-checks.tsp.

type Page = Schemas['PageRecord'];
export type CheckFindingKind = Schemas['CheckFindingKind'];
export type Severity = Schemas['Severity'];

/** Words of visible text: a drop to half or less, from at least this many, is content_shrunk. */
export const CONTENT_SHRUNK = { ratio: 0.5, minBefore: 100, thinBelow: 50 } as const;
/** Same-origin links: a drop to half or less, from at least this many, is internal_links_dropped. */
export const LINKS_DROPPED = { ratio: 0.5, minBefore: 10 } as const;
/** Time to first byte: at least twice as slow and 500 ms slower; 2 s or more is an issue alone. */
export const SLOWER_RESPONSE = { ratio: 2, minIncreaseMs: 500, slowMs: 2000 } as const;
/** Body size: at least twice as heavy and 100 KB heavier; 3 MB or more is an issue alone. */
export const HEAVIER_PAGE = { ratio: 2, minIncreaseBytes: 100_000, heavyBytes: 3_000_000 } as const;

export interface CheckKindRule {
  kind: CheckFindingKind;
  severity: Severity;
  /**
   * The page's content is compared only when it answered 200 both times, and the same page
   * (no redirect added): comparing a 404 page's title with the old page's says nothing.
   */
  needsContent: boolean;
  compare(before: Page, after: Page): { before: unknown; after: unknown } | null;
  /** What is wrong with the page on its own; undefined for kinds only a comparison can tell. */
  judge?(page: Page): unknown;
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
const ms = (n: number) => `${Math.round(n)} ms`;
const size = (n: number) => (n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)} MB` : `${Math.round(n / 1000)} KB`);
const sameUrl = (a: string, b: string) => {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
};

export const CHECK_KINDS: readonly CheckKindRule[] = [
  {
    // The page answered before and fails now: a 5xx or no answer at all.
    kind: 'page_error',
    severity: 'critical',
    needsContent: false,
    compare: (b, a) => (!isError(b) && isError(a) ? { before: statusText(b), after: statusText(a) } : null),
    judge: (p) => (isError(p) ? statusText(p) : undefined),
  },
  {
    // The page existed before and is 404 or 410 now.
    kind: 'page_not_found',
    severity: 'critical',
    needsContent: false,
    compare: (b, a) => (!isMissing(b) && !isError(b) && isMissing(a) ? { before: statusText(b), after: statusText(a) } : null),
    judge: (p) => (isMissing(p) ? statusText(p) : undefined),
  },
  {
    // noindex (or none) in meta robots or X-Robots-Tag, absent before.
    kind: 'noindex_added',
    severity: 'critical',
    needsContent: false,
    compare: (b, a) => (ok(a) && !hasRobots(b, 'noindex') && hasRobots(a, 'noindex') ? { before: robotsText(b), after: robotsText(a) } : null),
    judge: (p) => (ok(p) && hasRobots(p, 'noindex') ? robotsText(p) : undefined),
  },
  {
    // robots.txt now disallows the page for crawlers.
    kind: 'robots_blocked',
    severity: 'critical',
    needsContent: false,
    compare: (b, a) => (!b.blockedByRobotsTxt && a.blockedByRobotsTxt ? { before: 'allowed by robots.txt', after: 'disallowed by robots.txt' } : null),
    judge: (p) => (p.blockedByRobotsTxt ? 'disallowed by robots.txt' : undefined),
  },
  {
    kind: 'nofollow_added',
    severity: 'high',
    needsContent: false,
    compare: (b, a) => (ok(a) && !hasRobots(b, 'nofollow') && hasRobots(a, 'nofollow') ? { before: robotsText(b), after: robotsText(a) } : null),
    judge: (p) => (ok(p) && hasRobots(p, 'nofollow') ? robotsText(p) : undefined),
  },
  {
    // The page answered directly before and redirects now (or redirects somewhere else).
    kind: 'redirect_added',
    severity: 'high',
    needsContent: false,
    compare: (b, a) =>
      a.redirects.length > 0 && (b.redirects.length === 0 || !sameUrl(b.finalUrl, a.finalUrl)) ? { before: chainText(b), after: chainText(a) } : null,
    judge: (p) => (p.redirects.length > 0 ? chainText(p) : undefined),
  },
  {
    // Both checks have a canonical URL and they differ.
    kind: 'canonical_changed',
    severity: 'high',
    needsContent: true,
    compare: (b, a) => (present(b.canonical) && present(a.canonical) && !sameUrl(b.canonical, a.canonical) ? { before: b.canonical, after: a.canonical } : null),
    // Alone: a canonical that points to another page than the one served.
    judge: (p) => (ok(p) && present(p.canonical) && !sameUrl(p.canonical, p.finalUrl) ? p.canonical : undefined),
  },
  {
    kind: 'title_missing',
    severity: 'high',
    needsContent: true,
    compare: (b, a) => (present(b.title) && !present(a.title) ? { before: b.title, after: null } : null),
    judge: (p) => (ok(p) && !present(p.title) ? null : undefined),
  },
  {
    kind: 'canonical_removed',
    severity: 'medium',
    needsContent: true,
    compare: (b, a) => (present(b.canonical) && !present(a.canonical) ? { before: b.canonical, after: null } : null),
    judge: (p) => (ok(p) && !present(p.canonical) ? null : undefined),
  },
  {
    kind: 'meta_description_missing',
    severity: 'medium',
    needsContent: true,
    compare: (b, a) => (present(b.metaDescription) && !present(a.metaDescription) ? { before: b.metaDescription, after: null } : null),
    judge: (p) => (ok(p) && !present(p.metaDescription) ? null : undefined),
  },
  {
    kind: 'h1_missing',
    severity: 'medium',
    needsContent: true,
    compare: (b, a) => (b.h1Count > 0 && a.h1Count === 0 ? { before: `${b.h1Count} h1`, after: 'no h1' } : null),
    judge: (p) => (ok(p) && p.h1Count === 0 ? 'no h1' : undefined),
  },
  {
    // Any structured-data type of the baseline is gone.
    kind: 'structured_data_removed',
    severity: 'medium',
    needsContent: true,
    compare: (b, a) => {
      const gone = b.structuredDataTypes.filter((t) => !a.structuredDataTypes.includes(t));
      return gone.length ? { before: b.structuredDataTypes.join(', '), after: a.structuredDataTypes.join(', ') || null } : null;
    },
  },
  {
    // Any alternate language of the baseline is gone.
    kind: 'hreflang_removed',
    severity: 'medium',
    needsContent: true,
    compare: (b, a) => {
      const langs = (p: Page) => [...new Set(p.hreflang.map((h) => h.lang))];
      const gone = langs(b).filter((l) => !langs(a).includes(l));
      return gone.length ? { before: langs(b).join(', '), after: langs(a).join(', ') || null } : null;
    },
  },
  {
    kind: 'content_shrunk',
    severity: 'medium',
    needsContent: true,
    compare: (b, a) =>
      b.wordCount >= CONTENT_SHRUNK.minBefore && a.wordCount <= b.wordCount * CONTENT_SHRUNK.ratio
        ? { before: `${b.wordCount} words`, after: `${a.wordCount} words` }
        : null,
    judge: (p) => (ok(p) && p.wordCount < CONTENT_SHRUNK.thinBelow ? `${p.wordCount} words` : undefined),
  },
  {
    kind: 'internal_links_dropped',
    severity: 'medium',
    needsContent: true,
    compare: (b, a) =>
      b.internalLinks >= LINKS_DROPPED.minBefore && a.internalLinks <= b.internalLinks * LINKS_DROPPED.ratio
        ? { before: `${b.internalLinks} internal links`, after: `${a.internalLinks} internal links` }
        : null,
    judge: (p) => (ok(p) && p.internalLinks === 0 ? '0 internal links' : undefined),
  },
  {
    kind: 'slower_response',
    severity: 'medium',
    needsContent: false,
    compare: (b, a) =>
      b.ttfbMs !== null && a.ttfbMs !== null && ok(a) && a.ttfbMs >= b.ttfbMs * SLOWER_RESPONSE.ratio && a.ttfbMs - b.ttfbMs >= SLOWER_RESPONSE.minIncreaseMs
        ? { before: ms(b.ttfbMs), after: ms(a.ttfbMs) }
        : null,
    judge: (p) => (p.ttfbMs !== null && p.ttfbMs >= SLOWER_RESPONSE.slowMs ? ms(p.ttfbMs) : undefined),
  },
  {
    kind: 'page_weight_increased',
    severity: 'low',
    needsContent: true,
    compare: (b, a) =>
      b.bytes !== null && a.bytes !== null && a.bytes >= b.bytes * HEAVIER_PAGE.ratio && a.bytes - b.bytes >= HEAVIER_PAGE.minIncreaseBytes
        ? { before: size(b.bytes), after: size(a.bytes) }
        : null,
    judge: (p) => (ok(p) && p.bytes !== null && p.bytes >= HEAVIER_PAGE.heavyBytes ? size(p.bytes) : undefined),
  },
];

export const CHECK_SEVERITY: Record<CheckFindingKind, Severity> = Object.fromEntries(CHECK_KINDS.map((k) => [k.kind, k.severity])) as Record<
  CheckFindingKind,
  Severity
>;
