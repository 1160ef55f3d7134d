// The rendered-metric finding kinds (spec/site-checks.tsp, CheckFindingKind: lcp_regressed,
// cls_regressed, tbt_regressed, total_weight_increased, category_score_dropped) on page records
// as a check stores them: a change within the noise band raises nothing, one beyond it raises the
// kind, and a page whose render failed or was skipped in either check raises none. The rendered
// tags (hreflang and structured data here; robots and title end to end) raise the existing SEO
// kinds "set by JavaScript". Renders with different Lighthouse presets are never compared. The
// browser side (that real renders produce these records) is test/checks-render.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareChecks, compareRendered, RENDER_BANDS } from '../core/findings/index.ts';
import { pageFromRow } from '../core/checks/index.ts';
import type { Schemas } from '../core/contract/index.ts';

type Page = Schemas['PageRecord'];
type Render = Schemas['PageRender'];

const URL_ = 'https://www.example.com/blog/launch';
type RenderOptions = { lcp?: number; cls?: number; tbt?: number; total?: number; perf?: number; seo?: number; state?: Render['state']; preset?: Render['preset']; hreflang?: string[]; types?: string[] };
const render = (o: RenderOptions = {}): Render => ({
  state: o.state ?? 'rendered',
  reason: o.state && o.state !== 'rendered' ? 'the page did not finish rendering within 30000 ms' : null,
  runs: o.state && o.state !== 'rendered' ? 0 : 3,
  title: 'Launch',
  canonical: URL_,
  robots: [],
  hreflang: (o.hreflang ?? ['en', 'de']).map((lang) => ({ lang, href: `https://www.example.com/${lang}/blog/launch` })),
  structuredDataTypes: o.types ?? ['Article', 'BreadcrumbList'],
  preset: o.state && o.state !== 'rendered' ? null : (o.preset ?? 'mobile'),
  metrics: o.state && o.state !== 'rendered' ? null : { lcpMs: o.lcp ?? 1500, cls: o.cls ?? 0.01, tbtMs: o.tbt ?? 50, speedIndexMs: 1200 },
  weight: o.state && o.state !== 'rendered' ? null : { total: o.total ?? 200_000, document: 20_000, script: 80_000, image: 100_000 },
  scores: o.state && o.state !== 'rendered' ? null : { performance: o.perf ?? 95, accessibility: 90, bestPractices: 96, seo: o.seo ?? 92 },
});
const page = (r: Render | undefined): Page => ({
  url: URL_, finalUrl: URL_, status: 200, redirects: [], ttfbMs: 100, bytes: 20_000, title: 'Launch', metaDescription: 'd', canonical: URL_,
  robots: [], h1Count: 1, hreflang: [], structuredDataTypes: [], wordCount: 500, internalLinks: 20, blockedByRobotsTxt: false, ...(r ? { render: r } : {}),
});
const kinds = (b: Render | undefined, a: Render | undefined) => [...compareChecks([page(b)], [page(a)]), ...compareRendered([page(b)], [page(a)])];

