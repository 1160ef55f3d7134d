// Pages that vanish (spec/site-checks.tsp, CrawlFindingKind): a crawl requests again the pages
// of the previous crawl that its walk did not find, and the key pages by search clicks whatever
// the page cap. End to end on a real website on loopback: a page deleted together with every link
// to it and its sitemap entry, a page that now redirects, a page that is merely unlinked, and a
// key page that vanishes from a crawl cut short by CRAWL_MAX_PAGES.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../core/platform/index.ts';
import { CrawlPage } from '../core/db/index.ts';
import { addDays, dayOf, importSearchData } from '../core/search-data/index.ts';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { testRunner } from './support/jobs.ts';
import { htmlPage, sitemapXml, startFixtureSite, type FixtureSite } from './support/fixture-site.ts';

after(dropCreatedDatabases);

const ENV = { SITE_CHECK_DELAY_SECONDS: '0', CRAWL_DELAY_SECONDS: '0', ALLOW_PRIVATE_NETWORK: '1', CRAWL_DELAY_MS: '0' };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-vanished-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const page = (title: string, links: string[]) => htmlPage({ title, description: `${title}.`, h1: [title], words: 150, links });

/** A site whose home page links every page, and whose sitemap lists them all. */
function publish(site: FixtureSite, pages: string[], extra: Record<string, string> = {}): void {
  site.reset();
  site.set('/', page('Home', ['/', ...pages]));
  for (const p of pages) site.set(p, page(`Page ${p}`, ['/']));
  for (const [p, title] of Object.entries(extra)) site.set(p, page(title, ['/']));
  site.set('/robots.txt', { body: `User-agent: *\nAllow: /\nSitemap: ${site.url('/sitemap.xml')}\n`, contentType: 'text/plain' });
  site.set('/sitemap.xml', sitemapXml(['/', ...pages].map((p) => site.url(p))));
}

type CrawlFinding = { kind: string; url: string; severity: string; details: Record<string, unknown>; causes: Array<{ path: string; score: number }> };

