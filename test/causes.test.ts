// Cause ranking: for every finding kind, the change that did it ranks above a decoy that shares
// its category or its signal kind (never both) and whose path does not resemble the URL. And the
// kind tables themselves: one entry per kind, with the severity the spec documents.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { enumValues, type Schemas } from '../core/contract/index.ts';
import { CAUSES, CHECK_KINDS, CRAWL_KINDS, SITE_KINDS, MAX_CAUSES, pathAffinity, rankCauses, type FindingKind } from '../core/findings/index.ts';

type Change = Schemas['Change'];
const URL_OF = 'https://www.example.com/blog/launch-notes';

/** The real cause of each kind, in a path that resembles the URL where a path can. */
const REAL: Record<FindingKind, Change> = {
  page_error: { path: 'server/api/blog/[slug].ts', category: 'server', signals: [{ kind: 'status_code', change: 'added', line: 10 }] },
  page_not_found: { path: 'src/pages/blog/[slug].astro', category: 'page', signals: [{ kind: 'route', change: 'removed' }] },
  noindex_added: { path: 'src/pages/blog/[slug].astro', category: 'page', signals: [{ kind: 'meta_robots', change: 'added', line: 6 }] },
  robots_blocked: { path: 'public/robots.txt', category: 'robots', signals: [{ kind: 'robots_rule', change: 'added', line: 3 }] },
  nofollow_added: { path: 'src/pages/blog/[slug].astro', category: 'page', signals: [{ kind: 'meta_robots', change: 'added', line: 6 }] },
  redirect_added: { path: 'public/_redirects', category: 'redirects', signals: [{ kind: 'redirect', change: 'added', line: 2 }] },
  canonical_changed: { path: 'app/blog/[slug]/page.tsx', category: 'page', signals: [{ kind: 'canonical', change: 'added', line: 8 }] },
  title_missing: { path: 'app/blog/[slug]/page.tsx', category: 'page', signals: [{ kind: 'title', change: 'removed', line: 5 }] },
  canonical_removed: { path: 'templates/blog/detail.html', category: 'template', signals: [{ kind: 'canonical', change: 'removed', line: 9 }] },
  meta_description_missing: { path: 'layouts/blog/single.html', category: 'template', signals: [{ kind: 'meta_description', change: 'removed', line: 4 }] },
  h1_missing: { path: 'src/routes/blog/[slug]/+page.svelte', category: 'page', signals: [{ kind: 'heading', change: 'removed', line: 21 }] },
  structured_data_removed: { path: 'app/views/blog/show.html.erb', category: 'template', signals: [{ kind: 'structured_data', change: 'removed', line: 30 }] },
  hreflang_removed: { path: 'pages/blog/_slug.vue', category: 'page', signals: [{ kind: 'hreflang', change: 'removed', line: 14 }] },
  content_shrunk: { path: 'content/blog/launch-notes.md', category: 'content', signals: [{ kind: 'heading', change: 'removed', line: 40 }] },
  internal_links_dropped: { path: 'src/components/blog/RelatedPosts.astro', category: 'component', signals: [{ kind: 'link', change: 'removed', line: 7 }] },
  slower_response: { path: 'server/api/blog/[slug].ts', category: 'server', signals: [{ kind: 'dependency', change: 'added' }] },
  page_weight_increased: { path: 'src/pages/blog/[slug].astro', category: 'page', signals: [{ kind: 'image', change: 'added', line: 50 }] },
  lcp_regressed: { path: 'src/components/blog/Hero.astro', category: 'component', signals: [{ kind: 'lazy_loading', change: 'added', line: 12 }] },
  cls_regressed: { path: 'src/styles/blog.css', category: 'style', signals: [{ kind: 'stylesheet', change: 'added', line: 3 }] },
  tbt_regressed: { path: 'src/scripts/blog-widgets.ts', category: 'script', signals: [{ kind: 'script', change: 'added', line: 1 }] },
  total_weight_increased: { path: 'public/images/blog/hero.png', category: 'asset', signals: [{ kind: 'image', change: 'added' }] },
  category_score_dropped: { path: 'src/scripts/blog-widgets.ts', category: 'script', signals: [{ kind: 'script', change: 'added', line: 1 }] },
  broken_link: { path: 'content/blog/launch-notes.md', category: 'content', signals: [{ kind: 'link', change: 'added', line: 12 }] },
  page_removed: { path: 'src/pages/blog/launch-notes.astro', category: 'page', signals: [{ kind: 'route', change: 'removed' }] },
  redirect_chain: { path: 'vercel.json', category: 'config', signals: [{ kind: 'redirect', change: 'added', line: 20 }] },
  redirect_loop: { path: 'netlify.toml', category: 'config', signals: [{ kind: 'redirect', change: 'added', line: 11 }] },
  duplicate_title: { path: 'src/pages/blog/[slug].astro', category: 'page', signals: [{ kind: 'title', change: 'added', line: 5 }] },
  orphan_page: { path: 'src/components/BlogNav.astro', category: 'component', signals: [{ kind: 'link', change: 'removed', line: 9 }] },
  noindex_page: { path: 'src/pages/blog/[slug].astro', category: 'page', signals: [{ kind: 'meta_robots', change: 'added', line: 6 }] },
  blocked_by_robots: { path: 'public/robots.txt', category: 'robots', signals: [{ kind: 'robots_rule', change: 'added', line: 2 }] },
  sitemap_unreachable: { path: 'next-sitemap.config.js', category: 'sitemap', signals: [{ kind: 'sitemap_entry', change: 'removed', line: 3 }] },
  certificate_expiring: { path: 'deploy/nginx.conf', category: 'server', signals: [{ kind: 'env', change: 'removed', line: 12 }] },
  robots_txt_changed: { path: 'public/robots.txt', category: 'robots', signals: [{ kind: 'robots_rule', change: 'added', line: 2 }] },
  sitemap_changed: { path: 'next-sitemap.config.js', category: 'sitemap', signals: [{ kind: 'sitemap_entry', change: 'removed', line: 3 }] },
};

