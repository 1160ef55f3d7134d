// Site checks end to end: a real website on loopback, deploys through the API, the real worker
// runner, and what a user reads back (GET /v1/deploys/{id}, GET /v1/site-checks/latest).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../core/platform/index.ts';
import { schemaErrors, type Schemas } from '../core/contract/index.ts';
import { OutboxEvent } from '../core/db/index.ts';
import { createWebhook } from '../core/webhooks/index.ts';
import { keyringFor } from '../core/secrets/index.ts';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { testRunner } from './support/jobs.ts';
import { htmlPage, sitemapXml, startFixtureSite, type FixtureSite } from './support/fixture-site.ts';

after(dropCreatedDatabases);

const ENV = { SITE_CHECK_DELAY_SECONDS: '0', CRAWL_DELAY_SECONDS: '0', ALLOW_PRIVATE_NETWORK: '1', CRAWL_DELAY_MS: '0' };

/** Every page a key page of the check: one regression each in the second version of the site. */
const PAGES = [
  'error', 'gone', 'noindex', 'robots-blocked', 'nofollow', 'moved', 'canonical-changed', 'untitled', 'canonical-removed',
  'no-description', 'no-h1', 'no-schema', 'no-hreflang', 'shrunk', 'fewer-links', 'slow', 'heavy',
] as const;
type Slug = (typeof PAGES)[number];

/** Which finding each page must produce, with its before and after as a person reads them. */
const EXPECTED: Record<Slug, { kind: string; severity: string; before: unknown; after: unknown; cause: string; signal: string | null }> = {
  error: { kind: 'page_error', severity: 'critical', before: '200', after: '500', cause: 'src/pages/error.astro', signal: 'status_code' },
  gone: { kind: 'page_not_found', severity: 'critical', before: '200', after: '404', cause: 'src/pages/gone.astro', signal: 'route' },
  noindex: { kind: 'noindex_added', severity: 'critical', before: 'index, follow', after: 'noindex', cause: 'src/pages/noindex.astro', signal: 'meta_robots' },
  'robots-blocked': { kind: 'robots_blocked', severity: 'critical', before: 'allowed by robots.txt', after: 'disallowed by robots.txt', cause: 'public/robots.txt', signal: 'robots_rule' },
  nofollow: { kind: 'nofollow_added', severity: 'high', before: 'index, follow', after: 'nofollow', cause: 'src/pages/nofollow.astro', signal: 'meta_robots' },
  moved: { kind: 'redirect_added', severity: 'high', before: 'no redirect', after: 'REDIRECT', cause: 'public/_redirects', signal: 'redirect' },
  'canonical-changed': { kind: 'canonical_changed', severity: 'high', before: 'SELF', after: 'OTHER', cause: 'src/pages/canonical-changed.astro', signal: 'canonical' },
  untitled: { kind: 'title_missing', severity: 'high', before: 'Untitled page', after: null, cause: 'src/pages/untitled.astro', signal: 'title' },
  'canonical-removed': { kind: 'canonical_removed', severity: 'medium', before: 'SELF', after: null, cause: 'src/pages/canonical-removed.astro', signal: 'canonical' },
  'no-description': { kind: 'meta_description_missing', severity: 'medium', before: 'About no-description', after: null, cause: 'src/pages/no-description.astro', signal: 'meta_description' },
  'no-h1': { kind: 'h1_missing', severity: 'medium', before: '1 h1', after: 'no h1', cause: 'src/pages/no-h1.astro', signal: 'heading' },
  'no-schema': { kind: 'structured_data_removed', severity: 'medium', before: 'Article, BreadcrumbList', after: 'BreadcrumbList', cause: 'src/pages/no-schema.astro', signal: 'structured_data' },
  'no-hreflang': { kind: 'hreflang_removed', severity: 'medium', before: 'de, fr', after: 'de', cause: 'src/pages/no-hreflang.astro', signal: 'hreflang' },
  shrunk: { kind: 'content_shrunk', severity: 'medium', before: 'WORDS', after: 'WORDS', cause: 'src/content/shrunk.md', signal: null },
  'fewer-links': { kind: 'internal_links_dropped', severity: 'medium', before: '21 internal links', after: '3 internal links', cause: 'src/components/RelatedLinks.astro', signal: 'link' },
  slow: { kind: 'slower_response', severity: 'medium', before: 'MS', after: 'MS', cause: 'src/pages/slow.astro', signal: 'script' },
  heavy: { kind: 'page_weight_increased', severity: 'low', before: 'SIZE', after: 'SIZE', cause: 'src/pages/heavy.astro', signal: 'image' },
};

