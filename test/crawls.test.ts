// Crawls end to end: a real website on loopback that regresses in every crawl-finding way
// between two deploys, the real worker runner, and the deploy detail a user reads.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../core/platform/index.ts';
import { CrawlPage, SiteCrawl } from '../core/db/index.ts';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { testRunner } from './support/jobs.ts';
import { htmlPage, sitemapIndexXml, sitemapXml, startFixtureSite, type FixtureSite } from './support/fixture-site.ts';

after(dropCreatedDatabases);

const ENV = { SITE_CHECK_DELAY_SECONDS: '0', CRAWL_DELAY_SECONDS: '0', ALLOW_PRIVATE_NETWORK: '1', CRAWL_DELAY_MS: '0' };

const page = (title: string, links: string[] = ['/'], extra: Parameters<typeof htmlPage>[0] = {}) => htmlPage({ title, h1: [title], words: 120, links, ...extra });

/** A clean site: every page linked from home, every page in the sitemap, no problems. */
function publishClean(site: FixtureSite): void {
  site.reset();
  const pages = ['/about', '/blog', '/blog/hello', '/old-post', '/team', '/chain-start', '/loop-a', '/private/area', '/pricing', '/lonely'];
  site.set('/', page('Home', pages));
  site.set('/about', page('About us'));
  site.set('/blog', page('Blog', ['/', '/blog/hello']));
  site.set('/blog/hello', page('Hello'));
  site.set('/old-post', page('An old post'));
  site.set('/team', page('Team'));
  site.set('/chain-start', page('Chain start'));
  site.set('/loop-a', page('Loop A'));
  site.set('/private/area', page('Private area'));
  site.set('/pricing', page('Pricing'));
  site.set('/lonely', page('Lonely'));
  site.set('/robots.txt', { body: `User-agent: *\nAllow: /\nSitemap: ${site.url('/sitemap.xml')}\n`, contentType: 'text/plain' });
  site.set('/sitemap.xml', sitemapIndexXml([site.url('/sitemap-pages.xml'), site.url('/sitemap-news.xml')]));
  site.set('/sitemap-pages.xml', sitemapXml(pages.map((p) => site.url(p))));
  site.set('/sitemap-news.xml', sitemapXml([site.url('/blog/hello')]));
}

/** The same site after a bad deploy: one crawl finding of each kind. */
function publishRegressions(site: FixtureSite): void {
  const linked = ['/about', '/blog', '/blog/hello', '/old-post', '/team', '/chain-start', '/loop-a', '/private/area', '/pricing', '/missing-page'];
  // broken_link: home links to a page that does not exist; orphan_page: /lonely is in the
  // sitemap but no longer linked.
  site.set('/', page('Home', linked));
  // page_removed: answered 200 in the first crawl, 404 now (still linked).
  site.remove('/old-post');
  // redirect_chain: two hops before the page.
  site.set('/chain-start', { redirectTo: '/chain-middle' });
  site.set('/chain-middle', { redirectTo: '/chain-end' });
  site.set('/chain-end', page('Chain end'));
  // redirect_loop
  site.set('/loop-a', { redirectTo: '/loop-b' });
  site.set('/loop-b', { redirectTo: '/loop-a' });
  // duplicate_title: two pages now share one title.
  site.set('/team', page('About us'));
  // noindex_page
  site.set('/pricing', page('Pricing', ['/'], { robots: 'noindex' }));
  // blocked_by_robots: /private is disallowed; sitemap_unreachable: one child sitemap fails.
  site.set('/robots.txt', { body: `User-agent: *\nDisallow: /private\nSitemap: ${site.url('/sitemap.xml')}\n`, contentType: 'text/plain' });
  site.set('/sitemap-news.xml', { status: 500, body: 'oops', contentType: 'text/plain' });
}

const CHANGES = [
  { path: 'src/components/Nav.astro', category: 'component', signals: [{ kind: 'link', change: 'added', line: 12 }, { kind: 'link', change: 'removed', line: 13 }] },
  { path: 'src/pages/old-post.astro', category: 'page', signals: [{ kind: 'route', change: 'removed' }] },
  { path: 'public/_redirects', category: 'redirects', signals: [{ kind: 'redirect', change: 'added', line: 4 }, { kind: 'redirect', change: 'added', line: 5 }] },
  { path: 'src/pages/team.astro', category: 'page', signals: [{ kind: 'title', change: 'removed', line: 3 }, { kind: 'title', change: 'added', line: 3 }] },
  { path: 'src/pages/pricing.astro', category: 'page', signals: [{ kind: 'meta_robots', change: 'added', line: 6 }] },
  { path: 'public/robots.txt', category: 'robots', signals: [{ kind: 'robots_rule', change: 'added', line: 2 }] },
  { path: 'astro.config.mjs', category: 'config', signals: [{ kind: 'sitemap_entry', change: 'removed', line: 9 }] },
  { path: 'README.md', category: 'docs', signals: [] },
];