for (const engine of engines()) {
  describe(`pages that vanish (${engine})`, () => {
    let api: TestApi;
    let site: FixtureSite;
    let owner: Awaited<ReturnType<TestApi['owner']>>;
    let files = 0;

    const workspace = async (): Promise<string> => {
      const ws = await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `Vanished ${engine} ${crypto.randomUUID()}`, website: site.url('/') } });
      assert.equal(ws.status, 201, ws.text);
      return ws.body.data.id;
    };
    const deploy = async (workspaceId: string, changes: unknown[] = [], env: Record<string, string> = {}) => {
      const res = await api.call('POST', '/v1/deploys', { key: owner.apiKey, body: { workspaceId, commitSha: crypto.randomBytes(20).toString('hex'), changes } });
      assert.equal(res.status, 201, res.text);
      await testRunner(api.db, { config: loadConfig({ ...process.env, ...ENV, ...env }) }).runDue();
      const d = (await api.call('GET', `/v1/deploys/${res.body.id}`, { key: owner.apiKey })).body;
      assert.equal(d.siteCrawl.state, 'finished', d.siteCrawl.error);
      return d as { siteCrawl: { id: string; pagesCrawled: number }; crawlFindings: CrawlFinding[] };
    };
    const at = (d: { crawlFindings: CrawlFinding[] }, kind: string, p: string) => d.crawlFindings.find((f) => f.kind === kind && f.url === site.url(p));
    const summary = (d: { crawlFindings: CrawlFinding[] }) => d.crawlFindings.map((f) => `${f.kind} ${f.url.slice(site.origin.length)}`).sort();

    before(async () => {
      api = await TestApi.start(engine, { env: ENV });
      site = await startFixtureSite();
      owner = await api.owner();
    });
    after(async () => {
      await site.close();
      await api.stop();
    });

    it('finds a page deleted with every link to it and its sitemap entry, one that now redirects, and one merely unlinked', async () => {
      const workspaceId = await workspace();
      publish(site, ['/about', '/pricing', '/old-launch', '/legacy-plans', '/press']);
      const first = await deploy(workspaceId);
      assert.deepEqual(first.crawlFindings, [], 'the first crawl is the reference');

      // The deploy: /old-launch deleted and unlinked (404), /legacy-plans unlinked and redirected
      // to /pricing, /press unlinked and out of the sitemap but still served.
      publish(site, ['/about', '/pricing'], { '/press': 'Press' });
      site.set('/legacy-plans', { redirectTo: '/pricing' });
      const requestsBefore = site.requests.length;
      const d = await deploy(workspaceId, [
        { path: 'README.md', category: 'docs', signals: [] },
        { path: 'astro.config.mjs', category: 'config', signals: [{ kind: 'sitemap_entry', change: 'removed', line: 9 }] },
        { path: 'public/_redirects', category: 'redirects', signals: [{ kind: 'redirect', change: 'added', line: 3 }] },
        { path: 'src/components/Nav.astro', category: 'component', signals: [{ kind: 'link', change: 'removed', line: 7 }] },
        { path: 'src/pages/about.astro', category: 'page', signals: [{ kind: 'heading', change: 'added', line: 4 }] },
        { path: 'src/pages/old-launch.astro', category: 'page', signals: [{ kind: 'route', change: 'removed' }] },
      ]);
      assert.deepEqual(summary(d), ['orphan_page /press', 'page_removed /old-launch', 'redirect_added /legacy-plans'], JSON.stringify(d.crawlFindings));

      const removed = at(d, 'page_removed', '/old-launch')!;
      assert.equal(removed.severity, 'high');
      assert.deepEqual(removed.details, { status: 404, linked: false });
      assert.equal(removed.causes[0]?.path, 'src/pages/old-launch.astro', JSON.stringify(removed.causes));
      assert.ok(!removed.causes.some((c) => c.path === 'README.md'));

      const redirected = at(d, 'redirect_added', '/legacy-plans')!;
      assert.equal(redirected.severity, 'high');
      assert.deepEqual(redirected.details, { status: 301, to: site.url('/pricing') });
      assert.equal(redirected.causes[0]?.path, 'public/_redirects', JSON.stringify(redirected.causes));

      const orphan = at(d, 'orphan_page', '/press')!;
      assert.deepEqual(orphan.details, { inSitemap: false });
      assert.equal(orphan.causes[0]?.path, 'src/components/Nav.astro', JSON.stringify(orphan.causes));

      // Each vanished URL was requested once by the crawl (the check of the deploy may look at them too).
      const paths = site.requests.slice(requestsBefore).map((r) => r.path);
      for (const p of ['/old-launch', '/legacy-plans', '/press']) assert.ok(paths.includes(p), `${p} was requested`);
      const stored = await CrawlPage.query(api.db).where({ crawl_id: d.siteCrawl.id }).orderBy('url');
      assert.deepEqual(
        stored.map((p) => [p.url.slice(site.origin.length), p.status, p.inlinks]),
        [['/', 200, 2], ['/about', 200, 1], ['/legacy-plans', 200, 0], ['/old-launch', 404, 0], ['/press', 200, 0], ['/pricing', 200, 1]],
      );
      assert.equal(d.siteCrawl.pagesCrawled, 6);

      // The next crawl reports nothing new; the removed page (404 last time) is not asked for again,
      // the orphan (200 last time) still is.
      const before3 = site.requests.length;
      const third = await deploy(workspaceId);
      assert.deepEqual(third.crawlFindings, []);
      const stored3 = (await CrawlPage.query(api.db).where({ crawl_id: third.siteCrawl.id })).map((p) => p.url.slice(site.origin.length)).sort();
      assert.ok(!stored3.includes('/old-launch') && stored3.includes('/press'), JSON.stringify(stored3));
      assert.ok(!site.requests.slice(before3).some((r) => r.path === '/old-launch'), 'nothing asked for the removed page again');
    });

    it('always asks again for key pages by search clicks, even past the page cap; other vanished pages only within it', async () => {
      const workspaceId = await workspace();
      const pages = ['/a', '/b', '/c', '/d', '/popular', '/rare'];
      publish(site, pages);
      const day = addDays(dayOf(Date.now()), -3);
      const file = path.join(dir, `${engine}-${++files}.csv`);
      fs.writeFileSync(file, ['date,page,clicks,impressions', `${day},${site.url('/popular')},120,900`, `${day},${site.url('/a')},3,40`].join('\n'));
      await importSearchData(api.db, { workspaceId, file });
      const first = await deploy(workspaceId);
      assert.deepEqual(first.crawlFindings, []);

      // Both pages deleted with their links and sitemap entries; the crawl may fetch 3 pages.
      publish(site, ['/a', '/b', '/c', '/d']);
      const d = await deploy(workspaceId, [{ path: 'src/pages/popular.astro', category: 'page', signals: [{ kind: 'route', change: 'removed' }] }], { CRAWL_MAX_PAGES: '3' });
      const stored = new Map((await CrawlPage.query(api.db).where({ crawl_id: d.siteCrawl.id })).map((p) => [p.url.slice(site.origin.length), p.status]));
      assert.equal(stored.get('/popular'), 404, 'the key page was asked for past the cap');
      assert.ok(!stored.has('/rare'), 'a page without search clicks waits for room under the cap');
      assert.equal(stored.size, 4, JSON.stringify([...stored]));
      assert.deepEqual(summary(d), ['page_removed /popular']);
      assert.equal(at(d, 'page_removed', '/popular')!.causes[0]?.path, 'src/pages/popular.astro');
    });

    it('obeys robots.txt when it asks again: a vanished page now disallowed is not requested', async () => {
      const workspaceId = await workspace();
      publish(site, ['/about', '/drafts/plan']);
      await deploy(workspaceId);
      publish(site, ['/about'], { '/drafts/plan': 'Plan' });
      site.set('/robots.txt', { body: `User-agent: *\nDisallow: /drafts/\nSitemap: ${site.url('/sitemap.xml')}\n`, contentType: 'text/plain' });
      const before2 = site.requests.length;
      const d = await deploy(workspaceId);
      assert.deepEqual(d.crawlFindings, []);
      const crawled = (await CrawlPage.query(api.db).where({ crawl_id: d.siteCrawl.id })).map((p) => p.url.slice(site.origin.length)).sort();
      assert.deepEqual(crawled, ['/', '/about']);
      // The check of the same deploy may look at it (checks report robots_blocked); the crawl did not.
      const fetchedByCheck = (await api.call('GET', `/v1/site-checks/latest?workspace_id=${workspaceId}`, { key: owner.apiKey })).body.check.pages.some(
        (p: { url: string }) => p.url === site.url('/drafts/plan'),
      );
      assert.equal(site.requests.slice(before2).filter((r) => r.path === '/drafts/plan').length, fetchedByCheck ? 1 : 0);
    });

    it('does not call a page orphaned when the page cap cut the walk short', async () => {
      const workspaceId = await workspace();
      // /deep is linked only from /a, and is a key page by search clicks.
      site.reset();
      site.set('/', page('Home', ['/', '/a']));
      site.set('/a', page('Page A', ['/', '/deep']));
      site.set('/deep', page('Deep', ['/']));
      site.set('/robots.txt', { body: `User-agent: *\nAllow: /\nSitemap: ${site.url('/sitemap.xml')}\n`, contentType: 'text/plain' });
      site.set('/sitemap.xml', sitemapXml([site.url('/'), site.url('/a')]));
      const file = path.join(dir, `${engine}-${++files}.csv`);
      fs.writeFileSync(file, ['date,page,clicks,impressions', `${addDays(dayOf(Date.now()), -3)},${site.url('/deep')},50,400`].join('\n'));
      await importSearchData(api.db, { workspaceId, file });
      await deploy(workspaceId);
      // Nothing changed, but the crawl stops after the home page: /a is never read, so nothing
      // links /deep as far as this crawl knows. It is asked for (a key page) and answers 200,
      // and is still no orphan.
      const d = await deploy(workspaceId, [], { CRAWL_MAX_PAGES: '1' });
      const stored = (await CrawlPage.query(api.db).where({ crawl_id: d.siteCrawl.id })).map((p) => [p.url.slice(site.origin.length), p.status, p.inlinks]);
      assert.deepEqual(stored.sort(), [['/', 200, 0], ['/deep', 200, 0]]);
      assert.deepEqual(d.crawlFindings, []);
    });
  });
}