/** The true change behind each regression, all in one deploy: each is a decoy for the others. */
const CHANGES = [
  { path: 'src/pages/error.astro', category: 'page', signals: [{ kind: 'status_code', change: 'added', line: 4 }] },
  { path: 'src/pages/gone.astro', category: 'page', signals: [{ kind: 'route', change: 'removed' }] },
  { path: 'src/pages/noindex.astro', category: 'page', signals: [{ kind: 'meta_robots', change: 'added', line: 7 }] },
  { path: 'public/robots.txt', category: 'robots', signals: [{ kind: 'robots_rule', change: 'added', line: 3 }] },
  { path: 'src/pages/nofollow.astro', category: 'page', signals: [{ kind: 'meta_robots', change: 'added', line: 7 }] },
  { path: 'public/_redirects', category: 'redirects', signals: [{ kind: 'redirect', change: 'added', line: 1 }] },
  { path: 'src/pages/canonical-changed.astro', category: 'page', signals: [{ kind: 'canonical', change: 'removed', line: 9 }, { kind: 'canonical', change: 'added', line: 9 }] },
  { path: 'src/pages/untitled.astro', category: 'page', signals: [{ kind: 'title', change: 'removed', line: 5 }] },
  { path: 'src/pages/canonical-removed.astro', category: 'page', signals: [{ kind: 'canonical', change: 'removed', line: 9 }] },
  { path: 'src/pages/no-description.astro', category: 'page', signals: [{ kind: 'meta_description', change: 'removed', line: 6 }] },
  { path: 'src/pages/no-h1.astro', category: 'page', signals: [{ kind: 'heading', change: 'removed', line: 14 }] },
  { path: 'src/pages/no-schema.astro', category: 'page', signals: [{ kind: 'structured_data', change: 'removed', line: 11 }] },
  { path: 'src/pages/no-hreflang.astro', category: 'page', signals: [{ kind: 'hreflang', change: 'removed', line: 8 }] },
  { path: 'src/content/shrunk.md', category: 'content', signals: [] },
  { path: 'src/components/RelatedLinks.astro', category: 'component', signals: [{ kind: 'link', change: 'removed', line: 3 }] },
  { path: 'src/pages/slow.astro', category: 'page', signals: [{ kind: 'script', change: 'added', line: 20 }] },
  { path: 'src/pages/heavy.astro', category: 'page', signals: [{ kind: 'image', change: 'added', line: 30 }] },
];

function baselinePage(site: FixtureSite, slug: Slug): string {
  const url = site.url(`/${slug}`);
  return htmlPage({
    title: slug === 'untitled' ? 'Untitled page' : `Page ${slug}`,
    description: `About ${slug}`,
    canonical: url,
    h1: [`Heading ${slug}`],
    hreflang: [
      { lang: 'de', href: `${url}?lang=de` },
      { lang: 'fr', href: `${url}?lang=fr` },
    ],
    jsonLd: [{ '@context': 'https://schema.org', '@type': 'Article' }, { '@context': 'https://schema.org', '@type': 'BreadcrumbList' }],
    links: slug === 'fewer-links' ? ['/', ...Array.from({ length: 20 }, (_, i) => `/related-${i}`)] : ['/'],
    words: slug === 'shrunk' ? 600 : 300,
  });
}