for (const engine of engines()) {
  describe(`crawls (${engine})`, () => {
    let api: TestApi;
    let site: FixtureSite;
    let owner: Awaited<ReturnType<TestApi['owner']>>;
    let workspaceId: string;
    const deploy = async (changes: unknown[] = [], env: Record<string, string> = {}) => {
      const res = await api.call('POST', '/v1/deploys', { key: owner.apiKey, body: { workspaceId, commitSha: crypto.randomBytes(20).toString('hex'), changes } });
      assert.equal(res.status, 201, res.text);
      await testRunner(api.db, { config: loadConfig({ ...process.env, ...ENV, ...env }) }).runDue();
      return (await api.call('GET', `/v1/deploys/${res.body.id}`, { key: owner.apiKey })).body;
    };

    before(async () => {
      api = await TestApi.start(engine, { env: ENV });
      site = await startFixtureSite();
      owner = await api.owner();
      const ws = await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `Crawls ${engine} ${crypto.randomUUID()}`, website: site.url('/') } });
      workspaceId = ws.body.data.id;
    });
    after(async () => {
      await site.close();
      await api.stop();
    });

    it('the first crawl walks links and the sitemap and finds nothing new (it is the reference)', async () => {
      publishClean(site);
      const d = await deploy();
      assert.equal(d.siteCrawl.state, 'finished', d.siteCrawl.error);
      assert.equal(d.siteCrawl.pagesCrawled, 11);
      assert.deepEqual(d.crawlFindings, []);
      const stored = await CrawlPage.query(api.db).where({ crawl_id: d.siteCrawl.id }).orderBy('url');
      assert.equal(stored.length, 11);
      const home = stored.find((p) => p.url === site.url('/'))!;
      assert.equal(home.depth, 0);
      const hello = stored.find((p) => p.url === site.url('/blog/hello'))!;
      assert.equal(hello.depth, 1, 'linked from home and in the sitemap: depth 1');
      assert.equal(hello.inlinks, 2, 'linked from home and from /blog');
    });

    it('the next crawl reports each crawl finding kind new since the first, with the true cause first', async () => {
      publishRegressions(site);
      const requestsBefore = site.requests.length;
      const d = await deploy(CHANGES);
      assert.equal(d.siteCrawl.state, 'finished', d.siteCrawl.error);
      const expect: Array<[string, string, string]> = [
        ['broken_link', '/missing-page', 'src/components/Nav.astro'],
        ['page_removed', '/old-post', 'src/pages/old-post.astro'],
        ['redirect_chain', '/chain-start', 'public/_redirects'],
        ['redirect_loop', '/loop-a', 'public/_redirects'],
        ['duplicate_title', '/team', 'src/pages/team.astro'],
        ['orphan_page', '/lonely', 'src/components/Nav.astro'],
        ['noindex_page', '/pricing', 'src/pages/pricing.astro'],
        ['blocked_by_robots', '/private/area', 'public/robots.txt'],
        ['sitemap_unreachable', '/sitemap-news.xml', 'astro.config.mjs'],
      ];
      const got = d.crawlFindings.map((f: { kind: string; url: string }) => `${f.kind} ${f.url}`);
      for (const [kind, path, cause] of expect) {
        const f = d.crawlFindings.find((x: { kind: string; url: string }) => x.kind === kind && x.url === site.url(path));
        assert.ok(f, `${kind} at ${path}; got ${JSON.stringify(got)}`);
        assert.ok(['critical', 'high', 'medium', 'low'].includes(f.severity));
        assert.equal(f.causes[0]?.path, cause, `${kind}: ${JSON.stringify(f.causes.map((c: { path: string; score: number }) => [c.path, c.score]))}`);
        assert.ok(f.causes.every((c: { path: string }) => c.path !== 'README.md'), 'docs explain no crawl finding');
      }
      const broken = d.crawlFindings.find((x: { kind: string }) => x.kind === 'broken_link');
      assert.deepEqual({ from: broken.details.from, status: broken.details.status }, { from: site.url('/'), status: 404 });
      assert.equal(d.crawlFindings.find((x: { kind: string }) => x.kind === 'redirect_chain').details.hops, 2);
      assert.equal(d.crawlFindings.find((x: { kind: string }) => x.kind === 'redirect_loop').severity, 'critical');
      // The crawl never fetches what robots.txt disallows; the check of the same deploy looks at
      // its key pages whatever robots.txt says (and reports robots_blocked).
      const privateFetches = site.requests.slice(requestsBefore).filter((r) => r.path === '/private/area').length;
      const checked = d.siteCheck.pages.some((p: { url: string }) => p.url === site.url('/private/area')) ? 1 : 0;
      assert.equal(privateFetches, checked, 'only the check fetched the disallowed page');
    });

    it('a third crawl of the same site reports nothing new; the findings are still stored on it', async () => {
      const d = await deploy();
      assert.equal(d.siteCrawl.state, 'finished');
      assert.deepEqual(d.crawlFindings, []);
      const crawl = await SiteCrawl.query(api.db).findById(d.siteCrawl.id);
      assert.ok((crawl!.findings?.all ?? []).length >= 9);
    });

    it('stops at CRAWL_MAX_PAGES', async () => {
      const d = await deploy([], { CRAWL_MAX_PAGES: '3' });
      assert.equal(d.siteCrawl.state, 'finished');
      assert.ok(d.siteCrawl.pagesCrawled <= 3, `${d.siteCrawl.pagesCrawled} pages`);
    });
  });
}