/** Decoys: one shares the category (different signal), one shares the signal kind (different category), paths unrelated to /blog. */
function decoys(real: Change): Change[] {
  const otherCategory: Schemas['ChangeCategory'] = real.category === 'style' ? 'asset' : 'style';
  const signal = real.signals?.[0];
  return [
    { path: 'src/pages/pricing.astro', category: real.category, signals: [{ kind: 'font', change: 'added', line: 3 }] },
    ...(signal ? [{ path: 'styles/theme.css', category: otherCategory, signals: [{ ...signal }] }] : []),
    { path: 'docs/CHANGELOG.md', category: 'docs', signals: [] },
  ];
}

describe('cause ranking', () => {
  it('has a table row and a kind entry for every finding kind of the contract', () => {
    // A kind both a check and a crawl report (redirect_added) has one cause row.
    const kinds = new Set([...enumValues('CheckFindingKind'), ...enumValues('CrawlFindingKind')]);
    assert.deepEqual(Object.keys(CAUSES).sort(), [...kinds].sort());
    assert.deepEqual([...CHECK_KINDS, ...SITE_KINDS].map((k) => k.kind).sort(), [...enumValues('CheckFindingKind')].sort());
    assert.deepEqual(CRAWL_KINDS.map((k) => k.kind).sort(), [...enumValues('CrawlFindingKind')].sort());
  });

  it('gives every kind the severity the tables in spec/site-checks.tsp document', () => {
    const spec = fs.readFileSync(new URL('../spec/site-checks.tsp', import.meta.url), 'utf8');
    const documented = Object.fromEntries([...spec.matchAll(/^ \* \| `(\w+)` \| (critical|high|medium|low) \|/gm)].map((m) => [m[1], m[2]]));
    assert.deepEqual(Object.fromEntries([...CHECK_KINDS, ...SITE_KINDS, ...CRAWL_KINDS].map((k) => [k.kind, k.severity])), documented);
  });

  for (const kind of Object.keys(REAL) as FindingKind[]) {
    it(`${kind}: the real change ranks first and the reason names it`, () => {
      const real = REAL[kind];
      const causes = rankCauses(kind, URL_OF, [...decoys(real), real]);
      assert.ok(causes.length >= 1 && causes.length <= MAX_CAUSES);
      assert.equal(causes[0].path, real.path, JSON.stringify(causes.map((c) => [c.path, c.score, c.reason])));
      if (real.signals?.length) assert.match(causes[0].reason, new RegExp(`${real.signals[0].change} \`${real.signals[0].kind}\``));
      assert.ok(causes[0].score > (causes[1]?.score ?? 0), 'strictly ahead of the decoys');
      assert.ok(!causes.some((c) => c.path === 'docs/CHANGELOG.md'), 'docs explain nothing');
    });
  }

  it('names where a path matches: "… in a page template matching /blog"', () => {
    const [c] = rankCauses('canonical_removed', 'https://x.example/blog/post', [
      { path: 'src/layouts/BlogPost.astro', category: 'template', signals: [{ kind: 'canonical', change: 'removed' }] },
    ]);
    assert.match(c.reason, /^removed `canonical` signal in a template/);
    const [p] = rankCauses('canonical_removed', 'https://x.example/blog/post', [
      { path: 'src/pages/blog/[slug].astro', category: 'page', signals: [{ kind: 'canonical', change: 'removed' }] },
    ]);
    assert.equal(p.reason, 'removed `canonical` signal in a page matching /blog/post');
    const [g] = rankCauses('noindex_added', 'https://x.example/about', [{ path: 'app/layout.tsx', category: 'template', signals: [{ kind: 'meta_robots', change: 'added' }] }]);
    assert.equal(g.reason, 'added `meta_robots` signal in a template used by every page');
  });

  it('keeps at most five causes, best first, and none without a tie to the kind', () => {
    const many: Change[] = Array.from({ length: 9 }, (_, i) => ({ path: `src/pages/p${i}.astro`, category: 'page', signals: [{ kind: 'title', change: 'removed' }] }));
    const causes = rankCauses('title_missing', 'https://x.example/p3', [...many, { path: 'package.json', category: 'dependencies', signals: [] }]);
    assert.equal(causes.length, 5);
    assert.equal(causes[0].path, 'src/pages/p3.astro');
    for (let i = 1; i < causes.length; i++) assert.ok(causes[i - 1].score >= causes[i].score);
    assert.deepEqual(rankCauses('robots_blocked', 'https://x.example/', [{ path: 'src/pages/index.astro', category: 'page', signals: [] }]), []);
  });

  it('a change every page shares explains a one-page finding less than one on most pages', () => {
    const changes: Change[] = [
      { path: 'Gemfile.lock', category: 'dependencies', signals: [{ kind: 'dependency', change: 'added' }] },
      { path: 'app/controllers/customers_controller.rb', category: 'server', signals: [] },
    ];
    const url = 'https://x.example/customers';
    assert.equal(rankCauses('page_error', url, changes, { spread: 1 / 21 })[0].path, 'app/controllers/customers_controller.rb');
    assert.equal(rankCauses('page_error', url, changes, { spread: 1 })[0].path, 'Gemfile.lock');
    // A finding about the whole site is never discounted.
    const sitemap: Change[] = [{ path: 'astro.config.mjs', category: 'config', signals: [{ kind: 'sitemap_entry', change: 'removed' }] }];
    assert.equal(rankCauses('sitemap_unreachable', 'https://x.example/sitemap.xml', sitemap, { spread: 0 })[0].score, rankCauses('sitemap_unreachable', 'https://x.example/sitemap.xml', sitemap, { spread: 1 })[0].score);
  });

  it('reads routes the way frameworks do', () => {
    const cases: Array<[string, string, number]> = [
      ['app/blog/[slug]/page.tsx', '/blog/x', 0.8],
      ['src/routes/blog/[slug]/+page.svelte', '/blog/x', 0.8],
      ['content/posts/hello.md', '/posts/hello/', 1],
      ['src/pages/index.astro', '/', 1],
      ['app/(marketing)/pricing/page.tsx', '/pricing', 1],
      ['src/pages/pricing.astro', '/blog/x', 0],
      ['app/controllers/customers_controller.rb', '/customers', 1],
      ['public/_redirects', '/pricing', 0],
      ['layouts/_default/single.html', '/', 0],
      ['app/blog/[slug]/page.tsx', '/pricing', 0],
    ];
    for (const [file, url, score] of cases) assert.equal(pathAffinity(file, `https://x.example${url}`).score, score, `${file} ~ ${url}`);
  });
});
