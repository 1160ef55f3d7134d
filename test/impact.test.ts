// A deploy's impact on search traffic, findings' clicks and key pages chosen by clicks, read
// through the API (every response checked against the OpenAPI document) after search data is
// imported the way `search import` does. The window rule is the one spec/deploys.tsp documents
// on `Impact`; each expectation below is computed by brute force from the rows imported.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig, newId, nowMs } from '../core/platform/index.ts';
import { OutboxEvent, SiteCheck, SiteCrawl } from '../core/db/index.ts';
import { addDays, dayOf, importSearchData } from '../core/search-data/index.ts';
import { normalizeUrl } from '../core/pages/index.ts';
import type { Schemas } from '../core/contract/index.ts';
import { createWebhook } from '../core/webhooks/index.ts';
import { keyringFor } from '../core/secrets/index.ts';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { testRunner } from './support/jobs.ts';
import { htmlPage, sitemapXml, startFixtureSite, type FixtureSite } from './support/fixture-site.ts';

after(dropCreatedDatabases);

const ENV = { SITE_CHECK_DELAY_SECONDS: '0', CRAWL_DELAY_SECONDS: '0', ALLOW_PRIVATE_NETWORK: '1', CRAWL_DELAY_MS: '0' };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-impact-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

interface DataRow {
  date: string;
  page: string;
  clicks: number;
  impressions: number;
  provisional?: boolean;
}

/** Today (UTC) minus n days. */
const ago = (n: number) => addDays(dayOf(nowMs()), -n);
const days = (from: string, to: string) => {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
};

let seed = 12345;
const rnd = (max: number) => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return Math.floor((seed / 2147483648) * max);
};

/** The impact a brute-force reading of `rows` gives for windows of `n` days around `deployDay`. */
function expectedImpact(rows: DataRow[], deployDay: string, n: number, affectedUrls: string[] | null) {
  const beforeDays = new Set(days(addDays(deployDay, -n), addDays(deployDay, -1)));
  const afterDays = new Set(days(addDays(deployDay, 1), addDays(deployDay, n)));
  const affected = new Set((affectedUrls ?? []).map((u) => normalizeUrl(u)));
  const sum = (pick: (r: DataRow) => boolean) => {
    const picked = rows.filter(pick);
    return { clicks: picked.reduce((s, r) => s + r.clicks, 0), impressions: picked.reduce((s, r) => s + r.impressions, 0) };
  };
  const before = sum((r) => beforeDays.has(r.date));
  const afterT = sum((r) => afterDays.has(r.date));
  const ratio = (a: number, b: number) => (b === 0 ? null : (a - b) / b);
  return {
    days: n,
    partial: n < 7,
    before: { from: addDays(deployDay, -n), to: addDays(deployDay, -1), ...before },
    after: { from: addDays(deployDay, 1), to: addDays(deployDay, n), ...afterT },
    change: { clicks: ratio(afterT.clicks, before.clicks), impressions: ratio(afterT.impressions, before.impressions) },
    pages:
      affectedUrls === null
        ? null
        : {
            affected: {
              urls: [...affected],
              before: sum((r) => beforeDays.has(r.date) && affected.has(normalizeUrl(r.page))),
              after: sum((r) => afterDays.has(r.date) && affected.has(normalizeUrl(r.page))),
            },
            rest: {
              before: sum((r) => beforeDays.has(r.date) && !affected.has(normalizeUrl(r.page))),
              after: sum((r) => afterDays.has(r.date) && !affected.has(normalizeUrl(r.page))),
            },
          },
  };
}

/** Each page's clicks over the 28 days ending on the newest date of `rows`, by brute force. */
function clicks28(rows: DataRow[], url: string): number {
  const newest = rows.map((r) => r.date).sort().at(-1)!;
  const from = addDays(newest, -27);
  return rows.filter((r) => r.date >= from && r.date <= newest && normalizeUrl(r.page) === normalizeUrl(url)).reduce((s, r) => s + r.clicks, 0);
}

