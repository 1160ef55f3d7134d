// Checks and crawls as resources: run one now (POST), at most one queued to run now per
// workspace, lists with cursors, one check or crawl with its findings (and a crawl's pages a page
// at a time), the latest crawl; and findings of a run that follows no deploy explained as such.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { generate } from 'selfsigned';
import { runSiteCheck } from '../core/checks/index.ts';
import { closeIdleConnections } from '../core/net/index.ts';
import { loadConfig } from '../core/platform/index.ts';
import { OutboxEvent, SiteCheck, SiteCrawl } from '../core/db/index.ts';
import { createWebhook } from '../core/webhooks/index.ts';
import { keyringFor } from '../core/secrets/index.ts';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { memoryLogger, testRunner } from './support/jobs.ts';
import { htmlPage, sitemapXml, startFixtureSite, type FixtureSite } from './support/fixture-site.ts';

after(dropCreatedDatabases);

// Deploys' own checks and crawls wait an hour: only the runs these tests ask for run.
const ENV = { SITE_CHECK_DELAY_SECONDS: '3600', CRAWL_DELAY_SECONDS: '3600', ALLOW_PRIVATE_NETWORK: '1', CRAWL_DELAY_MS: '0' };

const PAGES = ['/a', '/b', '/c', '/d', '/e'];

function publish(site: FixtureSite, o: { noindex?: string } = {}): void {
  site.reset();
  site.set('/', htmlPage({ title: 'Home', h1: ['Home'], words: 150, links: PAGES }));
  for (const p of PAGES) site.set(p, htmlPage({ title: `Page ${p}`, h1: [p], words: 150, links: ['/'], robots: o.noindex === p ? 'noindex' : undefined }));
  site.set('/robots.txt', { body: `User-agent: *\nAllow: /\nSitemap: ${site.url('/sitemap.xml')}\n`, contentType: 'text/plain' });
  site.set('/sitemap.xml', sitemapXml(PAGES.map((p) => site.url(p))));
}

