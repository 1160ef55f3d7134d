// Checks and crawls in real worker processes: hostile websites end cleanly without taking the
// worker down, and a worker killed mid-crawl loses nothing and repeats nothing.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { OutboxEvent, SiteCheck, SiteCrawl, CrawlPage, Job } from '../core/db/index.ts';
import { createWebhook } from '../core/webhooks/index.ts';
import { keyringFor } from '../core/secrets/index.ts';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { htmlPage, sitemapIndexXml, sitemapXml, startFixtureSite, type FixtureSite } from './support/fixture-site.ts';
import { isAlive, killAll, startWorkerProcess, waitUntil } from './support/processes.ts';

after(async () => {
  await killAll();
  await dropCreatedDatabases();
});

const ENV = {
  SITE_CHECK_DELAY_SECONDS: '0',
  CRAWL_DELAY_SECONDS: '0',
  ALLOW_PRIVATE_NETWORK: '1',
  CRAWL_DELAY_MS: '0',
  // Short, so the page that never finishes ends soon; long enough that the endless redirects
  // reach the 10-hop limit before it on a loaded machine (2 s did not, once, under CI load).
  FETCH_TIMEOUT_MS: '4000',
  WORKER_POLL_MS: '50',
  JOB_LEASE_MS: '1500',
  JOB_HEARTBEAT_MS: '300',
};

