import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { writeRequestLogs, RequestLogWriter, logWindow, type RequestLogInput, type RequestLogRow } from '../core/request-logs/index.ts';
import { applyRetention, createDb, DAY_MS, HOUR_MS, isPostgres, withTransaction } from '../core/db/index.ts';
import { retentionRules } from '../worker/retention.ts';
import { Conflict, createLogger, loadConfig } from '../core/platform/index.ts';
import { createApp } from '../server/app.ts';
import { handlers } from '../server/handlers/index.ts';
import type { HandlerMap } from '../server/handler-types.ts';

after(dropCreatedDatabases);

const ROUTES = ['/v1/workspaces/{id}', '/v1/deploys', '/v1/deploys/{id}', '/v1/webhooks/{id}/test', null] as const;
const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
const STATUSES = [200, 200, 201, 204, 400, 403, 404, 409, 500] as const;
const MESSAGES = [
  'The slug acme-shop is taken.',
  'Upstream TIMEOUT after 10 s',
  'body /commitSha has an invalid format',
  'Only 100% of 5_000 allowed',
  'Not found',
] as const;

/** Deterministic pseudo-random numbers (mulberry32), so a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function seedEntries(workspaceId: string, n: number, now: number, seed: number, spanMs = 35 * DAY_MS): RequestLogInput[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const out: RequestLogInput[] = [];
  for (let i = 0; i < n; i++) {
    const statusCode = pick(STATUSES);
    const route = pick(ROUTES);
    const id = crypto.randomUUID();
    // A few share one millisecond, so the (created_at, id) tiebreak is exercised.
    const createdAt = i % 10 === 0 && out.length ? out[out.length - 1].createdAt : now - Math.floor(r() * spanMs);
    out.push({
      workspaceId,
      method: pick(METHODS),
      path: route ? route.replace('{id}', id) : `/v1/nothing-${i}`,
      route,
      statusCode,
      durationMs: Math.floor(r() * 900),
      errorMessage: statusCode >= 400 ? pick(MESSAGES) : null,
      apiKeyId: null,
      createdAt,
    });
  }
  return out;
}

interface Filters {
  days?: number;
  status?: 'success' | 'failed';
  method?: string;
  status_code?: number;
  route?: string;
  q?: string;
  limit?: number;
}

/** What GET /v1/logs must answer, computed naively over every stored row of the workspace. */
function bruteForce(rows: RequestLogRow[], f: Filters, window: { start: number; end: number; bucketMs: number }) {
  const needle = f.q?.toLowerCase();
  const match = rows.filter(
    (r) =>
      r.created_at >= window.start &&
      r.created_at < window.end &&
      (f.status !== 'success' || r.status_code < 400) &&
      (f.status !== 'failed' || r.status_code >= 400) &&
      (f.method === undefined || r.method === f.method) &&
      (f.status_code === undefined || r.status_code === f.status_code) &&
      (f.route === undefined || r.route === f.route) &&
      (needle === undefined || r.path.toLowerCase().includes(needle) || (r.error_message ?? '').toLowerCase().includes(needle)),
  );
  match.sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const n = Math.round((window.end - window.start) / window.bucketMs);
  const buckets = Array.from({ length: n }, (_, i) => ({ start: new Date(window.start + i * window.bucketMs).toISOString(), total: 0, errors: 0 }));
  for (const r of match) {
    const b = buckets[Math.floor((r.created_at - window.start) / window.bucketMs)];
    b.total += 1;
    if (r.status_code >= 400) b.errors += 1;
  }
  return { match, total: match.length, errors: match.filter((r) => r.status_code >= 400).length, buckets };
}

async function storedRows(api: TestApi, workspaceId: string): Promise<RequestLogRow[]> {
  const rows = (await api.db('request_logs').where({ workspace_id: workspaceId })) as RequestLogRow[];
  return rows.map((r) => ({ ...r, created_at: Number(r.created_at), status_code: Number(r.status_code) }));
}