for (const engine of engines()) {
  describe(`checks and crawls on demand (${engine})`, () => {
    let api: TestApi;
    let site: FixtureSite;
    let owner: Awaited<ReturnType<TestApi['owner']>>;
    let ws: string;
    const runDue = () => testRunner(api.db, { config: loadConfig({ ...process.env, ...ENV }) }).runDue();
    const post = (what: 'site-checks' | 'site-crawls', key = owner.apiKey, workspaceId = ws) => api.call('POST', `/v1/${what}`, { key, body: { workspaceId } });

    before(async () => {
      api = await TestApi.start(engine, { env: ENV });
      site = await startFixtureSite();
      publish(site);
      owner = await api.owner();
      ws = (await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `Runs ${engine} ${crypto.randomUUID()}`, website: site.url('/') } })).body.data.id;
      await createWebhook(api.db, { workspaceId: ws, url: 'https://127.0.0.1:9/hook', events: ['site_check.regression', 'site_crawl.regression'] }, { allowPrivateNetwork: true, keyring: keyringFor(api.config) });
    });
    after(async () => {
      await site.close();
      await api.stop();
    });

    it('POST /v1/site-checks queues a manual check (201); while it is queued another request answers 200 with it', async () => {
      const first = await post('site-checks');
      assert.equal(first.status, 201, first.text);
      assert.equal(first.body.state, 'queued');
      assert.equal(first.body.trigger, 'manual');
      assert.equal(first.body.deployId, null);
      assert.equal(first.body.workspaceId, ws);
      const again = await post('site-checks');
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.id, first.body.id);
      // Many at once: still one.
      const many = await Promise.all(Array.from({ length: 8 }, () => post('site-checks')));
      for (const r of many) {
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.id, first.body.id);
      }
      assert.equal(await SiteCheck.query(api.db).where({ workspace_id: ws }).resultSize(), 1);
      await runDue();
      const done = await api.call('GET', `/v1/site-checks/${first.body.id}`, { key: owner.apiKey });
      assert.equal(done.status, 200);
      assert.equal(done.body.state, 'finished', done.body.error);
      assert.equal(done.body.pages[0].url, site.url('/'));
      assert.equal(done.body.pages.length, 1 + PAGES.length);
      assert.equal(done.body.baseline, null);
      assert.deepEqual(done.body.findings, []);
      // Once it ran, a new request queues a new one.
      const next = await post('site-checks');
      assert.equal(next.status, 201);
      assert.notEqual(next.body.id, first.body.id);
      await runDue();
    });

    it('concurrent first requests of a fresh workspace queue exactly one check and one crawl', async () => {
      const other = (await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `Race ${crypto.randomUUID()}`, website: site.url('/') } })).body.data.id;
      const checks = await Promise.all(Array.from({ length: 10 }, () => post('site-checks', owner.apiKey, other)));
      const crawls = await Promise.all(Array.from({ length: 10 }, () => post('site-crawls', owner.apiKey, other)));
      for (const rs of [checks, crawls]) {
        assert.equal(rs.filter((r) => r.status === 201).length, 1, rs.map((r) => r.status).join());
        assert.equal(rs.filter((r) => r.status === 200).length, 9);
        assert.equal(new Set(rs.map((r) => r.body.id)).size, 1);
      }
      assert.equal(await SiteCheck.query(api.db).where({ workspace_id: other }).resultSize(), 1);
      assert.equal(await SiteCrawl.query(api.db).where({ workspace_id: other }).resultSize(), 1);
      const jobs = await api.db('jobs').where({ workspace_id: other }).count({ n: '*' });
      assert.equal(Number(jobs[0].n), 2);
    });

    it('a noindex added with no deploy behind it: causes [] and an explanation; the regression event says the same', async () => {
      publish(site, { noindex: '/c' });
      const res = await post('site-checks');
      assert.equal(res.status, 201);
      await runDue();
      const d = (await api.call('GET', `/v1/site-checks/${res.body.id}`, { key: owner.apiKey })).body;
      assert.equal(d.state, 'finished');
      assert.ok(d.baseline, 'compared with the previous finished check');
      const f = d.findings.find((x: { kind: string }) => x.kind === 'noindex_added');
      assert.ok(f, JSON.stringify(d.findings));
      assert.equal(f.url, site.url('/c'));
      assert.deepEqual(f.causes, []);
      assert.match(f.explanation, /^No deploy was recorded between the baseline check \(.+\) and this check/);
      const events = await OutboxEvent.query(api.db).where({ workspace_id: ws, type: 'site_check.regression' });
      const mine = events.find((e) => (e.data.check as { id: string }).id === res.body.id);
      assert.ok(mine, 'site_check.regression fired');
      assert.equal(mine.data.deployId, null);
      assert.match((mine.data.findings as Array<{ explanation: string }>)[0].explanation, /No deploy/);
    });

    it('with a production deploy between baseline and check, causes come from its changes and the explanation names it', async () => {
      publish(site, { noindex: '/d' });
      const dep = await api.call('POST', '/v1/deploys', {
        key: owner.apiKey,
        body: { workspaceId: ws, commitSha: 'abcdef1234567', changes: [{ path: 'src/pages/d.astro', category: 'page', signals: [{ kind: 'meta_robots', change: 'added' }] }] },
      });
      assert.equal(dep.status, 201);
      const res = await post('site-checks');
      await runDue();
      const d = (await api.call('GET', `/v1/site-checks/${res.body.id}`, { key: owner.apiKey })).body;
      const f = d.findings.find((x: { kind: string; url: string }) => x.kind === 'noindex_added' && x.url === site.url('/d'));
      assert.ok(f, JSON.stringify(d.findings));
      assert.equal(f.causes[0].path, 'src/pages/d.astro');
      assert.match(f.explanation, /^1 production deploy was recorded between the baseline check .* \(abcdef1\)/);
    });

    it('GET /v1/site-checks lists newest first with cursors and filters; latest still answers', async () => {
      const all = (await api.call('GET', '/v1/site-checks', { key: owner.apiKey, query: { workspace_id: ws, limit: 100 } })).body;
      assert.ok(all.data.length >= 4);
      // The deploy's own check (queued for an hour) is listed too.
      assert.ok(all.data.some((c: { trigger: string }) => c.trigger === 'deploy'));
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await api.call('GET', '/v1/site-checks', { key: owner.apiKey, query: { workspace_id: ws, limit: 1, cursor } });
        assert.equal(page.status, 200);
        ids.push(...page.body.data.map((c: { id: string }) => c.id));
        cursor = page.body.meta.next_cursor ?? undefined;
      } while (cursor);
      assert.deepEqual(ids, all.data.map((c: { id: string }) => c.id));
      assert.deepEqual([...ids].sort().reverse(), ids, 'newest first');
      const manual = (await api.call('GET', '/v1/site-checks', { key: owner.apiKey, query: { workspace_id: ws, trigger: 'manual', state: 'finished' } })).body;
      assert.ok(manual.data.length >= 3);
      for (const c of manual.data) assert.equal(c.trigger, 'manual');
      const latest = await api.call('GET', '/v1/site-checks/latest', { key: owner.apiKey, query: { workspace_id: ws } });
      assert.equal(latest.status, 200);
      assert.equal(latest.body.check.trigger, 'manual');
      const bad = await api.call('GET', '/v1/site-checks', { key: owner.apiKey, query: { workspace_id: ws, cursor: 'not-a-cursor' } });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.errors[0].path, '/cursor');
    });

    it('POST /v1/site-crawls queues a manual crawl; the crawl reads back with findings, issues and its pages page by page', async () => {
      publish(site);
      const first = await post('site-crawls');
      assert.equal(first.status, 201, first.text);
      assert.equal(first.body.trigger, 'manual');
      assert.equal((await post('site-crawls')).body.id, first.body.id);
      await runDue();
      // A page removed with no deploy: page_removed and broken_link, new since the first crawl.
      site.remove('/e');
      const second = await post('site-crawls');
      assert.equal(second.status, 201);
      await runDue();
      const d = await api.call('GET', `/v1/site-crawls/${second.body.id}`, { key: owner.apiKey, query: { limit: 2 } });
      assert.equal(d.status, 200);
      assert.equal(d.body.state, 'finished', d.body.error);
      assert.equal(d.body.baseline.id, first.body.id);
      const removed = d.body.findings.find((f: { kind: string }) => f.kind === 'page_removed');
      assert.ok(removed, JSON.stringify(d.body.findings));
      assert.deepEqual(removed.causes, []);
      assert.match(removed.explanation, /^No deploy was recorded between the baseline crawl/);
      assert.ok(d.body.issues.some((f: { kind: string }) => f.kind === 'broken_link'));
      const urls: string[] = [];
      let body = d.body;
      for (;;) {
        assert.ok(body.pages.length <= 2);
        urls.push(...body.pages.map((p: { url: string }) => p.url));
        if (!body.meta.next_cursor) break;
        body = (await api.call('GET', `/v1/site-crawls/${second.body.id}`, { key: owner.apiKey, query: { limit: 2, cursor: body.meta.next_cursor } })).body;
        assert.equal(body.id, second.body.id);
      }
      assert.deepEqual(urls, [...urls].sort());
      assert.deepEqual(urls, [site.url('/'), ...PAGES.map((p) => site.url(p))].sort());
      const e = (await api.call('GET', `/v1/site-crawls/${second.body.id}`, { key: owner.apiKey, query: { limit: 500 } })).body.pages.find((p: { url: string }) => p.url === site.url('/e'));
      assert.equal(e.status, 404);
      assert.equal(e.inSitemap, true);
      assert.equal(e.inlinks, 1);
      const bad = await api.call('GET', `/v1/site-crawls/${second.body.id}`, { key: owner.apiKey, query: { cursor: 'zzz' } });
      assert.equal(bad.status, 400);
    });

    it('GET /v1/site-crawls lists with cursors; latest is shaped like the latest check', async () => {
      const page1 = await api.call('GET', '/v1/site-crawls', { key: owner.apiKey, query: { workspace_id: ws, limit: 1 } });
      assert.equal(page1.status, 200);
      assert.equal(page1.body.data.length, 1);
      const page2 = await api.call('GET', '/v1/site-crawls', { key: owner.apiKey, query: { workspace_id: ws, limit: 1, cursor: page1.body.meta.next_cursor } });
      assert.ok(page2.body.data[0].id < page1.body.data[0].id);
      const l = (await api.call('GET', '/v1/site-crawls/latest', { key: owner.apiKey, query: { workspace_id: ws } })).body;
      assert.equal(l.check, undefined);
      assert.equal(l.crawl.state, 'finished');
      assert.equal(l.crawl.trigger, 'manual');
      assert.ok(l.baseline);
      assert.ok(l.findings.some((f: { kind: string }) => f.kind === 'page_removed'));
      for (const f of l.findings) assert.equal('causes' in f, false);
      assert.ok(l.issues.length >= l.findings.length);
      const empty = await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `Empty ${crypto.randomUUID()}`, website: site.url('/') } });
      const none = await api.call('GET', '/v1/site-crawls/latest', { key: owner.apiKey, query: { workspace_id: empty.body.data.id } });
      assert.deepEqual(none.body, { latest: null, crawl: null, baseline: null, findings: [], issues: [] });
    });

    it('robots.txt and the sitemap changed with no deploy are findings; with a deploy in between they are not', async () => {
      const runCheck = async () => {
        const res = await post('site-checks');
        assert.equal(res.status, 201);
        await runDue();
        return (await api.call('GET', `/v1/site-checks/${res.body.id}`, { key: owner.apiKey })).body;
      };
      publish(site);
      await runCheck();
      // Another team edits robots.txt and the sitemap loses a page; nobody deploys.
      site.set('/robots.txt', { body: `User-agent: *\nDisallow: /search\nSitemap: ${site.url('/sitemap.xml')}\n`, contentType: 'text/plain' });
      site.set('/sitemap.xml', sitemapXml(PAGES.slice(0, 4).map((p) => site.url(p))));
      const d = await runCheck();
      const robots = d.findings.find((f: { kind: string }) => f.kind === 'robots_txt_changed');
      assert.ok(robots, JSON.stringify(d.findings));
      assert.equal(robots.severity, 'high');
      assert.equal(robots.url, site.url('/robots.txt'));
      assert.match(robots.before, /Allow: \//);
      assert.match(robots.after, /Disallow: \/search/);
      assert.deepEqual(robots.causes, []);
      assert.match(robots.explanation, /^No deploy was recorded/);
      const sitemap = d.findings.find((f: { kind: string }) => f.kind === 'sitemap_changed');
      assert.ok(sitemap, JSON.stringify(d.findings));
      assert.equal(sitemap.severity, 'medium');
      assert.equal(sitemap.before, '5 URLs');
      assert.equal(sitemap.after, '4 URLs (0 added, 1 removed)');
      // Unchanged since: nothing to report.
      assert.deepEqual((await runCheck()).findings.filter((f: { kind: string }) => f.kind.endsWith('_changed')), []);
      // Changed again, with a production deploy recorded in between: the deploy's business.
      publish(site);
      const dep = await api.call('POST', '/v1/deploys', { key: owner.apiKey, body: { workspaceId: ws, commitSha: crypto.randomBytes(20).toString('hex') } });
      assert.equal(dep.status, 201);
      assert.deepEqual((await runCheck()).findings.filter((f: { kind: string }) => f.kind.endsWith('_changed')), []);
    });

    it('a certificate that enters its last 14 days is a finding once, and an issue while it lasts', async () => {
      // Distinct names: a verifier finds the issuer by name, and two CAs with one name confuse it.
      const make = (days: number) =>
        generate([{ name: 'commonName', value: `sitehealth test ${days} days` }], {
          keyType: 'ec',
          algorithm: 'sha256',
          notAfterDate: new Date(Date.now() + days * 86_400_000),
          extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
        });
      const long = await make(365);
      const short = await make(5);
      const server = https.createServer({ key: long.private, cert: long.cert }, (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(htmlPage({ title: 'Secure', h1: ['Secure'], words: 120 }));
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const home = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      try {
        const secure = (await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `TLS ${crypto.randomUUID()}`, website: home } })).body.data.id;
        // The test's CA is handed to the check itself (workers trust NODE_EXTRA_CA_CERTS, set at their start).
        const run = async () => {
          const res = await post('site-checks', owner.apiKey, secure);
          await runSiteCheck(api.db, res.body.id, { allowPrivateNetwork: true, ca: [long.cert, short.cert], signal: new AbortController().signal, log: memoryLogger().logger });
          return (await api.call('GET', `/v1/site-checks/${res.body.id}`, { key: owner.apiKey })).body;
        };
        const first = await run();
        assert.equal(first.state, 'finished', first.error);
        assert.equal(first.issues.some((i: { kind: string }) => i.kind === 'certificate_expiring'), false);
        server.setSecureContext({ key: short.private, cert: short.cert });
        server.closeIdleConnections();
        closeIdleConnections();
        const second = await run();
        const f = second.findings.find((x: { kind: string }) => x.kind === 'certificate_expiring');
        assert.ok(f, JSON.stringify(second.findings));
        assert.equal(f.url, home);
        assert.match(f.after, /^valid until 20\d\d-/);
        assert.notEqual(f.before, f.after);
        assert.deepEqual(f.causes, []);
        assert.ok(second.issues.some((i: { kind: string }) => i.kind === 'certificate_expiring'));
        const third = await run();
        assert.equal(third.findings.some((x: { kind: string }) => x.kind === 'certificate_expiring'), false, 'reported once per certificate');
        assert.ok(third.issues.some((i: { kind: string }) => i.kind === 'certificate_expiring'), 'still an issue');
      } finally {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      }
    });

    it('roles, scopes and isolation: viewers 403, other accounts 404, bad bodies 400, and nothing is queued', async () => {
      const viewer = await api.user({ accountId: owner.accountId });
      await api.member(ws, viewer.userId, 'viewer');
      const vkey = (await api.key(viewer.userId)).apiKey;
      const stranger = await api.owner();
      const deploysOnly = (await api.key(owner.userId, { scopes: ['deploys'] })).apiKey;
      const before = { checks: await SiteCheck.query(api.db).resultSize(), crawls: await SiteCrawl.query(api.db).resultSize() };
      for (const what of ['site-checks', 'site-crawls'] as const) {
        const v = await post(what, vkey);
        assert.equal(v.status, 403);
        assert.equal(v.body.code, 'forbidden');
        assert.equal(v.body.requiredRole, 'member');
        const s = await post(what, stranger.apiKey);
        assert.equal(s.status, 404);
        const scope = await post(what, deploysOnly);
        assert.equal(scope.status, 403);
        assert.equal(scope.body.code, 'insufficient_scope');
        const bad = await api.call('POST', `/v1/${what}`, { key: owner.apiKey, body: { workspaceId: 'nope' } });
        assert.equal(bad.status, 400);
        const extra = await api.call('POST', `/v1/${what}`, { key: owner.apiKey, body: { workspaceId: ws, now: true } });
        assert.equal(extra.status, 400);
        const list = await api.call('GET', `/v1/${what}`, { key: stranger.apiKey, query: { workspace_id: ws } });
        assert.equal(list.status, 404);
        const anyId = (await api.call('GET', `/v1/${what}`, { key: owner.apiKey, query: { workspace_id: ws } })).body.data[0].id;
        assert.equal((await api.call('GET', `/v1/${what}/${anyId}`, { key: stranger.apiKey })).status, 404);
        assert.equal((await api.call('GET', `/v1/${what}/${anyId}`, { key: vkey })).status, 200, 'viewers read');
        assert.equal((await api.call('GET', `/v1/${what}/${crypto.randomUUID()}`, { key: owner.apiKey })).status, 404);
        assert.equal((await api.call('GET', `/v1/${what}/not-an-id`, { key: owner.apiKey })).status, 404);
      }
      assert.deepEqual({ checks: await SiteCheck.query(api.db).resultSize(), crawls: await SiteCrawl.query(api.db).resultSize() }, before);
    });
  });
}
