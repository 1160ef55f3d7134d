// A schedule per workspace (spec/workspaces.tsp CheckSchedule, CrawlSchedule): slots on the
// wall clock of the workspace's zone through daylight-saving changes, each slot run exactly once
// by two workers sharing one database, one catch-up after downtime, and a scheduled check that
// finds a noindex no deploy explains.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../core/platform/index.ts';
import { createDb, SiteCheck, Workspace, type Db } from '../core/db/index.ts';
import { createWebhook } from '../core/webhooks/index.ts';
import { keyringFor } from '../core/secrets/index.ts';
import { instantOf, latestSlot, runSchedules, type ScheduledRun } from '../core/monitoring/index.ts';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { testRunner } from './support/jobs.ts';
import { htmlPage, sitemapXml, startFixtureSite, type FixtureSite } from './support/fixture-site.ts';

after(dropCreatedDatabases);

const at = (iso: string) => Date.parse(iso);
const iso = (t: number) => new Date(t).toISOString();

describe('schedule slots through daylight saving time', () => {
  it('daily checks keep their local time across the change days of America/New_York and Europe/Berlin', () => {
    // New York: clocks forward 2026-03-08 02:00 EST -> 03:00 EDT, back 2026-11-01 02:00 EDT -> 01:00 EST.
    assert.equal(iso(latestSlot('daily', '06:00', 'America/New_York', at('2026-03-07T23:00:00Z'))), '2026-03-07T11:00:00.000Z');
    assert.equal(iso(latestSlot('daily', '06:00', 'America/New_York', at('2026-03-08T23:00:00Z'))), '2026-03-08T10:00:00.000Z');
    assert.equal(iso(latestSlot('daily', '06:00', 'America/New_York', at('2026-10-31T23:00:00Z'))), '2026-10-31T10:00:00.000Z');
    assert.equal(iso(latestSlot('daily', '06:00', 'America/New_York', at('2026-11-01T23:00:00Z'))), '2026-11-01T11:00:00.000Z');
    // Berlin: forward 2026-03-29 02:00 CET -> 03:00 CEST, back 2026-10-25 03:00 CEST -> 02:00 CET.
    assert.equal(iso(latestSlot('daily', '06:00', 'Europe/Berlin', at('2026-03-28T23:00:00Z'))), '2026-03-28T05:00:00.000Z');
    assert.equal(iso(latestSlot('daily', '06:00', 'Europe/Berlin', at('2026-03-29T23:00:00Z'))), '2026-03-29T04:00:00.000Z');
    assert.equal(iso(latestSlot('daily', '06:00', 'Europe/Berlin', at('2026-10-24T23:00:00Z'))), '2026-10-24T04:00:00.000Z');
    assert.equal(iso(latestSlot('daily', '06:00', 'Europe/Berlin', at('2026-10-25T23:00:00Z'))), '2026-10-25T05:00:00.000Z');
  });

  it('a time the clocks skip runs as much later as they jumped; a time they repeat runs once, at its first occurrence', () => {
    assert.equal(iso(instantOf(at('2026-03-08T02:30:00Z'), 'America/New_York')), '2026-03-08T07:30:00.000Z'); // 03:30 EDT
    assert.equal(iso(instantOf(at('2026-03-29T02:30:00Z'), 'Europe/Berlin')), '2026-03-29T01:30:00.000Z'); // 03:30 CEST
    assert.equal(iso(instantOf(at('2026-11-01T01:30:00Z'), 'America/New_York')), '2026-11-01T05:30:00.000Z'); // 01:30 EDT, not EST
    assert.equal(iso(instantOf(at('2026-10-25T02:30:00Z'), 'Europe/Berlin')), '2026-10-25T00:30:00.000Z'); // 02:30 CEST, not CET
    // During the repeated hour the slot already passed: the second 01:30 is not a new slot.
    assert.equal(iso(latestSlot('daily', '01:30', 'America/New_York', at('2026-11-01T06:45:00Z'))), '2026-11-01T05:30:00.000Z');
    assert.equal(iso(latestSlot('daily', '02:30', 'America/New_York', at('2026-03-08T07:29:00Z'))), '2026-03-07T07:30:00.000Z');
  });

  it('hourly slots are every real hour: 23 on the day the clocks go forward, 25 on the day they go back', () => {
    const slotsOfLocalDay = (zone: string, fromIso: string, toIso: string) => {
      const slots = new Set<number>();
      for (let t = at(fromIso); t < at(toIso); t += 5 * 60_000) {
        const s = latestSlot('hourly', '00:15', zone, t);
        if (s >= at(fromIso)) slots.add(s);
      }
      return slots.size;
    };
    assert.equal(slotsOfLocalDay('America/New_York', '2026-03-08T05:00:00Z', '2026-03-09T04:00:00Z'), 23);
    assert.equal(slotsOfLocalDay('America/New_York', '2026-11-01T04:00:00Z', '2026-11-02T05:00:00Z'), 25);
    assert.equal(slotsOfLocalDay('Europe/Berlin', '2026-03-28T23:00:00Z', '2026-03-29T22:00:00Z'), 23);
    assert.equal(slotsOfLocalDay('Europe/Berlin', '2026-10-24T22:00:00Z', '2026-10-25T23:00:00Z'), 25);
    // Half-hour zones keep the local minute.
    assert.equal(iso(latestSlot('hourly', '00:15', 'Asia/Kolkata', at('2026-11-01T12:00:00Z'))), '2026-11-01T11:45:00.000Z');
  });

  it('weekly crawls run on local Mondays', () => {
    // 2026-11-02 is a Monday; in Tokyo it begins on Sunday 15:00 UTC.
    assert.equal(iso(latestSlot('weekly', '06:00', 'Asia/Tokyo', at('2026-11-04T00:00:00Z'))), '2026-11-01T21:00:00.000Z');
    assert.equal(iso(latestSlot('weekly', '06:00', 'America/New_York', at('2026-11-04T00:00:00Z'))), '2026-11-02T11:00:00.000Z');
  });
});