for (const engine of engines()) {
  describe(`checks and crawls in worker processes (${engine})`, () => {
    let api: TestApi;
    let site: FixtureSite;
    let owner: Awaited<ReturnType<TestApi['owner']>>;

    before(async () => {
      api = await TestApi.start(engine, { env: ENV });
      site = await startFixtureSite();
      owner = await api.owner();
    });
    after(async () => {
      await site.close();
      await api.stop();
    });

    async function workspaceFor(path: string): Promise<string> {
      const res = await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `Hostile ${crypto.randomUUID()}`, website: site.url(path) } });
      return res.body.data.id;
    }
    async function deploy(workspaceId: string): Promise<string> {
      const res = await api.call('POST', '/v1/deploys', { key: owner.apiKey, body: { workspaceId, commitSha: crypto.randomBytes(20).toString('hex') } });
      assert.equal(res.status, 201);
      return res.body.id;
    }
    const detail = async (id: string) => (await api.call('GET', `/v1/deploys/${id}`, { key: owner.apiKey })).body;

    it('a hostile website: endless redirects, a 50 MiB page, a page that never finishes, invalid HTML, garbage robots.txt and a sitemap bomb', async (t) => {
      site.reset();
      const key = ['/endless', '/huge', '/stall', '/invalid', '/cut'];
      site.set('/', htmlPage({ title: 'Hostile home', h1: ['Home'], links: key, words: 50 }));
      for (let i = 0; i < 30; i++) site.set(`/endless/${i}`, { redirectTo: `/endless/${i + 1}` });
      site.set('/endless', { redirectTo: '/endless/0' });
      site.set('/huge', { bytes: 50 * 1024 * 1024 });
      site.set('/stall', { neverFinish: true });
      site.set('/invalid', { html: '<html><head><title>Broken<body><h1>Unclosed <div><div><p>text <a href="/x>broken</a' + '<div>'.repeat(5000) });
      site.set('/cut', { html: htmlPage({ title: 'Cut', words: 2000 }), closeMidResponse: true });
      site.set('/robots.txt', { body: crypto.randomBytes(4096), contentType: 'text/plain' });
      site.set('/sitemap.xml', sitemapIndexXml([site.url('/sitemap-pages.xml'), site.url('/bomb.xml.gz')]));
      site.set('/sitemap-pages.xml', sitemapXml(key.map((p) => site.url(p))));
      site.set('/bomb.xml.gz', { body: zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024)), contentType: 'application/gzip' });

      const worker = await startWorkerProcess(api.dbUrl, ENV);
      // Stopped however this test ends: left running, it would take the next test's jobs.
      t.after(() => worker.stop('SIGKILL'));
      const workspaceId = await workspaceFor('/');
      const id = await deploy(workspaceId);
      const started = Date.now();
      await waitUntil('the check and the crawl to end', async () => {
        const d = await detail(id);
        return ['finished', 'failed'].includes(d.siteCheck.state) && ['finished', 'failed'].includes(d.siteCrawl.state);
      }, 60_000);
      const d = await detail(id);
      assert.ok(Date.now() - started < 60_000);
      assert.equal(d.siteCheck.state, 'finished', d.siteCheck.error);
      assert.equal(d.siteCrawl.state, 'finished', d.siteCrawl.error);
      const page = (p: string) => d.siteCheck.pages.find((x: { url: string }) => x.url === site.url(p));
      assert.equal(page('/').status, 200);
      assert.equal(page('/endless').status, null, 'endless redirects end as a page error');
      assert.ok(page('/endless').redirects.length >= 10, 'with the chain recorded');
      assert.equal(page('/huge').status, 200);
      assert.equal(page('/huge').bytes, 5 * 1024 * 1024, 'read up to the 5 MiB cut, not 50 MiB');
      assert.equal(page('/stall').status, null, 'a page that never finishes times out');
      assert.equal(page('/invalid').status, 200);
      assert.equal(page('/cut').status, null, 'a connection cut mid-body is a page error');
      // The worker is still alive and still works: a second deploy runs too.
      assert.ok(isAlive(worker.pid));
      const again = await deploy(workspaceId);
      await waitUntil('the second check', async () => (await detail(again)).siteCheck.state === 'finished', 60_000);
      assert.ok(!worker.output.some((l) => /uncaught|unhandled/i.test(l)), worker.output.filter((l) => /uncaught|unhandled/i.test(l)).join('\n'));
      await worker.stop();
    });

    it('two workers, one killed with SIGKILL in the middle of a crawl: every check and crawl ends once, no event twice', async (t) => {
      site.reset();
      const pages = Array.from({ length: 40 }, (_, i) => `/slow/${i}`);
      site.set('/', htmlPage({ title: 'Slow home', h1: ['Home'], links: pages, words: 50 }));
      for (const p of pages) site.set(p, { html: htmlPage({ title: `Slow ${p}`, h1: [p], links: ['/'], words: 50 }), delayMs: 100 });
      site.set('/robots.txt', { body: 'User-agent: *\nAllow: /\n', contentType: 'text/plain' });
      site.set('/sitemap.xml', sitemapXml(pages.map((p) => site.url(p))));

      const workers = await Promise.all([startWorkerProcess(api.dbUrl, { ...ENV, CRAWL_CONCURRENCY: '2' }), startWorkerProcess(api.dbUrl, { ...ENV, CRAWL_CONCURRENCY: '2' })]);
      t.after(async () => {
        for (const w of workers) await w.stop('SIGKILL');
      });
      const workspaceId = await workspaceFor('/');
      // Events are written where a webhook listens (one that refuses connections).
      await createWebhook(api.db, { workspaceId, url: 'https://127.0.0.1:9/hook', events: ['deploy.recorded', 'site_check.completed', 'site_crawl.completed'] }, { allowPrivateNetwork: true, keyring: keyringFor(api.config) });
      const id = await deploy(workspaceId);
      const crawlId = (await detail(id)).siteCrawl.id;
      // Wait until the crawl is under way, then kill the worker that holds it.
      const holder = await waitUntil('the crawl to be running', async () => {
        const job = await Job.query(api.db).where({ dedupe_key: `site_crawl:${crawlId}`, state: 'running' }).first();
        const crawl = await SiteCrawl.query(api.db).findById(crawlId);
        return Boolean(job && crawl?.state === 'running' && site.requests.filter((r) => r.path.startsWith('/slow/')).length >= 5);
      }, 30_000).then(async () => (await Job.query(api.db).where({ dedupe_key: `site_crawl:${crawlId}` }).first())!.locked_by!);
      const victim = workers.find((w) => holder.includes(`/${w.pid}/`))!;
      assert.ok(victim, `the crawl's worker is one of ours: ${holder}`);
      victim.child.kill('SIGKILL');

      await waitUntil('the other worker to finish the crawl', async () => (await SiteCrawl.query(api.db).findById(crawlId))?.state === 'finished', 60_000);
      const crawl = (await SiteCrawl.query(api.db).findById(crawlId))!;
      assert.equal(crawl.pages_crawled, 41);
      assert.equal(await CrawlPage.query(api.db).where({ crawl_id: crawlId }).resultSize(), 41);
      const check = (await SiteCheck.query(api.db).where({ deploy_id: id }))!;
      assert.equal(check.length, 1);
      await waitUntil('the check to end', async () => (await SiteCheck.query(api.db).findById(check[0].id))?.state === 'finished', 30_000);
      const events = await OutboxEvent.query(api.db).where({ workspace_id: workspaceId });
      const count = (type: string) => events.filter((e) => e.type === type).length;
      assert.equal(count('site_crawl.completed'), 1);
      assert.equal(count('site_check.completed'), 1);
      assert.equal(count('deploy.recorded'), 1);
      assert.equal(new Set(events.map((e) => e.idempotency_key)).size, events.length, 'every event has its own key');
      // The job's completion is written after the crawl's own commit (batched with others).
      await waitUntil('the crawl job to be done', async () => (await Job.query(api.db).where({ dedupe_key: `site_crawl:${crawlId}` }).first())?.state === 'done', 30_000);
      const job = (await Job.query(api.db).where({ dedupe_key: `site_crawl:${crawlId}` }).first())!;
      assert.equal(job.state, 'done');
      assert.equal(job.attempts, 2, 'ran again after the lease expired');
      for (const w of workers) await w.stop('SIGKILL');
    });
  });
}