describe('rendered metric findings', () => {
  it('ignore changes within each noise band', () => {
    const b = render();
    const a = render({
      lcp: 1500 + RENDER_BANDS.lcp.minIncreaseMs - 1,
      cls: 0.01 + RENDER_BANDS.cls.minIncrease / 2,
      tbt: 50 + RENDER_BANDS.tbt.minIncreaseMs - 1,
      total: 200_000 * RENDER_BANDS.weight.ratio - 1,
      perf: 95 - RENDER_BANDS.score.minDrop + 1,
    });
    assert.deepEqual(kinds(b, a), []);
  });

  it('report each metric that got worse beyond its band, with its values, and name the category that dropped', () => {
    const f = kinds(render(), render({ lcp: 2600, cls: 0.2, tbt: 600, total: 700_000, perf: 61, seo: 92 }));
    const by = Object.fromEntries(f.map((x) => [x.kind, x]));
    assert.deepEqual(Object.keys(by).sort(), ['category_score_dropped', 'cls_regressed', 'lcp_regressed', 'tbt_regressed', 'total_weight_increased']);
    assert.deepEqual([by.lcp_regressed.before, by.lcp_regressed.after, by.lcp_regressed.severity], ['1500 ms', '2600 ms', 'medium']);
    assert.deepEqual([by.cls_regressed.before, by.cls_regressed.after], ['0.010', '0.200']);
    assert.deepEqual([by.tbt_regressed.before, by.tbt_regressed.after], ['50 ms', '600 ms']);
    assert.deepEqual([by.total_weight_increased.before, by.total_weight_increased.after, by.total_weight_increased.severity], ['200 KB', '700 KB', 'low']);
    assert.deepEqual([by.category_score_dropped.before, by.category_score_dropped.after], ['performance 95', 'performance 61']);
  });

  it('a slow LCP that is not 1.2 times the baseline is noise on a slow page', () => {
    assert.deepEqual(kinds(render({ lcp: 5000 }), render({ lcp: 5900 })), []);
  });

  it('raise nothing when either render failed, was skipped, or the baseline predates rendering', () => {
    const worse = render({ lcp: 9000, cls: 0.5, tbt: 2000, total: 5_000_000, perf: 10 });
    assert.deepEqual(kinds(render({ state: 'failed' }), worse), []);
    assert.deepEqual(kinds(render(), render({ state: 'failed' })), []);
    assert.deepEqual(kinds(render({ state: 'skipped' }), worse), []);
    assert.deepEqual(kinds(undefined, worse), []);
  });

  it('compare renders of the same preset only: a mobile and a desktop render measure different devices', () => {
    const worse = render({ preset: 'desktop', lcp: 9000, cls: 0.5, tbt: 2000, total: 5_000_000, perf: 10, hreflang: [], types: [] });
    assert.deepEqual(kinds(render({ preset: 'mobile' }), worse), []);
    assert.deepEqual(
      kinds(render({ preset: 'desktop' }), worse).map((f) => f.kind).sort(),
      ['category_score_dropped', 'cls_regressed', 'hreflang_removed', 'lcp_regressed', 'structured_data_removed', 'tbt_regressed', 'total_weight_increased'],
    );
  });
});

describe('rendered hreflang and structured data', () => {
  // The HTML record has neither (a client-rendered page): every value is the script's.
  const html = (r: Render | undefined): Page => ({ ...page(r), hreflang: [], structuredDataTypes: [] });
  const both = (b: Render | undefined, a: Render | undefined) => [...compareChecks([html(b)], [html(a)]), ...compareRendered([html(b)], [html(a)])];

  it('a language or a type that a script no longer adds is hreflang_removed or structured_data_removed, set by JavaScript', () => {
    const f = both(render(), render({ hreflang: ['en'], types: ['BreadcrumbList'] }));
    assert.deepEqual(
      f.map((x) => [x.kind, x.severity, x.before, x.after]),
      [
        ['hreflang_removed', 'medium', 'en, de', 'en (set by JavaScript)'],
        ['structured_data_removed', 'medium', 'Article, BreadcrumbList', 'BreadcrumbList (set by JavaScript)'],
      ],
    );
  });

  it('the last of them gone reads as none', () => {
    const f = both(render(), render({ hreflang: [], types: [] }));
    assert.deepEqual(f.map((x) => x.after), ['none (set by JavaScript)', 'none (set by JavaScript)']);
  });

  it('nothing when the rendered values stayed or grew, or when the HTML change already says it', () => {
    assert.deepEqual(both(render(), render({ hreflang: ['de', 'en', 'fr'], types: ['Product', 'Article', 'BreadcrumbList'] })), []);
    // The HTML lost the language too: one finding, the HTML's, without "set by JavaScript".
    const b = { ...page(render()), hreflang: render().hreflang };
    const a = { ...page(render({ hreflang: ['en'] })), hreflang: [] };
    const f = [...compareChecks([b], [a]), ...compareRendered([b], [a])];
    assert.deepEqual(f.map((x) => [x.kind, x.after]), [['hreflang_removed', null]]);
  });

  it('a render stored before these were kept reads as mobile with none of them, and raises nothing against a newer one', () => {
    const old = render();
    const stored = { ...old } as Partial<Render>;
    delete stored.hreflang;
    delete stored.structuredDataTypes;
    delete stored.preset;
    const read = pageFromRow({ ...page(undefined), render: stored as Render });
    assert.deepEqual([read.render?.hreflang, read.render?.structuredDataTypes, read.render?.preset], [[], [], 'mobile']);
    assert.deepEqual(both(read.render, render({ hreflang: [], types: [] })), []);
  });
});