for (const engine of engines()) {
  describe(`impact and search clicks (${engine})`, () => {
    let api: TestApi;
    let site: FixtureSite;
    let owner: Awaited<ReturnType<TestApi['owner']>>;
    let files = 0;

    before(async () => {
      api = await TestApi.start(engine, { env: ENV });
      site = await startFixtureSite();
      owner = await api.owner();
      await api.setLimit(owner.accountId, 100);
    });
    after(async () => {
      await site.close();
      await api.stop();
    });

    const workspace = async (website = 'https://www.example.com'): Promise<string> => {
      const res = await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `Impact ${engine} ${crypto.randomUUID()}`, website } });
      assert.equal(res.status, 201, res.text);
      return res.body.data.id;
    };
    /** Imports rows as `search import` does (a CSV file through importSearchData). */
    const load = async (workspaceId: string, rows: DataRow[], o: { provisionalFrom?: string } = {}) => {
      const file = path.join(dir, `${engine}-${++files}.csv`);
      fs.writeFileSync(file, ['date,page,clicks,impressions,provisional', ...rows.map((r) => `${r.date},${r.page},${r.clicks},${r.impressions},${r.provisional ? 'true' : ''}`)].join('\n'));
      return importSearchData(api.db, { workspaceId, file, provisionalFrom: o.provisionalFrom });
    };
    const deploy = async (workspaceId: string, deployedAt: string, environment = 'staging'): Promise<string> => {
      const res = await api.call('POST', '/v1/deploys', { key: owner.apiKey, body: { workspaceId, commitSha: crypto.randomBytes(20).toString('hex'), deployedAt, environment } });
      assert.equal(res.status, 201, res.text);
      return res.body.id;
    };
    const impactOf = async (deployId: string) => {
      const res = await api.call('GET', `/v1/deploys/${deployId}`, { key: owner.apiKey });
      assert.equal(res.status, 200, res.text);
      return res.body.impact;
    };
    /** One row per day for a few pages, clicks different every day. */
    const daily = (list: string[], pages = ['https://www.example.com/', 'https://www.example.com/a', 'https://www.example.com/b']): DataRow[] =>
      list.flatMap((date) => pages.map((page) => ({ date, page, clicks: 1 + rnd(400), impressions: 500 + rnd(5000) })));

    it('a deploy at 23:59 and one at 00:01 UTC: the deploy day is in neither window', async () => {
      const ws = await workspace();
      const D0 = ago(60);
      const rows = daily(days(addDays(D0, -8), addDays(D0, 1)));
      // Day D0 carries a spike: it is the 23:59 deploy's own day, never in its windows.
      rows.push({ date: D0, page: 'https://www.example.com/spike', clicks: 100_000, impressions: 1_000_000 });
      await load(ws, rows);
      const late = await deploy(ws, `${D0}T23:59:00.000Z`);
      const early = await deploy(ws, `${addDays(D0, 1)}T00:01:00.000Z`);
      // 01:30 at +02:00 is 23:30 UTC the day before: the same day as the 23:59 deploy.
      const offset = await deploy(ws, `${addDays(D0, 1)}T01:30:00.000+02:00`);

      assert.deepEqual(await impactOf(late), expectedImpact(rows, D0, 1, null));
      assert.equal((await impactOf(late)).before.to, addDays(D0, -1));
      assert.equal((await impactOf(late)).after.from, addDays(D0, 1));
      assert.deepEqual(await impactOf(offset), await impactOf(late));
      assert.equal(await impactOf(early), null, 'a deploy at 00:01 needs the next day complete');

      const next = daily([addDays(D0, 2)]);
      await load(ws, next);
      rows.push(...next);
      assert.deepEqual(await impactOf(late), expectedImpact(rows, D0, 2, null));
      const e = await impactOf(early);
      assert.deepEqual(e, expectedImpact(rows, addDays(D0, 1), 1, null));
      // The day before the 00:01 deploy (with the spike) is its before-window.
      assert.equal(e.before.from, D0);
      assert.ok(e.before.clicks > 100_000);
    });

    it('1 to 7 days of data after the deploy: equal windows growing to 7, partial until then', async () => {
      const ws = await workspace();
      const D = ago(45);
      const rows = daily(days(addDays(D, -12), D));
      await load(ws, rows);
      const id = await deploy(ws, `${D}T12:00:00.000Z`, 'production');
      assert.equal(await impactOf(id), null, 'data up to the deploy day only: null');
      for (let k = 1; k <= 9; k++) {
        const day = daily([addDays(D, k)]);
        await load(ws, day);
        rows.push(...day);
        const impact = await impactOf(id);
        const n = Math.min(k, 7);
        assert.deepEqual(impact, expectedImpact(rows, D, n, null), `after ${k} day(s)`);
        assert.equal(impact.partial, k < 7);
        assert.equal(impact.before.to, addDays(D, -1));
        assert.equal(impact.after.to, addDays(D, n));
      }
    });

    it('gaps: a missing day inside the data counts as zero; the windows never reach past the data', async () => {
      const D = ago(50);
      // Data starts 3 days before the deploy: the windows are 3 days, however much follows.
      const ws = await workspace();
      const rows = daily([...days(addDays(D, -3), addDays(D, -1)), ...days(addDays(D, 1), addDays(D, 9))]);
      await load(ws, rows);
      const id = await deploy(ws, `${D}T08:00:00.000Z`);
      assert.deepEqual(await impactOf(id), expectedImpact(rows, D, 3, null));
      // Earlier data arrives with a hole at D-6: 7 days, D-6 counted as 0.
      const earlier = daily(days(addDays(D, -9), addDays(D, -4)).filter((d) => d !== addDays(D, -6)));
      await load(ws, earlier);
      rows.push(...earlier);
      const full = await impactOf(id);
      assert.deepEqual(full, expectedImpact(rows, D, 7, null));
      assert.equal(full.partial, false);

      // After the deploy: D+1 and D+3, not D+2. The last final day bounds the window (3 days), D+2 is 0.
      const ws2 = await workspace();
      const rows2 = daily([...days(addDays(D, -7), addDays(D, -1)), addDays(D, 1), addDays(D, 3)]);
      await load(ws2, rows2);
      const id2 = await deploy(ws2, `${D}T08:00:00.000Z`);
      const gap = await impactOf(id2);
      assert.deepEqual(gap, expectedImpact(rows2, D, 3, null));
      assert.equal(gap.after.clicks, rows2.filter((r) => r.date === addDays(D, 1) || r.date === addDays(D, 3)).reduce((s, r) => s + r.clicks, 0));

      // No data before the deploy: nothing to compare with. Data on the deploy day only: the same.
      const ws3 = await workspace();
      await load(ws3, daily([D, ...days(addDays(D, 1), addDays(D, 7))]));
      assert.equal(await impactOf(await deploy(ws3, `${D}T08:00:00.000Z`)), null);
      const ws4 = await workspace();
      await load(ws4, daily([addDays(D, -1), D]));
      assert.equal(await impactOf(await deploy(ws4, `${D}T08:00:00.000Z`)), null);
    });

    it('provisional days are never in a window, until imported again as final', async () => {
      const D = ago(40);
      const ws = await workspace();
      const rows = daily(days(addDays(D, -7), addDays(D, 5)));
      await load(ws, rows, { provisionalFrom: addDays(D, 4) });
      const id = await deploy(ws, `${D}T18:30:00.000Z`);
      assert.deepEqual(await impactOf(id), expectedImpact(rows, D, 3, null), 'D+4 and D+5 are provisional');

      // A provisional column on D+2: one row of the day makes the day provisional.
      const d2 = rows.filter((r) => r.date === addDays(D, 2)).map((r, i) => ({ ...r, provisional: i === 0 }));
      await load(ws, d2);
      assert.deepEqual(await impactOf(id), expectedImpact(rows, D, 1, null));

      // Final data for D+2 to D+7 (new numbers: the re-import replaces those days).
      const final = daily(days(addDays(D, 2), addDays(D, 7)));
      await load(ws, final);
      const merged = [...rows.filter((r) => r.date < addDays(D, 2)), ...final];
      const impact = await impactOf(id);
      assert.deepEqual(impact, expectedImpact(merged, D, 7, null));
      assert.equal(impact.partial, false);

      // A provisional day just before the deploy: no before-window, so null.
      const ws2 = await workspace();
      await load(ws2, daily(days(addDays(D, -3), addDays(D, 3))).map((r) => ({ ...r, provisional: r.date === addDays(D, -1) })));
      assert.equal(await impactOf(await deploy(ws2, `${D}T08:00:00.000Z`)), null);
    });

    it('affected pages and the rest match a brute-force sum; findings carry their 28-day clicks', async () => {
      const ws = await workspace();
      const D = ago(30);
      const pages = Array.from({ length: 120 }, (_, i) => `https://www.example.com/p/${i}`);
      // A few pages exported with an upper-case host: matched after normalisation.
      const given = (p: string, i: number) => (i % 10 === 7 ? p.replace('www.example.com', 'WWW.Example.COM') : p);
      const rows: DataRow[] = days(addDays(D, -40), addDays(D, 12)).flatMap((date) =>
        pages.filter(() => rnd(10) < 8).map((p) => ({ date, page: given(p, pages.indexOf(p)), clicks: rnd(60), impressions: 100 + rnd(900) })),
      );
      await load(ws, rows);
      const id = await deploy(ws, `${D}T10:00:00.000Z`);
      const t = nowMs();
      const finding = (url: string, kind: Schemas['CheckFindingKind'] = 'title_missing'): Schemas['DeployFinding'] => ({ kind, severity: 'high', url, before: 'A title', after: null, clicks: 0, causes: [], explanation: null });
      const checkFindings = [finding(pages[3]), finding('https://WWW.EXAMPLE.com/p/17', 'h1_missing'), finding(pages[3], 'canonical_removed'), finding('https://www.example.com/never-searched')];
      const crawlFindings: Schemas['DeployCrawlFinding'][] = [
        { kind: 'broken_link', severity: 'high', url: pages[40], details: { from: pages[0], status: 404 }, causes: [], explanation: null },
        { kind: 'duplicate_title', severity: 'low', url: pages[3], details: { title: 'x' }, causes: [], explanation: null },
        { kind: 'sitemap_unreachable', severity: 'medium', url: 'https://www.example.com/sitemap.xml', details: { message: 'timeout' }, causes: [], explanation: null },
      ];
      // The deploy's check and crawl, finished with these findings, and a baseline for /latest.
      await SiteCheck.query(api.db).insert({ id: newId(), workspace_id: ws, deploy_id: null, state: 'finished', trigger_kind: 'manual', scheduled_at: t - 60_000, finished_at: t - 50_000, pages: [], findings: { findings: [], issues: [] }, created_at: t - 60_000 });
      await SiteCheck.query(api.db).insert({ id: newId(), workspace_id: ws, deploy_id: id, state: 'finished', trigger_kind: 'deploy', scheduled_at: t, started_at: t, finished_at: t, pages: [], findings: { findings: checkFindings, issues: [] }, created_at: t });
      await SiteCrawl.query(api.db).insert({ id: newId(), workspace_id: ws, deploy_id: id, state: 'finished', scheduled_at: t, started_at: t, finished_at: t, pages_crawled: 3, pages: [], findings: { all: crawlFindings, crawlFindings }, created_at: t });

      const res = await api.call('GET', `/v1/deploys/${id}`, { key: owner.apiKey });
      assert.equal(res.status, 200);
      const named = [pages[3], 'https://www.example.com/p/17', 'https://www.example.com/never-searched', pages[40]];
      assert.deepEqual(res.body.impact, expectedImpact(rows, D, 7, named));
      assert.deepEqual(res.body.impact.pages.affected.urls, named, 'each page once, check findings first, no sitemap');
      const { affected, rest } = res.body.impact.pages;
      assert.ok(affected.before.clicks > 0 && affected.after.clicks > 0 && rest.before.clicks > affected.before.clicks);
      assert.equal(affected.before.clicks + rest.before.clicks, res.body.impact.before.clicks);
      assert.equal(affected.after.impressions + rest.after.impressions, res.body.impact.after.impressions);

      const want = checkFindings.map((f) => clicks28(rows, f.url));
      assert.ok(want[0] > 0 && want[1] > 0 && want[3] === 0);
      assert.deepEqual(res.body.findings.map((f: { clicks: number }) => f.clicks), want);
      const latest = await api.call('GET', '/v1/site-checks/latest', { key: owner.apiKey, query: { workspace_id: ws } });
      assert.deepEqual(latest.body.findings.map((f: { url: string; clicks: number }) => [f.url, f.clicks]), checkFindings.map((f, i) => [f.url, want[i]]));

      // Clicks follow the data: a re-import of the newest day without /p/3 lowers them.
      const newest = addDays(D, 12);
      const replaced = rows.filter((r) => r.date === newest && normalizeUrl(r.page) !== pages[3]);
      await load(ws, replaced);
      const now = [...rows.filter((r) => r.date !== newest), ...replaced];
      const lost = rows.filter((r) => r.date === newest && normalizeUrl(r.page) === pages[3]).reduce((s, r) => s + r.clicks, 0);
      const again = (await api.call('GET', `/v1/deploys/${id}`, { key: owner.apiKey })).body;
      assert.equal(again.findings[0].clicks, clicks28(now, pages[3]));
      assert.equal(again.findings[0].clicks, want[0] - lost);
    });

    it('without search data: impact is null', async () => {
      const ws = await workspace();
      const id = await deploy(ws, new Date(nowMs() - 10 * 86_400_000).toISOString());
      const d = (await api.call('GET', `/v1/deploys/${id}`, { key: owner.apiKey })).body;
      assert.equal(d.impact, null);
    });

    it('a check picks its key pages by search clicks first; findings carry those clicks', async () => {
      const runner = () => testRunner(api.db, { config: loadConfig({ ...process.env, ...ENV }) });
      const linked = Array.from({ length: 25 }, (_, i) => `/p${i}`);
      const publish = (broken: boolean) => {
        site.reset();
        site.set('/', htmlPage({ title: 'Home', description: 'Home', h1: ['Home'], links: linked, words: 100 }));
        for (const p of [...linked, '/hidden-a', '/hidden-b']) site.set(p, htmlPage({ title: `Page ${p}`, description: `About ${p}`, h1: [p], links: ['/'], words: 100 }));
        site.set('/robots.txt', { body: `User-agent: *\nAllow: /\nSitemap: ${site.url('/sitemap.xml')}\n`, contentType: 'text/plain' });
        site.set('/sitemap.xml', sitemapXml(linked.map((p) => site.url(p))));
        if (broken) {
          site.set('/hidden-a', { status: 500, html: '<h1>Error</h1>' });
          site.set('/p7', htmlPage({ title: 'Page /p7', description: 'About /p7', h1: ['/p7'], links: ['/'], words: 100, robots: 'noindex' }));
          site.set('/p20', htmlPage({ description: 'About /p20', h1: ['/p20'], links: ['/'], words: 100 }));
          site.set('/p1', htmlPage({ title: 'Page /p1', description: 'About /p1', links: ['/'], words: 100 }));
        }
      };
      const ws = await workspace(site.url('/'));
      // An active webhook, so the regression event is written (one that refuses connections).
      await createWebhook(api.db, { workspaceId: ws, url: 'https://127.0.0.1:9/hook', events: ['site_check.regression'] }, { allowPrivateNetwork: true, keyring: keyringFor(api.config) });
      // Newest day 2 days ago (provisional: still counted); the 28-day window is ago(29)..ago(2).
      const rows: DataRow[] = [];
      for (const date of days(ago(40), ago(2))) {
        const inWindow = date >= ago(29);
        rows.push({ date, page: site.url('/'), clicks: 500, impressions: 5000 });
        rows.push({ date, page: 'https://other.example/x', clicks: 10_000, impressions: 50_000 });
        rows.push({ date, page: site.url('/p3'), clicks: 0, impressions: 100 });
        if (inWindow) {
          rows.push({ date, page: site.url('/hidden-a'), clicks: 50, impressions: 900 });
          rows.push({ date, page: site.url('/p20'), clicks: 30, impressions: 900 });
          rows.push({ date, page: site.url('/hidden-b'), clicks: 20, impressions: 900 });
          // The window's first day counts: 1,000 clicks put /p7 second.
          rows.push({ date, page: site.url('/p7'), clicks: date === ago(29) ? 1000 : 10, impressions: 900 });
        } else {
          // Outside the window: enough to top the list if it were counted.
          rows.push({ date, page: site.url('/p11'), clicks: 5000, impressions: 9000 });
          if (date === ago(30)) rows.push({ date, page: site.url('/p20'), clicks: 1000, impressions: 9000 });
        }
      }
      await load(ws, rows, { provisionalFrom: ago(2) });
      const byClicks = ['/hidden-a', '/p7', '/p20', '/hidden-b'].map((p) => site.url(p));
      assert.deepEqual(byClicks.map((u) => clicks28(rows, u)), [1400, 1270, 840, 560]);

      const run = async () => {
        const res = await api.call('POST', '/v1/deploys', { key: owner.apiKey, body: { workspaceId: ws, commitSha: crypto.randomBytes(20).toString('hex') } });
        assert.equal(res.status, 201, res.text);
        await runner().runDue();
        return (await api.call('GET', `/v1/deploys/${res.body.id}`, { key: owner.apiKey })).body;
      };
      publish(false);
      const first = await run();
      assert.equal(first.siteCheck.state, 'finished', JSON.stringify(first.siteCheck.error));
      const urls: string[] = first.siteCheck.pages.map((p: { url: string }) => p.url);
      assert.equal(urls[0], site.url('/'));
      assert.deepEqual(urls.slice(1, 5), byClicks, 'key pages by clicks first, most clicked first');
      assert.equal(urls.length, 21, 'then crawl or sitemap pages up to 20 key pages');
      assert.equal(new Set(urls).size, urls.length);
      assert.ok(urls.every((u) => u.startsWith(site.origin)), 'same origin only');
      assert.equal(first.impact, null, 'no final data after today');

      publish(true);
      const second = await run();
      assert.equal(second.siteCheck.state, 'finished');
      const clicksOf = (d: { findings: Array<{ kind: string; url: string; clicks: number }> }) => Object.fromEntries(d.findings.map((f) => [`${f.kind} ${new URL(f.url).pathname}`, f.clicks]));
      const expected = { 'page_error /hidden-a': 1400, 'noindex_added /p7': 1270, 'title_missing /p20': 840, 'h1_missing /p1': 0 };
      assert.deepEqual(clicksOf(second), expected);
      const latest = await api.call('GET', '/v1/site-checks/latest', { key: owner.apiKey, query: { workspace_id: ws } });
      assert.deepEqual(clicksOf(latest.body), expected);
      // The regression event was written with the clicks of that moment.
      const event = (await OutboxEvent.query(api.db).where({ workspace_id: ws, type: 'site_check.regression' }).first())!;
      assert.deepEqual(clicksOf(event.data as never), expected);
    });
  });
}
