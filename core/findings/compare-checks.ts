import type { Schemas } from '../contract/index.ts';
import { CHECK_KINDS, renderedPair, type CheckFindingKind, type Severity } from './check-kinds.ts';

type Page = Schemas['PageRecord'];

export interface RawCheckFinding {
  kind: CheckFindingKind;
  severity: Severity;
  url: string;
  before: unknown;
  after: unknown;
}

const SEVERITY_ORDER: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3 };

/** Most severe first, then by URL, then by kind: a stable order people and tests can rely on. */
export function bySeverity<T extends { severity: Severity; url: string; kind: string }>(a: T, b: T): number {
  return SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0) || (a.kind < b.kind ? -1 : 1);
}

const answered = (p: Page) => p.status !== null && p.status >= 200 && p.status < 300;

/**
 * What got worse on the pages both checks looked at (matched by the URL asked for). A page that
 * now errors, is missing or redirects elsewhere reports that alone: its content is another page's.
 */
export function compareChecks(baseline: readonly Page[], current: readonly Page[]): RawCheckFinding[] {
  const before = new Map(baseline.map((p) => [p.url, p]));
  const out: RawCheckFinding[] = [];
  for (const after of current) {
    const b = before.get(after.url);
    if (!b) continue;
    const sameContent = answered(b) && answered(after) && b.finalUrl === after.finalUrl;
    for (const rule of CHECK_KINDS) {
      if (rule.needsContent && !sameContent) continue;
      if (rule.worse(b, after)) {
        const text = rule.explainPair ? rule.explainPair(b, after) : { before: rule.explain(b), after: rule.explain(after) };
        out.push({ kind: rule.kind, severity: rule.severity, url: after.url, ...text });
      }
    }
  }
  return out.sort(bySeverity);
}

/** What is wrong in one check on its own (`issues`). */
export function judgeCheck(pages: readonly Page[]): Schemas['SiteCheckIssue'][] {
  const out: Schemas['SiteCheckIssue'][] = [];
  for (const page of pages) {
    for (const rule of CHECK_KINDS) {
      if (rule.wrong?.(page)) out.push({ kind: rule.kind, severity: rule.severity, url: page.url, value: rule.explain(page) });
    }
  }
  return out.sort(bySeverity);
}

/** The kinds judged on the rendered DOM as well (spec/site-checks.tsp, CheckFindingKind). */
export const RENDERED_KINDS: ReadonlySet<CheckFindingKind> = new Set([
  'noindex_added',
  'nofollow_added',
  'title_missing',
  'canonical_changed',
  'canonical_removed',
  'structured_data_removed',
  'hreflang_removed',
]);

/**
 * The page as a search engine that renders sees it: the rendered title, canonical, hreflang
 * alternates and structured-data types, and the rendered meta robots added to the HTML's
 * directives (which hold X-Robots-Tag, a header no script can change; a directive the HTML had and
 * a script removed still counts, so removing a tag never reads as adding one).
 */
function renderedView(p: Page, r: NonNullable<Page['render']>): Page {
  return {
    ...p,
    title: r.title,
    canonical: r.canonical,
    robots: [...new Set([...p.robots, ...r.robots])],
    hreflang: r.hreflang,
    structuredDataTypes: r.structuredDataTypes,
  };
}

/** A rendered value that is gone altogether reads as `none`, not as a blank. */
const shown = (v: unknown) => (v === null || v === undefined || v === '' ? 'none' : String(v));

/**
 * The rendered-tag findings that the HTML comparison did not already report: a page rendered in
 * both checks whose rendered value got worse. The HTML did not change that way, so JavaScript
 * did it, and `after` says so. A page not rendered in either check (skipped, failed), or rendered
 * with another preset, adds nothing.
 */
export function compareRendered(baseline: readonly Page[], current: readonly Page[]): RawCheckFinding[] {
  const before = new Map(baseline.map((p) => [p.url, p]));
  const html = new Set(compareChecks(baseline, current).map((f) => `${f.kind} ${f.url}`));
  const out: RawCheckFinding[] = [];
  for (const after of current) {
    const b = before.get(after.url);
    const both = b && renderedPair(b, after);
    if (!b || !both) continue;
    const rb = renderedView(b, both[0]);
    const ra = renderedView(after, both[1]);
    const sameContent = answered(b) && answered(after) && b.finalUrl === after.finalUrl;
    for (const rule of CHECK_KINDS) {
      if (!RENDERED_KINDS.has(rule.kind) || html.has(`${rule.kind} ${after.url}`)) continue;
      if (rule.needsContent && !sameContent) continue;
      if (rule.worse(rb, ra)) {
        out.push({ kind: rule.kind, severity: rule.severity, url: after.url, before: rule.explain(rb), after: `${shown(rule.explain(ra))} (set by JavaScript)` });
      }
    }
  }
  return out.sort(bySeverity);
}