function regressedPage(site: FixtureSite, slug: Slug): string {
  const url = site.url(`/${slug}`);
  const o = {
    title: `Page ${slug}` as string | undefined,
    description: `About ${slug}` as string | undefined,
    canonical: url as string | undefined,
    h1: [`Heading ${slug}`],
    hreflang: [
      { lang: 'de', href: `${url}?lang=de` },
      { lang: 'fr', href: `${url}?lang=fr` },
    ],
    jsonLd: [{ '@context': 'https://schema.org', '@type': 'Article' }, { '@context': 'https://schema.org', '@type': 'BreadcrumbList' }] as object[],
    links: ['/'],
    words: 300,
    robots: undefined as string | undefined,
    extraBody: undefined as string | undefined,
  };
  if (slug === 'noindex') o.robots = 'noindex';
  if (slug === 'nofollow') o.robots = 'nofollow';
  if (slug === 'canonical-changed') o.canonical = site.url('/somewhere-else');
  if (slug === 'untitled') o.title = undefined;
  if (slug === 'canonical-removed') o.canonical = undefined;
  if (slug === 'no-description') o.description = undefined;
  if (slug === 'no-h1') o.h1 = [];
  if (slug === 'no-schema') o.jsonLd = [{ '@context': 'https://schema.org', '@type': 'BreadcrumbList' }];
  if (slug === 'no-hreflang') o.hreflang = [o.hreflang[0]];
  if (slug === 'shrunk') o.words = 100;
  if (slug === 'fewer-links') o.links = ['/', '/related-0', '/related-1'];
  if (slug === 'heavy') o.extraBody = `<div>${'<img src="/big.png" alt="">'.repeat(12_000)}</div>`;
  return htmlPage(o);
}

function publishBaseline(site: FixtureSite): void {
  site.reset();
  site.set('/', htmlPage({ title: 'Home', description: 'Home page', canonical: site.url('/'), h1: ['Welcome'], links: PAGES.map((s) => `/${s}`), words: 200 }));
  for (const slug of PAGES) site.set(`/${slug}`, baselinePage(site, slug));
  site.set('/moved-new', htmlPage({ title: 'Moved here', h1: ['Moved'], words: 200 }));
  site.set('/robots.txt', { body: `User-agent: *\nAllow: /\nSitemap: ${site.url('/sitemap.xml')}\n`, contentType: 'text/plain' });
  site.set('/sitemap.xml', sitemapXml(PAGES.map((s) => site.url(`/${s}`))));
}

function publishRegressions(site: FixtureSite): void {
  for (const slug of PAGES) site.set(`/${slug}`, regressedPage(site, slug));
  site.set('/error', { status: 500, html: '<h1>Internal error</h1>' });
  site.remove('/gone');
  site.set('/moved', { redirectTo: '/moved-new' });
  site.set('/slow', { html: regressedPage(site, 'slow'), delayMs: 700 });
  site.set('/robots.txt', { body: `User-agent: *\nDisallow: /robots-blocked\nSitemap: ${site.url('/sitemap.xml')}\n`, contentType: 'text/plain' });
}