for (const engine of engines()) {
  describe(`schedules across workers (${engine})`, () => {
    let api: TestApi;
    let owner: Awaited<ReturnType<TestApi['owner']>>;
    let workers: Db[];
    const ws: Record<string, string> = {};

    before(async () => {
      api = await TestApi.start(engine);
      owner = await api.owner();
      // Two workers: two connection pools on one database.
      workers = [createDb(api.dbUrl), createDb(api.dbUrl)];
      const make = async (name: string, body: Record<string, unknown>) => {
        const res = await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `${name} ${crypto.randomUUID()}`, website: 'https://www.example.com', ...body } });
        assert.equal(res.status, 201, res.text);
        ws[name] = res.body.data.id;
      };
      await make('ny-daily', { timezone: 'America/New_York' });
      await make('berlin-hourly', { timezone: 'Europe/Berlin', check_schedule: 'hourly', check_time: '09:15', crawl_schedule: 'off' });
      await make('berlin-0230', { timezone: 'Europe/Berlin', check_time: '02:30', crawl_schedule: 'off' });
      await make('quiet', { check_schedule: 'off', crawl_schedule: 'off' });
      // The simulated weeks are in March 2027 and begin when the workspaces are created; the
      // owner's own workspace has no schedule.
      await Workspace.query(api.db).whereIn('id', Object.values(ws)).patch({ created_at: at('2027-03-08T00:00:00Z') });
      await api.call('PUT', `/v1/workspaces/${owner.workspaceId}`, { key: owner.apiKey, body: { check_schedule: 'off', crawl_schedule: 'off' } });
    });
    after(async () => {
      for (const w of workers) await w.destroy();
      await api.stop();
    });

    it('defaults: checks daily at 06:00, crawls weekly; settings validate and read back', async () => {
      const w = (await api.call('GET', `/v1/workspaces/${ws['ny-daily']}`, { key: owner.apiKey })).body.data;
      assert.equal(w.check_schedule, 'daily');
      assert.equal(w.check_time, '06:00');
      assert.equal(w.crawl_schedule, 'weekly');
      for (const bad of [{ check_schedule: 'weekly' }, { crawl_schedule: 'daily' }, { check_time: '24:00' }, { check_time: '6:00' }]) {
        const res = await api.call('PUT', `/v1/workspaces/${ws.quiet}`, { key: owner.apiKey, body: bad });
        assert.equal(res.status, 400, JSON.stringify(bad));
        assert.equal(res.body.errors[0].path, `/${Object.keys(bad)[0]}`);
      }
      assert.equal((await api.call('GET', `/v1/workspaces/${ws.quiet}`, { key: owner.apiKey })).body.data.check_schedule, 'off');
    });

    it('two workers ticking together through three weeks with both DST changes run each slot exactly once', async () => {
      const start = at('2027-03-08T00:00:00Z');
      const end = at('2027-03-29T12:00:00Z');
      const runs: ScheduledRun[] = [];
      // A tick every 30 minutes: two ticks per hourly slot (one finds it due, one finds nothing).
      for (let t = start; t <= end; t += 30 * 60_000) {
        const got = (await Promise.all(workers.map((db) => runSchedules(db, t)))).flat();
        runs.push(...got);
        // The checks and crawls run between ticks (here: they are marked finished), so the next
        // slot queues a new one rather than meeting this one still queued. A tick that queued
        // nothing left nothing queued (the previous tick finished everything).
        if (got.length === 0) continue;
        await SiteCheck.query(api.db).where({ state: 'queued', trigger_kind: 'schedule' }).patch({ state: 'finished', finished_at: t });
        await api.db('site_crawls').where({ state: 'queued', trigger_kind: 'schedule' }).update({ state: 'finished', finished_at: t });
      }
      const slots = (name: string, kind: string) => runs.filter((r) => r.workspaceId === ws[name] && r.kind === kind).map((r) => iso(r.slotAt));
      const days = Array.from({ length: 22 }, (_, i) => 8 + i);
      // New York, 06:00 local: EST (11:00 UTC) until the clocks go forward on 2027-03-14, then EDT.
      assert.deepEqual(slots('ny-daily', 'check'), days.map((d) => iso(Date.UTC(2027, 2, d, d < 14 ? 11 : 10))));
      // Mondays 06:00 local.
      assert.deepEqual(slots('ny-daily', 'crawl'), ['2027-03-08T11:00:00.000Z', '2027-03-15T10:00:00.000Z', '2027-03-22T10:00:00.000Z', '2027-03-29T10:00:00.000Z']);
      // Berlin, 02:30 local: CET (01:30 UTC); on 2027-03-28 02:30 does not exist and runs at 03:30 CEST (01:30 UTC); then CEST (00:30 UTC).
      assert.deepEqual(slots('berlin-0230', 'check'), days.map((d) => iso(Date.UTC(2027, 2, d, d < 29 ? 1 : 0, 30))));
      // Hourly at :15, every real hour of the window.
      const hourly = slots('berlin-hourly', 'check');
      assert.equal(hourly.length, 21 * 24 + 12);
      assert.equal(new Set(hourly).size, hourly.length, 'no slot twice');
      assert.equal(slots('quiet', 'check').length + slots('quiet', 'crawl').length, 0);
      // The database agrees: one scheduled check or crawl per slot, each a queued run in its own right.
      const checks = await SiteCheck.query(api.db).where({ trigger_kind: 'schedule' }).resultSize();
      assert.equal(checks, runs.filter((r) => r.kind === 'check').length);
      assert.equal(new Set(runs.map((r) => r.runId)).size, runs.length);
    });

    it('a worker that was down catches up once, not once per missed slot', async () => {
      const before = await SiteCheck.query(api.db).where({ trigger_kind: 'schedule' }).resultSize();
      // Down from 2027-03-29 12:00 to 2027-04-03 17:40: 5 days of daily slots, 125 hourly ones.
      const back = at('2027-04-03T17:40:00Z');
      const mine = new Set(Object.values(ws));
      const got = (await Promise.all(workers.map((db) => runSchedules(db, back)))).flat().filter((r) => mine.has(r.workspaceId));
      assert.deepEqual(got.map((r) => `${r.kind} ${iso(r.slotAt)}`).sort(), [
        'check 2027-04-03T00:30:00.000Z', // berlin-0230
        'check 2027-04-03T10:00:00.000Z', // ny-daily
        'check 2027-04-03T17:15:00.000Z', // berlin-hourly
      ]);
      assert.equal(await SiteCheck.query(api.db).where({ trigger_kind: 'schedule' }).resultSize(), before + 3);
      // And again at the same time: nothing more.
      assert.deepEqual((await Promise.all(workers.map((db) => runSchedules(db, back + 60_000)))).flat(), []);
    });

    it('a schedule turned on runs from its next slot, never for one before the change', async () => {
      // Back to the real clock: a workspace created yesterday.
      await Workspace.query(api.db).findById(ws.quiet).patch({ created_at: Date.now() - 86_400_000, updated_at: Date.now() - 86_400_000 });
      const res = await api.call('PUT', `/v1/workspaces/${ws.quiet}`, { key: owner.apiKey, body: { check_schedule: 'hourly', check_time: '00:00' } });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.check_schedule, 'hourly');
      const now = Date.now();
      assert.deepEqual((await runSchedules(api.db, now)).filter((r) => r.workspaceId === ws.quiet), []);
      const next = (await runSchedules(api.db, now + 3_600_000)).filter((r) => r.workspaceId === ws.quiet);
      assert.equal(next.length, 1);
      assert.equal(next[0].kind, 'check');
    });
  });

  describe(`a scheduled check finds what no deploy explains (${engine})`, () => {
    let api: TestApi;
    let site: FixtureSite;
    const ENV = { ALLOW_PRIVATE_NETWORK: '1', CRAWL_DELAY_MS: '0' };

    before(async () => {
      api = await TestApi.start(engine, { env: ENV });
      site = await startFixtureSite();
    });
    after(async () => {
      await site.close();
      await api.stop();
    });

    it('noindex added with no deploy: site_check.regression goes out, causes [] and the explanation says no deploy is behind it', async () => {
      const publish = (robots?: string) => {
        site.reset();
        site.set('/', htmlPage({ title: 'Home', h1: ['Home'], words: 150, links: ['/pricing'] }));
        site.set('/pricing', htmlPage({ title: 'Pricing', h1: ['Pricing'], words: 150, links: ['/'], robots }));
        site.set('/robots.txt', { body: `User-agent: *\nAllow: /\nSitemap: ${site.url('/sitemap.xml')}\n`, contentType: 'text/plain' });
        site.set('/sitemap.xml', sitemapXml([site.url('/pricing')]));
      };
      const owner = await api.owner();
      const ws = (await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `Watched ${crypto.randomUUID()}`, website: site.url('/'), check_schedule: 'hourly', crawl_schedule: 'off' } })).body.data.id;
      const hook = await createWebhook(api.db, { workspaceId: ws, url: 'https://127.0.0.1:9/hook', events: ['site_check.regression'] }, { allowPrivateNetwork: true, keyring: keyringFor(api.config) });
      const runner = () => testRunner(api.db, { config: loadConfig({ ...process.env, ...ENV }) }).runDue();
      const now = Date.now();
      publish();
      assert.equal((await runSchedules(api.db, now + 3_600_000)).length, 1);
      await runner();
      // An editor adds noindex in the CMS; no deploy is recorded.
      publish('noindex');
      const [run] = await runSchedules(api.db, now + 2 * 3_600_000);
      assert.ok(run);
      await runner();
      const check = (await api.call('GET', `/v1/site-checks/${run.runId}`, { key: owner.apiKey })).body;
      assert.equal(check.trigger, 'schedule');
      assert.equal(check.state, 'finished', check.error);
      const f = check.findings.find((x: { kind: string }) => x.kind === 'noindex_added');
      assert.ok(f, JSON.stringify(check.findings));
      assert.equal(f.url, site.url('/pricing'));
      assert.deepEqual(f.causes, []);
      assert.match(f.explanation, /No deploy was recorded between the baseline check .* and this check/);
      // The webhook got it: an attempt of site_check.regression (to a receiver that refuses it).
      const deliveries = (await api.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { key: owner.apiKey })).body.data;
      const sent = deliveries.find((d: { event: string }) => d.event === 'site_check.regression');
      assert.ok(sent, JSON.stringify(deliveries));
      const full = (await api.call('GET', `/v1/webhooks/${hook.id}/deliveries/${sent.id}`, { key: owner.apiKey })).body;
      const payload = JSON.parse(full.payload);
      assert.equal(payload.data.check.id, run.runId);
      assert.equal(payload.data.deployId, null);
      assert.match(payload.data.findings[0].explanation, /No deploy was recorded/);
    });
  });
}
