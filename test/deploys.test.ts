import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { createWebhook } from '../core/webhooks/index.ts';
import { keyringFor } from '../core/secrets/index.ts';
import { recordDeploy } from '../core/deploys/index.ts';
import { createDb, isDatabaseUnavailable } from '../core/db/index.ts';

after(dropCreatedDatabases);

let shaCounter = 0;
/** A fresh valid sha of the given length. */
function sha(len = 40): string {
  shaCounter += 1;
  return (shaCounter.toString(16) + Date.now().toString(16) + 'abcdef0123456789'.repeat(5)).slice(0, len);
}

const SIGNAL = { kind: 'canonical', change: 'removed' as const };

for (const engine of engines()) {
  describe(`deploys (${engine})`, () => {
    let api: TestApi;
    let o: Awaited<ReturnType<TestApi['owner']>>;
    const post = (body: unknown, key = o.apiKey) => api.call('POST', '/v1/deploys', { key, body });
    const jobsFor = async (deployId: string) => {
      const checks = await api.db('site_checks').where({ deploy_id: deployId }).select('id', 'scheduled_at', 'state');
      const crawls = await api.db('site_crawls').where({ deploy_id: deployId }).select('id', 'scheduled_at', 'state');
      const ids = [...checks.map((c) => `site_check:${c.id}`), ...crawls.map((c) => `site_crawl:${c.id}`)];
      const jobs = ids.length ? await api.db('jobs').whereIn('dedupe_key', ids).select('kind', 'run_at', 'state', 'dedupe_key') : [];
      return { checks, crawls, jobs };
    };

    before(async () => {
      api = await TestApi.start(engine, { env: { SITE_CHECK_DELAY_SECONDS: '120', CRAWL_DELAY_SECONDS: '300' } });
      o = await api.owner();
    });
    after(async () => {
      await api.stop();
    });

    it('records a deploy with defaults: production, now, source webhook, no changes', async () => {
      const t0 = Date.now();
      const res = await post({ commitSha: sha(), workspaceId: o.workspaceId });
      assert.equal(res.status, 201);
      const d = res.body;
      assert.equal(d.environment, 'production');
      assert.equal(d.source, 'webhook');
      assert.deepEqual(d.changes, []);
      assert.equal(d.ref, null);
      assert.equal(d.message, null);
      assert.equal(d.workspaceId, o.workspaceId);
      assert.match(d.deployedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.ok(Date.parse(d.deployedAt) >= t0 - 1000 && Date.parse(d.deployedAt) <= Date.now() + 1000);
    });

    it('source is cli with changes; signals default to []; deployedAt with an offset is answered in UTC', async () => {
      const res = await post({
        commitSha: sha(),
        workspaceId: o.workspaceId,
        ref: 'main',
        message: 'Ship it',
        deployedAt: '2026-11-20T12:30:00+02:00',
        changes: [{ path: 'src/a.tsx', category: 'page', signals: [{ ...SIGNAL, line: 3 }] }, { path: 'robots.txt', category: 'robots' }],
      });
      assert.equal(res.status, 201);
      assert.equal(res.body.source, 'cli');
      assert.equal(res.body.deployedAt, '2026-11-20T10:30:00.000Z');
      assert.deepEqual(res.body.changes, [
        { path: 'src/a.tsx', category: 'page', signals: [{ kind: 'canonical', change: 'removed', line: 3 }] },
        { path: 'robots.txt', category: 'robots', signals: [] },
      ]);
    });

    it('deployedAt without an offset, or not a date-time, is 400', async () => {
      for (const deployedAt of ['2026-11-20T12:30:00', '2026-11-20', 'yesterday', '2026-13-01T00:00:00Z']) {
        const res = await post({ commitSha: sha(), workspaceId: o.workspaceId, deployedAt });
        assert.equal(res.status, 400, deployedAt);
        assert.equal(res.body.code, 'validation_failed');
        assert.equal(res.body.errors[0].path, '/deployedAt');
      }
    });

    it('enforces every bound at and just past the limit', async () => {
      const ok = async (body: Record<string, unknown>) => {
        const r = await post({ commitSha: sha(), workspaceId: o.workspaceId, ...body });
        assert.equal(r.status, 201, JSON.stringify(r.body).slice(0, 200));
      };
      const bad = async (body: Record<string, unknown>, pointer: string) => {
        const r = await post({ commitSha: sha(), workspaceId: o.workspaceId, ...body });
        assert.equal(r.status, 400);
        assert.ok(r.body.errors.some((e: { path: string }) => e.path.startsWith(pointer)), `${pointer}: ${JSON.stringify(r.body.errors)}`);
      };
      await ok({ commitSha: sha(7) });
      await ok({ commitSha: sha(64) });
      await bad({ commitSha: sha(6) }, '/commitSha');
      await bad({ commitSha: sha(64) + 'a' }, '/commitSha');
      await bad({ commitSha: 'zzzzzzz' }, '/commitSha');
      await ok({ environment: 'e'.repeat(32) });
      await bad({ environment: 'e'.repeat(33) }, '/environment');
      await bad({ environment: '' }, '/environment');
      await ok({ ref: 'r'.repeat(255) });
      await bad({ ref: 'r'.repeat(256) }, '/ref');
      await ok({ message: 'm'.repeat(2000) });
      await bad({ message: 'm'.repeat(2001) }, '/message');
      const change = (i: number) => ({ path: `src/file-${i}.ts`, category: 'script' });
      await ok({ changes: Array.from({ length: 500 }, (_, i) => change(i)) });
      await bad({ changes: Array.from({ length: 501 }, (_, i) => change(i)) }, '/changes');
      await ok({ changes: [{ path: 'a', category: 'other', signals: Array.from({ length: 50 }, () => SIGNAL) }] });
      await bad({ changes: [{ path: 'a', category: 'other', signals: Array.from({ length: 51 }, () => SIGNAL) }] }, '/changes/0/signals');
      await bad({ changes: [{ path: 'a', category: 'nope' }] }, '/changes/0/category');
      await bad({ changes: [{ path: 'a', category: 'other', signals: [{ kind: 'nope', change: 'added' }] }] }, '/changes/0/signals/0/kind');
      await bad({ changes: [{ path: 'a', category: 'other', signals: [{ kind: 'title', change: 'changed' }] }] }, '/changes/0/signals/0/change');
      await bad({ changes: [{ path: 'a', category: 'other', code: 'x' }] }, '/changes/0/code');
      await bad({ workspaceId: 'not-a-uuid' }, '/workspaceId');
      await bad({ unknown: true }, '/unknown');
    });

    it('every category and signal kind of the contract is accepted', async () => {
      const categories = 'template component page style script content config routing redirects robots sitemap headers dependencies asset server build test docs other'.split(' ');
      const kinds = 'title meta_description meta_robots x_robots_tag canonical hreflang structured_data heading link redirect robots_rule sitemap_entry route script stylesheet image font lazy_loading status_code dependency env other'.split(' ');
      const changes = categories.map((category, i) => ({ path: `f${i}`, category, signals: kinds.map((kind) => ({ kind, change: 'added' })) }));
      const r = await post({ commitSha: sha(), workspaceId: o.workspaceId, changes });
      assert.equal(r.status, 201);
      assert.equal(r.body.changes.length, categories.length);
    });

    it('the same environment and sha (any case) updates the deploy; omitted fields keep their values', async () => {
      const s = sha(12);
      const first = await post({ commitSha: s.toUpperCase(), workspaceId: o.workspaceId, ref: 'main', message: 'one', changes: [{ path: 'a', category: 'page' }] });
      assert.equal(first.status, 201);
      assert.equal(first.body.commitSha, s.toLowerCase());
      const second = await post({ commitSha: s.toLowerCase(), workspaceId: o.workspaceId, message: 'two' });
      assert.equal(second.status, 201);
      assert.equal(second.body.id, first.body.id);
      assert.equal(second.body.ref, 'main');
      assert.equal(second.body.message, 'two');
      assert.equal(second.body.source, 'cli');
      assert.equal(second.body.changes.length, 1);
      assert.equal(second.body.createdAt, first.body.createdAt);
      const other = await post({ commitSha: s, workspaceId: o.workspaceId, environment: 'staging' });
      assert.notEqual(other.body.id, first.body.id);
      const rows = await api.db('deploys').where({ workspace_id: o.workspaceId, commit_sha: s.toLowerCase() });
      assert.equal(rows.length, 2);
    });

    it('50 concurrent identical requests leave exactly one deploy, one check, one crawl, two jobs and one event', async () => {
      // A workspace with an active webhook, so the deploy.recorded event is written.
      const workspaceId = await api.workspace(o);
      await createWebhook(api.db, { workspaceId, url: 'https://127.0.0.1:9/hook', events: ['deploy.recorded'] }, { allowPrivateNetwork: true, keyring: keyringFor(api.config) });
      const s = sha();
      const results = await Promise.all(Array.from({ length: 50 }, () => post({ commitSha: s, workspaceId })));
      assert.ok(results.every((r) => r.status === 201), results.map((r) => r.status).join(','));
      assert.equal(new Set(results.map((r) => r.body.id)).size, 1);
      const rows = await api.db('deploys').where({ commit_sha: s });
      assert.equal(rows.length, 1);
      const { checks, crawls, jobs } = await jobsFor(rows[0].id);
      assert.equal(checks.length, 1);
      assert.equal(crawls.length, 1);
      assert.equal(jobs.length, 2);
      const events = await api.db('events').where({ type: 'deploy.recorded' }).andWhere('data', 'like', `%${s}%`);
      assert.equal(events.length, 1);
      assert.equal((await api.db('jobs').where({ dedupe_key: `webhook_fanout:${events[0].id}` })).length, 1);
    });

    it('concurrent requests for overlapping deploys, in shuffled orders, each get their own deploy and nothing is doubled', async () => {
      // Concurrent recordings share statements on PostgreSQL (core/db/batch.ts): every caller
      // must still get the deploy it named, and overlapping keys must neither deadlock nor double.
      const other = await api.workspace(o);
      const keys = Array.from({ length: 12 }, (_, i) => ({
        workspaceId: i % 2 ? other : o.workspaceId,
        environment: i % 3 ? 'production' : 'staging',
        commitSha: sha(),
      }));
      const requests = keys.flatMap((k) => Array.from({ length: 5 }, (_, n) => ({ ...k, message: `try ${n}` })));
      for (let i = requests.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [requests[i], requests[j]] = [requests[j], requests[i]];
      }
      const results = await Promise.all(requests.map((body) => post(body)));
      const idOf = new Map<string, string>();
      for (const [i, res] of results.entries()) {
        const asked = requests[i];
        assert.equal(res.status, 201, JSON.stringify(res.body));
        assert.deepEqual([res.body.workspaceId, res.body.environment, res.body.commitSha], [asked.workspaceId, asked.environment, asked.commitSha]);
        const key = `${asked.workspaceId}/${asked.environment}/${asked.commitSha}`;
        assert.equal(idOf.get(key) ?? res.body.id, res.body.id, `one deploy for ${key}`);
        idOf.set(key, res.body.id);
      }
      assert.equal(idOf.size, keys.length);
      for (const k of keys) {
        const rows = await api.db('deploys').where({ workspace_id: k.workspaceId, environment: k.environment, commit_sha: k.commitSha });
        assert.equal(rows.length, 1);
        const { checks, crawls, jobs } = await jobsFor(rows[0].id);
        const scheduled = k.environment === 'production' ? 1 : 0;
        assert.deepEqual([checks.length, crawls.length, jobs.length], [scheduled, scheduled, 2 * scheduled], `${k.environment} deploy`);
      }
    });

    it('a deploy that cannot be stored fails alone: concurrent recordings of other deploys are stored', async () => {
      // Its workspace deleted between the key check and the write, as a foreign key refuses it.
      const gone = '0190f5a2-0000-7000-8000-000000000000';
      const delays = { siteCheckDelaySeconds: 120, crawlDelaySeconds: 300 };
      const shas = Array.from({ length: 8 }, () => sha());
      const outcomes = await Promise.allSettled([
        ...shas.map((commitSha) => recordDeploy(api.db, o.workspaceId, { commitSha }, delays)),
        recordDeploy(api.db, gone, { commitSha: sha() }, delays),
      ]);
      assert.deepEqual(
        outcomes.map((r) => r.status),
        [...shas.map(() => 'fulfilled'), 'rejected'],
      );
      const stored = await api.db('deploys').whereIn('commit_sha', shas);
      assert.equal(stored.length, shas.length);
      assert.equal((await api.db('deploys').where({ workspace_id: gone })).length, 0);
    });

    it('with the database unreachable, concurrent recordings fail at once, unavailable, with no retry each', { skip: engine !== 'postgres' && 'a SQLite file is never unreachable' }, async () => {
      // Nothing listens on port 1: every connection is refused.
      const down = createDb('postgres://root@127.0.0.1:1/none', { busyWaitMs: 200 });
      const announced: string[] = [];
      down.on('query', (q: { sql: string }) => announced.push(q.sql));
      try {
        const delays = { siteCheckDelaySeconds: 120, crawlDelaySeconds: 300 };
        const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => recordDeploy(down, o.workspaceId, { commitSha: sha() }, delays)));
        for (const r of outcomes) assert.ok(r.status === 'rejected' && isDatabaseUnavailable(r.reason), String(r.status === 'rejected' ? r.reason : 'fulfilled'));
        // One shared statement tried; a retry per deploy would announce five more.
        assert.equal(announced.length, 1, announced.join('\n'));
      } finally {
        await down.destroy();
      }
    });

    it('50 concurrent requests moving one deploy to the same new time reschedule its check and crawl once', async () => {
      const workspaceId = await api.workspace(o);
      const s = sha();
      const first = await post({ commitSha: s, workspaceId, deployedAt: '2026-01-01T00:00:00Z' });
      const later = new Date(Date.now() + 3_600_000).toISOString();
      const results = await Promise.all(Array.from({ length: 50 }, () => post({ commitSha: s, workspaceId, deployedAt: later })));
      assert.ok(results.every((r) => r.status === 201 && r.body.id === first.body.id));
      const { checks, crawls, jobs } = await jobsFor(first.body.id);
      assert.equal(checks.length, 1, 'the queued check moved, not duplicated');
      assert.equal(crawls.length, 1);
      assert.equal(jobs.length, 2);
      assert.equal(Number(checks[0].scheduled_at), Date.parse(later) + 120_000);
      assert.equal(Number(jobs.find((j) => j.kind === 'site_crawl')!.run_at), Date.parse(later) + 300_000);
    });

    it('a deploy of a workspace without an active webhook writes no event and no fan-out job', async () => {
      const workspaceId = await api.workspace(o);
      const res = await post({ commitSha: sha(), workspaceId });
      assert.equal(res.status, 201);
      assert.equal((await api.db('events').where({ workspace_id: workspaceId })).length, 0);
      assert.equal((await api.db('jobs').where('kind', 'webhook_fanout').andWhere('payload', 'like', `%${res.body.id}%`)).length, 0);
      const { jobs } = await jobsFor(res.body.id);
      assert.equal(jobs.length, 2, 'the check and the crawl are queued all the same');
    });

    it('a new production deploy queues a check at +120 s and a crawl at +300 s, recorded as queued', async () => {
      const before = Date.now();
      const res = await post({ commitSha: sha(), workspaceId: o.workspaceId });
      const { checks, crawls, jobs } = await jobsFor(res.body.id);
      assert.equal(checks.length, 1);
      assert.equal(checks[0].state, 'queued');
      assert.equal(crawls[0].state, 'queued');
      const checkJob = jobs.find((j) => j.kind === 'site_check')!;
      const crawlJob = jobs.find((j) => j.kind === 'site_crawl')!;
      assert.equal(checkJob.state, 'queued');
      assert.ok(Number(checkJob.run_at) >= before + 120_000 && Number(checkJob.run_at) <= Date.now() + 120_000);
      assert.ok(Number(crawlJob.run_at) >= before + 300_000 && Number(crawlJob.run_at) <= Date.now() + 300_000);
      assert.equal(Number(checks[0].scheduled_at), Number(checkJob.run_at));
      // The list shows the queued check.
      const list = await api.call('GET', '/v1/deploys', { key: o.apiKey, query: { workspace_id: o.workspaceId, limit: 1 } });
      assert.equal(list.body.data[0].id, res.body.id);
      assert.equal(list.body.data[0].siteCheck.id, checks[0].id);
      assert.equal(list.body.data[0].siteCheck.state, 'queued');
      assert.equal(list.body.data[0].siteCheck.trigger, 'deploy');
    });

    it('a future deployedAt schedules from deployedAt; moving it moves the same check and job; unchanged re-posts queue nothing', async () => {
      const s = sha();
      const at = new Date(Date.now() + 3600_000);
      const res = await post({ commitSha: s, workspaceId: o.workspaceId, deployedAt: at.toISOString() });
      const first = await jobsFor(res.body.id);
      assert.equal(Number(first.jobs.find((j) => j.kind === 'site_check')!.run_at), at.getTime() + 120_000);

      await post({ commitSha: s, workspaceId: o.workspaceId, deployedAt: at.toISOString(), message: 'same time' });
      const same = await jobsFor(res.body.id);
      assert.deepEqual(same, first);

      const later = new Date(at.getTime() + 600_000);
      await post({ commitSha: s, workspaceId: o.workspaceId, deployedAt: later.toISOString() });
      const moved = await jobsFor(res.body.id);
      assert.equal(moved.checks.length, 1);
      assert.equal(moved.checks[0].id, first.checks[0].id);
      assert.equal(moved.jobs.length, 2);
      assert.equal(Number(moved.jobs.find((j) => j.kind === 'site_check')!.run_at), later.getTime() + 120_000);
      assert.equal(Number(moved.jobs.find((j) => j.kind === 'site_crawl')!.run_at), later.getTime() + 300_000);
      assert.equal(Number(moved.checks[0].scheduled_at), later.getTime() + 120_000);

      // Moved into the past: scheduled from now.
      const beforeMove = Date.now();
      await post({ commitSha: s, workspaceId: o.workspaceId, deployedAt: '2020-01-01T00:00:00Z' });
      const past = await jobsFor(res.body.id);
      const run = Number(past.jobs.find((j) => j.kind === 'site_check')!.run_at);
      assert.ok(run >= beforeMove + 120_000 && run <= Date.now() + 120_000);
    });

    it('non-production deploys queue nothing; environment is compared exactly', async () => {
      for (const environment of ['staging', 'Production', 'PRODUCTION']) {
        const res = await post({ commitSha: sha(), workspaceId: o.workspaceId, environment });
        const { checks, crawls, jobs } = await jobsFor(res.body.id);
        assert.equal(checks.length + crawls.length + jobs.length, 0, environment);
      }
    });

    it('workspaceId: required for an unbound key, implied by a bound key, 404 when it names another workspace', async () => {
      const missing = await post({ commitSha: sha() });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.errors[0].path, '/workspaceId');
      const bound = await api.key(o.userId, { scopes: ['deploys'], workspaceId: o.workspaceId });
      const implied = await post({ commitSha: sha() }, bound.apiKey);
      assert.equal(implied.status, 201);
      assert.equal(implied.body.workspaceId, o.workspaceId);
      const other = await api.owner();
      const foreign = await post({ commitSha: sha(), workspaceId: other.workspaceId }, bound.apiKey);
      assert.equal(foreign.status, 404);
      const foreignUnbound = await post({ commitSha: sha(), workspaceId: other.workspaceId });
      assert.equal(foreignUnbound.status, 404);
      assert.equal(foreignUnbound.body.code, 'not_found');
    });

    it('a viewer gets 403 forbidden; a member may record', async () => {
      const viewer = await api.user({ accountId: o.accountId });
      await api.member(o.workspaceId, viewer.userId, 'viewer');
      const vk = await api.key(viewer.userId, { scopes: ['deploys', 'search'] });
      const res = await post({ commitSha: sha(), workspaceId: o.workspaceId }, vk.apiKey);
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'forbidden');
      assert.equal((await api.call('GET', '/v1/deploys', { key: vk.apiKey, query: { workspace_id: o.workspaceId } })).status, 200);
      await api.member(o.workspaceId, viewer.userId, 'member');
      const mk = await api.key(viewer.userId, { scopes: ['deploys'] });
      assert.equal((await post({ commitSha: sha(), workspaceId: o.workspaceId }, mk.apiKey)).status, 201);
    });

    it('a deploys-only key cannot read deploys back', async () => {
      const k = await api.key(o.userId, { scopes: ['deploys'] });
      const created = await post({ commitSha: sha(), workspaceId: o.workspaceId }, k.apiKey);
      const list = await api.call('GET', '/v1/deploys', { key: k.apiKey, query: { workspace_id: o.workspaceId } });
      assert.equal(list.status, 403);
      assert.equal(list.body.code, 'insufficient_scope');
      const one = await api.call('GET', `/v1/deploys/${created.body.id}`, { key: k.apiKey });
      assert.equal(one.status, 403);
    });

    it('lists newest first with from/to (inclusive UTC dates) and limit', async () => {
      const w = await api.owner();
      const days = ['2026-01-01T23:59:59.999Z', '2026-01-02T00:00:00.000Z', '2026-01-02T12:00:00.000Z', '2026-01-03T00:00:00.000Z', '2026-01-04T08:00:00+09:00'];
      const ids: string[] = [];
      for (const deployedAt of days) ids.push((await post({ commitSha: sha(), workspaceId: w.workspaceId, deployedAt, environment: 'staging' }, w.apiKey)).body.id);
      // Same deployedAt twice: ordered by id descending.
      const tieA = (await post({ commitSha: sha(), workspaceId: w.workspaceId, deployedAt: '2026-01-02T12:00:00Z', environment: 'staging' }, w.apiKey)).body.id;
      const q = (query: Record<string, string | number>) => api.call('GET', '/v1/deploys', { key: w.apiKey, query: { workspace_id: w.workspaceId, ...query } });
      const all = await q({});
      // 2026-01-04T08:00+09:00 is the newest (23:00Z on the 3rd); equal times order by id, newest id first.
      assert.deepEqual(all.body.data.map((d: { id: string }) => d.id), [ids[4], ids[3], tieA, ids[2], ids[1], ids[0]]);
      assert.equal(all.body.data.length, 6);
      assert.ok(all.body.data.every((d: { siteCheck: unknown }) => d.siteCheck === null));
      const day2 = await q({ from: '2026-01-02', to: '2026-01-02' });
      assert.deepEqual(new Set(day2.body.data.map((d: { id: string }) => d.id)), new Set([ids[1], ids[2], tieA]));
      // 2026-01-04T08:00+09:00 is 2026-01-03T23:00Z: UTC dates decide.
      const day3 = await q({ from: '2026-01-03' });
      assert.deepEqual(new Set(day3.body.data.map((d: { id: string }) => d.id)), new Set([ids[3], ids[4]]));
      const upTo1 = await q({ to: '2026-01-01' });
      assert.deepEqual(upTo1.body.data.map((d: { id: string }) => d.id), [ids[0]]);
      assert.equal((await q({ limit: 2 })).body.data.length, 2);
      assert.equal((await q({ limit: 100 })).status, 200);
      for (const bad of [{ limit: 0 } as Record<string, string | number>, { limit: 101 }, { limit: 'x' }, { from: '2026-1-1' }, { to: 'tomorrow' }, { from: '2026-01-03', to: '2026-01-02' }]) {
        const r = await q(bad);
        assert.equal(r.status, 400, JSON.stringify(bad));
        assert.equal(r.body.errors[0].in, 'query');
      }
      const noWs = await api.call('GET', '/v1/deploys', { key: w.apiKey });
      assert.equal(noWs.status, 400);
      assert.equal(noWs.body.errors[0].path, '/workspace_id');
    });

    it('reads one deploy with its check, baseline, findings, crawl and impact; 404 for another workspace', async () => {
      const res = await post({ commitSha: sha(), workspaceId: o.workspaceId, changes: [{ path: 'a', category: 'page' }] });
      const one = await api.call('GET', `/v1/deploys/${res.body.id}`, { key: o.apiKey });
      assert.equal(one.status, 200);
      assert.equal(one.body.id, res.body.id);
      assert.equal(one.body.siteCheck.state, 'queued');
      assert.equal(one.body.siteCrawl.state, 'queued');
      assert.equal(one.body.siteCrawl.pagesCrawled, 0);
      assert.equal(one.body.baseline, null);
      assert.deepEqual(one.body.findings, []);
      assert.deepEqual(one.body.crawlFindings, []);
      assert.equal(one.body.impact, null);

      const stranger = await api.owner();
      const hidden = await api.call('GET', `/v1/deploys/${res.body.id}`, { key: stranger.apiKey });
      assert.equal(hidden.status, 404);
      assert.equal(hidden.body.code, 'not_found');
      const listOther = await api.call('GET', '/v1/deploys', { key: stranger.apiKey, query: { workspace_id: o.workspaceId } });
      assert.equal(listOther.status, 404);
      const missing = await api.call('GET', '/v1/deploys/0193a4e2-7c1f-7b3a-9a52-3f0c1d2e4b5a', { key: o.apiKey });
      assert.equal(missing.status, 404);
      const malformed = await api.call('GET', '/v1/deploys/nope', { key: o.apiKey });
      assert.equal(malformed.status, 404);
    });
  });
}