for (const engine of engines()) {
  describe(`request logs (${engine})`, () => {
    let api: TestApi;
    before(async () => {
      api = await TestApi.start(engine);
    });
    after(async () => {
      await api.stop();
    });

    async function logs(key: string, query: Record<string, string | number | undefined>) {
      return api.call('GET', '/v1/logs', { key, query });
    }

    it('logs requests with their route pattern, status, duration, key and error message; failures included', async () => {
      const o = await api.owner();
      const viewer = await api.user({ accountId: o.accountId });
      await api.member(o.workspaceId, viewer.userId, 'viewer');
      const viewerKey = await api.key(viewer.userId);
      const bound = await api.key(o.userId, { workspaceId: o.workspaceId });

      assert.equal((await api.call('GET', `/v1/workspaces/${o.workspaceId}`, { key: o.apiKey })).status, 200);
      const bad = await api.call('PUT', `/v1/workspaces/${o.workspaceId}`, { key: o.apiKey, body: { name: '' } });
      assert.equal(bad.status, 400);
      const denied = await api.call('PUT', `/v1/workspaces/${o.workspaceId}`, { key: viewerKey.apiKey, body: { name: 'x' } });
      assert.equal(denied.status, 403);
      const missing = await api.call('GET', `/v1/workspaces/${crypto.randomUUID()}`, { key: bound.apiKey });
      assert.equal(missing.status, 404);
      // Failures before the handler ran are logged under the workspace the path or query names.
      const noScope = await api.key(o.userId, { scopes: ['deploys'] });
      const scope = await api.call('GET', `/v1/workspaces/${o.workspaceId}`, { key: noScope.apiKey });
      assert.equal(scope.status, 403);
      const range = await api.call('GET', '/v1/deploys', { key: o.apiKey, query: { workspace_id: o.workspaceId, limit: 0 } });
      assert.equal(range.status, 400);
      // Someone else's workspace is not "known": not logged there.
      const other = await api.owner();
      assert.equal((await api.call('GET', `/v1/workspaces/${other.workspaceId}`, { key: o.apiKey })).status, 404);
      assert.equal((await api.call('PUT', `/v1/workspaces/${other.workspaceId}`, { key: o.apiKey, body: { name: '' } })).status, 400);
      // 401s are not tied to a workspace; reads of /v1/logs are not logged.
      assert.equal((await api.call('GET', `/v1/workspaces/${o.workspaceId}`, { key: 'sh_nope' })).status, 401);
      assert.equal((await logs(o.apiKey, { workspace_id: o.workspaceId })).status, 200);
      await api.flushLogs();

      const res = await logs(o.apiKey, { workspace_id: o.workspaceId });
      assert.equal(res.status, 200);
      const rows = res.body.data as Array<Record<string, any>>;
      assert.deepEqual(
        rows.map((r) => [r.method, r.route, r.status_code]),
        [
          ['GET', '/v1/deploys', 400],
          ['GET', '/v1/workspaces/{id}', 403],
          ['GET', '/v1/workspaces/{id}', 404],
          ['PUT', '/v1/workspaces/{id}', 403],
          ['PUT', '/v1/workspaces/{id}', 400],
          ['GET', '/v1/workspaces/{id}', 200],
        ],
      );
      const [rRange, rScope, r404, r403, r400, r200] = rows;
      assert.equal(rRange.error_message, range.body.detail);
      assert.equal(rScope.error_message, scope.body.detail);
      assert.equal(rScope.api_key_id, noScope.id);
      assert.equal((await storedRows(api, other.workspaceId)).length, 0);
      assert.equal(r200.error_message, null);
      assert.equal(r200.path, `/v1/workspaces/${o.workspaceId}`);
      assert.equal(r200.api_key_id, o.keyId);
      assert.equal(r200.workspace_id, o.workspaceId);
      assert.ok(Number.isInteger(r200.duration_ms) && r200.duration_ms >= 0);
      assert.equal(r400.error_message, bad.body.detail);
      assert.match(r400.error_message, /name/);
      assert.equal(r403.error_message, denied.body.detail);
      assert.equal(r403.api_key_id, viewerKey.id);
      assert.equal(r404.error_message, missing.body.detail);
      assert.equal(r404.api_key_id, bound.id);
      assert.equal(res.body.meta.total, 6);
      assert.equal(res.body.meta.errors, 5);

      // POST /v1/workspaces is logged under the workspace it created.
      const created = await api.call('POST', '/v1/workspaces', { key: o.apiKey, body: { name: `Logged ${crypto.randomUUID()}`, website: 'https://a.example' } });
      assert.equal(created.status, 201);
      await api.flushLogs();
      const own = await logs(o.apiKey, { workspace_id: created.body.data.id });
      assert.deepEqual(own.body.data.map((r: any) => [r.method, r.route, r.status_code]), [['POST', '/v1/workspaces', 201]]);
    });

    it('logs a 409 with its message', async () => {
      // No operation answers 409 for a known workspace yet (webhook_paused arrives with the
      // webhooks handlers), so this runs the real app and writer with one handler that does.
      const o = await api.owner();
      const writer = new RequestLogWriter(api.db);
      const stub: HandlerMap['Workspaces_update'] = async ({ access, path }) => {
        await access.workspace(path.id, 'admin');
        throw new Conflict('webhook_paused', 'The webhook is paused; enable it before redelivering.');
      };
      const app = createApp({
        db: api.db,
        config: loadConfig({ ...process.env, DATABASE_URL: api.dbUrl }),
        log: createLogger('test', 'silent'),
        handlers: { ...handlers, Workspaces_update: stub } as HandlerMap,
        requestLog: writer,
      });
      const server = http.createServer(app.callback());
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      const { port } = server.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${port}/v1/workspaces/${o.workspaceId}`, {
        method: 'PUT',
        headers: { 'x-api-key': o.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'x' }),
      });
      assert.equal(res.status, 409);
      await new Promise<void>((r) => server.close(() => r()));
      await writer.close();
      const list = await logs(o.apiKey, { workspace_id: o.workspaceId, status_code: 409 });
      assert.equal(list.body.data.length, 1);
      assert.equal(list.body.data[0].error_message, 'The webhook is paused; enable it before redelivering.');
      assert.equal(list.body.data[0].route, '/v1/workspaces/{id}');
    });

    it('keeps entries while the database cannot take them and writes them, once, when it can', async () => {
      // Found by the soak (bench/soak.ts): a batch written while PostgreSQL restarted was
      // tried twice at once and dropped.
      const o = await api.owner();
      // The writer's handle gives up on a held lock after 100 ms, as it does on a database that restarts.
      const db = createDb(api.dbUrl, { busyWaitMs: 100 });
      const writer = new RequestLogWriter(db, { flushIntervalMs: 50 });
      const holder = createDb(api.dbUrl);
      const entries = seedEntries(o.workspaceId, 5, Date.now(), 7, HOUR_MS);
      try {
        // PostgreSQL: the workspace row locked FOR UPDATE (the batch takes KEY SHARE on it);
        // SQLite: the write lock, which the transaction holds from its start.
        await withTransaction(holder, async (trx) => {
          const q = trx('workspaces').where({ id: o.workspaceId }).first('id');
          if (isPostgres(trx)) q.forUpdate();
          await q;
          for (const e of entries) writer.record(e);
          await new Promise((r) => setTimeout(r, 600));
          assert.equal((await storedRows(api, o.workspaceId)).length, 0);
        });
        await writer.flush();
        assert.equal(writer.dropped, 0);
        assert.equal((await storedRows(api, o.workspaceId)).length, 5);
        // An entry whose earlier commit landed unseen (its id is stored) is not written twice.
        const [again] = await writeRequestLogs(db, seedEntries(o.workspaceId, 1, Date.now(), 8, HOUR_MS));
        writer.record({ ...entries[0], id: again.id });
        writer.record(seedEntries(o.workspaceId, 1, Date.now(), 9, HOUR_MS)[0]);
        await writer.close();
        assert.equal(writer.dropped, 0);
        const rows = await storedRows(api, o.workspaceId);
        assert.equal(rows.length, 7);
        assert.equal(new Set(rows.map((r) => r.id)).size, 7);
      } finally {
        await holder.destroy();
        await db.destroy();
      }
    });

    it('writes batches within a second without an explicit flush', async () => {
      const o = await api.owner();
      await api.call('GET', `/v1/workspaces/${o.workspaceId}`, { key: o.apiKey });
      const started = Date.now();
      let n = 0;
      while (Date.now() - started < 3000) {
        n = (await storedRows(api, o.workspaceId)).length;
        if (n > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(n, 1);
      assert.ok(Date.now() - started < 2000, `written after ${Date.now() - started} ms`);
    });

    it('never stores an API key or a secret', async () => {
      const o = await api.owner();
      const bound = await api.key(o.userId, { workspaceId: o.workspaceId });
      const secret = 'whsec_' + crypto.randomBytes(32).toString('base64');
      await api.call('GET', `/v1/workspaces/${bound.apiKey}`, { key: bound.apiKey });
      await api.call('GET', `/v1/workspaces/${o.apiKey.replace('_', '%5F')}`, { key: bound.apiKey });
      await api.call('GET', `/v1/workspaces/${o.workspaceId}`, { key: o.apiKey, query: { api_key: o.apiKey } });
      await api.call('PUT', `/v1/workspaces/${o.workspaceId}`, { key: o.apiKey, body: { secret, description: o.apiKey, name: '' } });
      await api.call('PUT', `/v1/workspaces/${o.workspaceId}`, { key: o.apiKey, body: { description: `${o.apiKey} ${secret}` } });
      await api.call('GET', `/v1/webhooks/${encodeURIComponent(secret)}`, { key: bound.apiKey });
      await api.flushLogs();
      const rows = await storedRows(api, o.workspaceId);
      assert.ok(rows.length >= 6, `${rows.length} rows: ${JSON.stringify(rows.map((r) => [r.method, r.path, r.status_code]))}`);
      const text = JSON.stringify(rows);
      const encoded = encodeURIComponent(secret);
      for (const s of [o.apiKey, bound.apiKey, secret, secret.slice(6, 30), encoded.slice(6, 30), o.apiKey.slice(3, 20), bound.apiKey.slice(3, 20)]) {
        assert.ok(!text.includes(s), `stored logs contain ${s.slice(0, 8)}...`);
      }
      assert.ok(text.includes('sh_[REDACTED]'));
    });

    it('checks every query bound (400, never clamped)', async () => {
      const o = await api.owner();
      const base = { workspace_id: o.workspaceId };
      for (const bad of [
        { days: 0 },
        { days: 31 },
        { days: 'x' },
        { limit: 0 },
        { limit: 201 },
        { status: 'ok' },
        { method: 'HEAD' },
        { status_code: 99 },
        { status_code: 600 },
        { route: '' },
        { route: 'x'.repeat(256) },
        { q: '' },
        { q: 'x'.repeat(201) },
        { before: 'not-a-uuid' },
        { before: crypto.randomUUID() }, // a v4 id is no log row
        { cursor: 'not-a-cursor' },
        { cursor: '' },
        { before: '01900000-0000-7000-8000-000000000001', cursor: Buffer.from(`1.${crypto.randomUUID()}`).toString('base64url') },
        { workspace_id: 'nope' },
        { unknown: 1 },
      ] as Array<Record<string, string | number>>) {
        const res = await logs(o.apiKey, { ...base, ...bad });
        assert.equal(res.status, 400, JSON.stringify(bad));
        assert.equal(res.body.code, 'validation_failed');
      }
      const missing = await api.call('GET', '/v1/logs', { key: o.apiKey });
      assert.equal(missing.status, 400);
      for (const ok of [{ days: 1 }, { days: 30 }, { limit: 1 }, { limit: 200 }, { status_code: 100 }, { status_code: 599 }, { q: 'x'.repeat(200) }]) {
        assert.equal((await logs(o.apiKey, { ...base, ...ok })).status, 200, JSON.stringify(ok));
      }
    });

    it('needs the workspaces scope and keeps workspaces apart', async () => {
      const a = await api.owner();
      const b = await api.owner();
      await writeRequestLogs(api.db, seedEntries(a.workspaceId, 20, Date.now(), 1, DAY_MS));
      await writeRequestLogs(api.db, seedEntries(b.workspaceId, 5, Date.now(), 2, DAY_MS));
      const noScope = await api.key(a.userId, { scopes: ['deploys', 'search', 'webhooks'] });
      const res = await logs(noScope.apiKey, { workspace_id: a.workspaceId });
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'insufficient_scope');
      // Another account's workspace is 404, as for one that does not exist.
      assert.equal((await logs(a.apiKey, { workspace_id: b.workspaceId })).status, 404);
      assert.equal((await logs(a.apiKey, { workspace_id: crypto.randomUUID() })).status, 404);
      // A key bound to one workspace sees only that one.
      const second = await api.workspace(a);
      const bound = await api.key(a.userId, { workspaceId: second });
      assert.equal((await logs(bound.apiKey, { workspace_id: a.workspaceId })).status, 404);
      assert.equal((await logs(bound.apiKey, { workspace_id: second })).status, 200);
      const own = await logs(a.apiKey, { workspace_id: a.workspaceId, limit: 200 });
      assert.equal(own.body.data.length, 20);
      assert.ok(own.body.data.every((r: any) => r.workspace_id === a.workspaceId));
      assert.equal(own.body.meta.total, 20);
      // A `before` id of another workspace's row reveals nothing: it is only a position in time.
      const bRow = (await storedRows(api, b.workspaceId))[0];
      assert.equal((await logs(a.apiKey, { workspace_id: a.workspaceId, before: bRow.id })).status, 200);
      // A viewer may read.
      const viewer = await api.user({ accountId: a.accountId });
      await api.member(a.workspaceId, viewer.userId, 'viewer');
      const vk = await api.key(viewer.userId);
      assert.equal((await logs(vk.apiKey, { workspace_id: a.workspaceId })).body.data.length, 20);
    });

    describe('filters and meta against a brute-force count', () => {
      let o: Awaited<ReturnType<TestApi['owner']>>;
      let rows: RequestLogRow[];
      before(async () => {
        o = await api.owner();
        await writeRequestLogs(api.db, seedEntries(o.workspaceId, 2500, Date.now(), 42));
        // Rows in the current hour, for days=1.
        await writeRequestLogs(api.db, seedEntries(o.workspaceId, 100, Date.now(), 43, HOUR_MS / 2));
        rows = await storedRows(api, o.workspaceId);
        assert.equal(rows.length, 2600);
      });

      const cases: Filters[] = [
        {},
        { days: 1 },
        { days: 2 },
        { days: 30 },
        { status: 'success' },
        { status: 'failed' },
        { method: 'POST' },
        { status_code: 404 },
        { status_code: 200 },
        { route: '/v1/deploys/{id}' },
        { route: '/v1/nope' },
        { q: 'timeout' },
        { q: 'DEPLOYS/' },
        { q: '%' },
        { q: '_' },
        { q: '100% of 5_' },
        { q: 'nothing-1' },
        { days: 30, status: 'failed', method: 'PUT' },
        { days: 1, status: 'success', route: '/v1/workspaces/{id}' },
        { status: 'failed', route: '/v1/workspaces/{id}', q: 'slug' },
        { method: 'GET', status_code: 200, days: 3 },
        { status: 'success', status_code: 404 },
        { days: 14, status: 'failed', method: 'DELETE', status_code: 409, route: '/v1/deploys' },
        { days: 30, method: 'DELETE', q: 'not found', status_code: 500, limit: 3 },
        { days: 30, status: 'failed', limit: 200 },
        { days: 30, limit: 1 },
      ];

      for (const f of cases) {
        it(`meta and first page equal the brute force for ${JSON.stringify(f)}`, async () => {
          const t0 = Date.now();
          const res = await logs(o.apiKey, { workspace_id: o.workspaceId, ...f });
          const t1 = Date.now();
          assert.equal(res.status, 200);
          const days = f.days ?? 7;
          const bucketMs = days === 1 ? HOUR_MS : DAY_MS;
          const buckets = res.body.meta.buckets as Array<{ start: string }>;
          assert.equal(buckets.length, days === 1 ? 24 : days);
          const start = Date.parse(buckets[0].start);
          const window = { start, end: start + buckets.length * bucketMs, bucketMs };
          // The window is the one of the moment of the request.
          assert.ok([logWindow(t0, days).start, logWindow(t1, days).start].includes(start));
          // Its last bucket holds now.
          assert.ok(window.end > t0 && window.end - bucketMs <= t1);
          const want = bruteForce(rows, f, window);
          const limit = f.limit ?? 50;
          assert.deepEqual(res.body.meta, {
            total: want.total,
            errors: want.errors,
            buckets: want.buckets,
            has_more: want.total > limit,
            next_cursor: want.total > limit ? res.body.meta.next_cursor : null,
          });
          if (want.total > limit) assert.equal(typeof res.body.meta.next_cursor, 'string');
          assert.deepEqual(
            res.body.data.map((r: any) => r.id),
            want.match.slice(0, limit).map((r) => r.id),
          );
        });
      }

      it('takes meta from the rollups unless q is given (cost independent of the rows in the window)', async () => {
        const sqlOf = async (query: Record<string, string | number>) => {
          const seen: string[] = [];
          const listener = (q: { sql: string }) => seen.push(q.sql.toLowerCase());
          api.db.on('query', listener);
          try {
            assert.equal((await logs(o.apiKey, { workspace_id: o.workspaceId, ...query })).status, 200);
          } finally {
            api.db.off('query', listener);
          }
          const fromLogs = seen.filter((q) => /from [`"]?request_logs[`"]?(\s|$)/.test(q));
          return {
            // Every read of request_logs is the page (a LIMIT) or the `before` lookup (by id).
            rowScans: fromLogs.filter((q) => !q.includes('limit')).length,
            hourly: seen.filter((q) => q.includes('request_log_hourly')).length,
            rollups: seen.filter((q) => q.includes('request_log_rollups')).length,
          };
        };
        assert.deepEqual(await sqlOf({ days: 30 }), { rowScans: 0, hourly: 1, rollups: 0 });
        assert.deepEqual(await sqlOf({ days: 1, status: 'failed' }), { rowScans: 0, hourly: 1, rollups: 0 });
        assert.deepEqual(await sqlOf({ days: 30, method: 'GET', status_code: 404, route: '/v1/deploys' }), { rowScans: 0, hourly: 0, rollups: 1 });
        assert.deepEqual(await sqlOf({ days: 30, q: 'timeout' }), { rowScans: 1, hourly: 0, rollups: 0 });
      });

      it('includes empty buckets and aligns them to UTC hours and days', async () => {
        const res = await logs(o.apiKey, { workspace_id: o.workspaceId, days: 1, route: '/v1/nope' });
        assert.equal(res.body.meta.total, 0);
        assert.equal(res.body.meta.buckets.length, 24);
        for (const b of res.body.meta.buckets) {
          assert.equal(Date.parse(b.start) % HOUR_MS, 0);
          assert.deepEqual([b.total, b.errors], [0, 0]);
        }
        const daily = await logs(o.apiKey, { workspace_id: o.workspaceId, days: 5 });
        for (const b of daily.body.meta.buckets) assert.match(b.start, /T00:00:00\.000Z$/);
        assert.equal(Date.parse(daily.body.meta.buckets[4].start), Math.floor(Date.now() / DAY_MS) * DAY_MS);
      });
    });

    for (const how of ['before', 'cursor'] as const) it(`pages with \`${how}\` without missing or repeating a row while rows are added`, async () => {
      const o = await api.owner();
      const now = Date.now();
      const original = seedEntries(o.workspaceId, 60, now - 1000, 7, 5 * DAY_MS);
      await writeRequestLogs(api.db, original);
      const originalIds = new Set((await storedRows(api, o.workspaceId)).map((r) => r.id));
      const seen: string[] = [];
      let before: string | undefined;
      let next: string | undefined;
      let added = 0;
      const olderAdded: string[] = [];
      for (let page = 0; page < 50; page++) {
        const res = await logs(o.apiKey, { workspace_id: o.workspaceId, limit: 7, ...(how === 'before' ? { before } : { cursor: next }) });
        assert.equal(res.status, 200);
        const ids = res.body.data.map((r: any) => r.id) as string[];
        seen.push(...ids);
        // Every page's meta counts the whole window, not the page.
        assert.equal(res.body.meta.total, originalIds.size + added);
        assert.equal(res.body.meta.next_cursor === null, !res.body.meta.has_more);
        if (!res.body.meta.has_more) break;
        assert.equal(ids.length, 7);
        before = ids[ids.length - 1];
        next = res.body.meta.next_cursor;
        // Between page reads: newer requests arrive, and one row older than the cursor.
        const last = res.body.data[res.body.data.length - 1];
        const written = await writeRequestLogs(api.db, [
          ...seedEntries(o.workspaceId, 2, Date.now(), 100 + page, 1),
          { ...seedEntries(o.workspaceId, 1, Date.parse(last.created_at) - 60_000, 200 + page, 1)[0] },
        ]);
        olderAdded.push(written[2].id);
        added += 3;
      }
      assert.equal(new Set(seen).size, seen.length, 'no row repeated');
      for (const id of originalIds) assert.ok(seen.includes(id), `row ${id} missed`);
      for (const id of olderAdded) assert.ok(seen.includes(id), `older row ${id} missed`);
      // And the order is newest first throughout.
      const stored = new Map((await storedRows(api, o.workspaceId)).map((r) => [r.id, r]));
      for (let i = 1; i < seen.length; i++) {
        const a = stored.get(seen[i - 1])!;
        const b = stored.get(seen[i])!;
        assert.ok(a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id));
      }
    });

    it('keeps logs 30 days; the rollups follow, and meta still matches the rows', async () => {
      const o = await api.owner();
      const now = Date.now();
      await writeRequestLogs(api.db, [
        ...seedEntries(o.workspaceId, 30, now - 40 * DAY_MS, 9, 5 * DAY_MS),
        ...seedEntries(o.workspaceId, 30, now, 10, 20 * DAY_MS),
      ]);
      await applyRetention(api.db, { now, rules: retentionRules.filter((r) => r.table.startsWith('request_log')) });
      const rows = await storedRows(api, o.workspaceId);
      assert.equal(rows.length, 30);
      assert.ok(rows.every((r) => r.created_at >= now - 30 * DAY_MS));
      for (const table of ['request_log_hourly', 'request_log_rollups']) {
        const old = await api.db(table).where({ workspace_id: o.workspaceId }).where('hour_start', '<', now - 30 * DAY_MS - HOUR_MS);
        assert.equal(old.length, 0, table);
        const kept = await api.db(table).where({ workspace_id: o.workspaceId }).sum({ n: 'total' }).first();
        assert.ok(Number(kept!.n) >= 30, table);
      }
      const res = await logs(o.apiKey, { workspace_id: o.workspaceId, days: 30 });
      assert.equal(res.body.meta.total, 30);
    });

    it('drops the logs of a deleted workspace with it', async () => {
      const o = await api.owner();
      const ws = await api.workspace(o);
      await writeRequestLogs(api.db, seedEntries(ws, 10, Date.now(), 11, DAY_MS));
      assert.equal((await api.call('DELETE', `/v1/workspaces/${ws}`, { key: o.apiKey })).status, 204);
      await api.flushLogs();
      assert.equal((await storedRows(api, ws)).length, 0);
      assert.equal((await api.db('request_log_rollups').where({ workspace_id: ws })).length, 0);
      assert.equal((await api.db('request_log_hourly').where({ workspace_id: ws })).length, 0);
      // A batch that still names it (the DELETE itself) is written without it, not lost entirely.
      const kept = await writeRequestLogs(api.db, [...seedEntries(ws, 2, Date.now(), 12, 1), ...seedEntries(o.workspaceId, 1, Date.now(), 13, 1)]);
      assert.deepEqual(kept.map((r) => r.workspace_id), [o.workspaceId]);
    });
  });
}