for (const engine of engines()) {
  describe(`site checks (${engine})`, () => {
    let api: TestApi;
    let site: FixtureSite;
    let owner: Awaited<ReturnType<TestApi['owner']>>;
    let workspaceId: string;
    const runner = () => testRunner(api.db, { config: loadConfig({ ...process.env, ...ENV }) });
    const deploy = async (changes: unknown[] = []) => {
      const res = await api.call('POST', '/v1/deploys', { key: owner.apiKey, body: { workspaceId, commitSha: crypto.randomBytes(20).toString('hex'), changes } });
      assert.equal(res.status, 201, res.text);
      await runner().runDue();
      return (await api.call('GET', `/v1/deploys/${res.body.id}`, { key: owner.apiKey })).body;
    };

    before(async () => {
      api = await TestApi.start(engine, { env: ENV });
      site = await startFixtureSite();
      owner = await api.owner();
      const ws = await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `Checks ${engine} ${crypto.randomUUID()}`, website: site.url('/') } });
      workspaceId = ws.body.data.id;
      // Events are written for workspaces with an active webhook (one that refuses connections).
      await createWebhook(api.db, { workspaceId, url: 'https://127.0.0.1:9/hook', events: ['deploy.recorded', 'site_check.completed', 'site_check.regression', 'site_crawl.completed', 'site_crawl.regression'] }, { allowPrivateNetwork: true, keyring: keyringFor(api.config) });
    });
    after(async () => {
      await site.close();
      await api.stop();
    });

    it('the first deploy gets a finished check of the home page and key pages, without findings', async () => {
      publishBaseline(site);
      const d = await deploy();
      assert.equal(d.siteCheck.state, 'finished', JSON.stringify(d.siteCheck.error));
      assert.equal(d.siteCheck.trigger, 'deploy');
      assert.equal(d.siteCheck.deployId, d.id);
      assert.ok(d.siteCheck.startedAt && d.siteCheck.finishedAt);
      assert.equal(d.baseline, null);
      assert.deepEqual(d.findings, []);
      const urls = d.siteCheck.pages.map((p: { url: string }) => p.url);
      assert.equal(urls[0], site.url('/'));
      assert.deepEqual([...urls.slice(1)].sort(), PAGES.map((s) => site.url(`/${s}`)).sort());
      const page = d.siteCheck.pages.find((p: { url: string }) => p.url === site.url('/no-schema'));
      assert.equal(page.status, 200);
      assert.equal(page.title, 'Page no-schema');
      assert.equal(page.metaDescription, 'About no-schema');
      assert.equal(page.canonical, site.url('/no-schema'));
      assert.deepEqual(page.structuredDataTypes, ['Article', 'BreadcrumbList']);
      assert.deepEqual(page.hreflang.map((h: { lang: string }) => h.lang), ['de', 'fr']);
      assert.equal(page.h1Count, 1);
      assert.ok(page.wordCount >= 300);
      assert.equal(page.blockedByRobotsTxt, false);
      assert.equal(d.siteCrawl.state, 'finished');
    });

    it('the next deploy reports every check finding kind at its page, with before, after, clicks and the true cause first', async () => {
      publishRegressions(site);
      const d = await deploy(CHANGES);
      assert.equal(d.siteCheck.state, 'finished', JSON.stringify(d.siteCheck.error));
      assert.ok(d.baseline, 'the first check is the baseline');
      assert.notEqual(d.baseline.id, d.siteCheck.id);
      for (const slug of PAGES) {
        const want = EXPECTED[slug];
        const url = site.url(`/${slug}`);
        const f = d.findings.find((x: { kind: string; url: string }) => x.kind === want.kind && x.url === url);
        assert.ok(f, `${want.kind} at /${slug}; findings: ${JSON.stringify(d.findings.map((x: { kind: string; url: string }) => [x.kind, x.url]))}`);
        assert.equal(f.severity, want.severity, want.kind);
        assert.equal(f.clicks, 0);
        const expect = (v: unknown, actual: unknown) => {
          if (v === 'SELF') assert.equal(actual, url);
          else if (v === 'OTHER') assert.equal(actual, site.url('/somewhere-else'));
          else if (v === 'REDIRECT') assert.equal(actual, `301 ${url} -> ${site.url('/moved-new')}`);
          else if (v === 'WORDS') assert.match(String(actual), /^\d+ words$/);
          else if (v === 'MS') assert.match(String(actual), /^\d+ ms$/);
          else if (v === 'SIZE') assert.match(String(actual), /^\d+(\.\d)? (KB|MB)$/);
          else assert.deepEqual(actual, v, `${want.kind} at /${slug}`);
        };
        expect(want.before, f.before);
        expect(want.after, f.after);
        assert.ok(f.causes.length >= 1 && f.causes.length <= 5, `${want.kind}: ${f.causes.length} causes`);
        assert.equal(f.causes[0].path, want.cause, `${want.kind}: causes ${JSON.stringify(f.causes.map((c: { path: string; score: number }) => [c.path, c.score]))}`);
        if (want.signal) assert.match(f.causes[0].reason, new RegExp(`\`${want.signal}\``), f.causes[0].reason);
        for (let i = 1; i < f.causes.length; i++) assert.ok(f.causes[i - 1].score >= f.causes[i].score, 'best first');
        for (const c of f.causes) assert.ok(c.score > 0 && c.score <= 1);
      }
      // A page that errors reports only that: its content is not compared.
      assert.deepEqual(d.findings.filter((x: { url: string }) => x.url === site.url('/error')).map((x: { kind: string }) => x.kind), ['page_error']);
    });

    it('GET /v1/site-checks/latest has the newest check, its baseline, the findings and the issues of the check alone', async () => {
      const res = await api.call('GET', '/v1/site-checks/latest', { key: owner.apiKey, query: { workspace_id: workspaceId } });
      assert.equal(res.status, 200);
      const l = res.body;
      assert.equal(l.latest.id, l.check.id);
      assert.equal(l.check.state, 'finished');
      assert.ok(l.baseline);
      assert.ok(l.findings.length >= PAGES.length);
      for (const f of l.findings) assert.equal('causes' in f, false, 'latest findings carry no causes');
      const issue = (kind: string, slug: string) => l.issues.find((i: { kind: string; url: string }) => i.kind === kind && i.url === site.url(`/${slug}`));
      assert.equal(issue('page_error', 'error').value, '500');
      assert.equal(issue('page_not_found', 'gone').value, '404');
      assert.equal(issue('noindex_added', 'noindex').value, 'noindex');
      assert.equal(issue('title_missing', 'untitled').value, null);
      assert.equal(issue('h1_missing', 'no-h1').value, 'no h1');
      assert.equal(issue('robots_blocked', 'robots-blocked').value, 'disallowed by robots.txt');
      assert.equal(l.issues.some((i: { url: string; kind: string }) => i.url === site.url('/no-schema') && i.kind === 'title_missing'), false);
    });

    it('writes completed and regression events once each, keyed by the check', async () => {
      const events = await OutboxEvent.query(api.db).where({ workspace_id: workspaceId }).orderBy('id');
      const types = events.map((e) => e.type);
      assert.equal(types.filter((t) => t === 'site_check.completed').length, 2);
      assert.equal(types.filter((t) => t === 'site_check.regression').length, 1);
      assert.equal(types.filter((t) => t === 'site_crawl.completed').length, 2);
      const regression = events.find((e) => e.type === 'site_check.regression')!;
      assert.ok((regression.data.findings as unknown[]).length >= PAGES.length);
      // Each payload has the shape spec/events.tsp documents for it.
      const shapes: Record<string, string> = {
        'deploy.recorded': 'DeployRecordedData',
        'site_check.completed': 'SiteCheckCompletedData',
        'site_check.regression': 'SiteCheckRegressionData',
        'site_crawl.completed': 'SiteCrawlCompletedData',
        'site_crawl.regression': 'SiteCrawlRegressionData',
      };
      for (const e of events) assert.deepEqual(schemaErrors(shapes[e.type] as keyof Schemas, e.data), [], `${e.type} payload`);
      assert.equal(regression.idempotency_key, `site_check.regression:${(regression.data.check as { id: string }).id}`);
    });

    it('a website whose address is not public fails its check and crawl with a reason', async () => {
      const closed = await TestApi.start(engine, { env: { SITE_CHECK_DELAY_SECONDS: '0', CRAWL_DELAY_SECONDS: '0' } });
      try {
        const o = await closed.owner();
        const ws = await closed.call('POST', '/v1/workspaces', { key: o.apiKey, body: { name: `Private ${crypto.randomUUID()}`, website: 'http://10.1.2.3/' } });
        const res = await closed.call('POST', '/v1/deploys', { key: o.apiKey, body: { workspaceId: ws.body.data.id, commitSha: 'abcdef1' } });
        await testRunner(closed.db, { config: loadConfig({ ...process.env, SITE_CHECK_DELAY_SECONDS: '0', ALLOW_PRIVATE_NETWORK: '0' }) }).runDue();
        const d = (await closed.call('GET', `/v1/deploys/${res.body.id}`, { key: o.apiKey })).body;
        assert.equal(d.siteCheck.state, 'failed');
        assert.match(d.siteCheck.error, /not public/);
        assert.deepEqual(d.findings, []);
        assert.equal(d.siteCrawl.state, 'failed');
        assert.match(d.siteCrawl.error, /not public/);
      } finally {
        await closed.stop();
      }
    });
  });
}
