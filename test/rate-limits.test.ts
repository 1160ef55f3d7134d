// Per-key rate limits: the headers on every authenticated answer, 429 past the limit with nothing
// changed, and one limit enforced by two API server processes on one database.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { engines, dropCreatedDatabases, freshDatabaseUrl } from './support/databases.ts';
import { killAll, runCli, startServerProcess, type ServerProc } from './support/processes.ts';
import { checkedFetch } from './support/contract.ts';
import { ALL_SCOPES, TestApi } from './support/api.ts';
import { nowMs, setClockOffset } from '../core/platform/index.ts';
import { createDb, type Db } from '../core/db/index.ts';
import { createApiKey } from '../core/access/index.ts';

after(async () => {
  setClockOffset(0);
  await killAll();
  await dropCreatedDatabases();
});

/**
 * Counts are per clock minute: a test on the in-process server starts a second into a minute,
 * so it cannot straddle two. The clock moves forward to there (core/platform's test hook) instead
 * of the test waiting for it; the minutes of earlier tests are then over, as they would be.
 */
function startOfAMinute(): void {
  setClockOffset(0);
  const into = nowMs() % 60_000;
  setClockOffset(60_000 - into + 1000);
}

/**
 * Processes have their own clocks: `attempt` runs until one run stays within one clock minute, and
 * only that run is judged (a run that straddles two minutes is counted against two limits). It
 * must not assert what a straddle changes.
 */
async function withinOneMinute<T>(attempt: () => Promise<T>): Promise<T> {
  for (let run = 1; ; run++) {
    const minute = Math.floor(Date.now() / 60_000);
    const result = await attempt();
    if (Math.floor(Date.now() / 60_000) === minute) return result;
    assert.ok(run < 3, 'three runs in a row straddled a minute');
  }
}

function limitHeaders(h: Headers): { limit: number; remaining: number; reset: number; policy: string | null } {
  return {
    limit: Number(h.get('ratelimit-limit')),
    remaining: Number(h.get('ratelimit-remaining')),
    reset: Number(h.get('ratelimit-reset')),
    policy: h.get('ratelimit-policy'),
  };
}

for (const engine of engines()) {
  describe(`rate limits on one server (${engine})`, () => {
    let api: TestApi;
    before(async () => {
      api = await TestApi.start(engine, { env: { RATE_LIMIT_PER_MINUTE: '5' } });
    });
    after(() => api.stop());

    it('counts down in the headers, then answers 429 with Retry-After and changes nothing', async () => {
      const o = await api.owner();
      startOfAMinute();
      const remaining: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await api.call('GET', '/v1/workspaces', { key: o.apiKey });
        assert.equal(res.status, 200);
        const h = limitHeaders(res.headers);
        assert.equal(h.limit, 5);
        assert.equal(h.policy, '5;w=60');
        assert.ok(h.reset >= 1 && h.reset <= 60, `reset ${h.reset}`);
        remaining.push(h.remaining);
      }
      assert.deepEqual(remaining, [4, 3, 2, 1]);
      // A client's mistake counts too: the limit is on requests, not on successes.
      const bad = await api.call('GET', '/v1/deploys', { key: o.apiKey, query: { workspace_id: o.workspaceId, limit: 0 } });
      assert.equal(bad.status, 400);
      assert.equal(limitHeaders(bad.headers).remaining, 0);

      const refused = await api.call('POST', '/v1/deploys', { key: o.apiKey, body: { workspaceId: o.workspaceId, commitSha: 'a'.repeat(40) } });
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get('content-type'), 'application/problem+json');
      assert.equal(refused.body.code, 'rate_limited');
      assert.equal(refused.body.status, 429);
      const h = limitHeaders(refused.headers);
      assert.equal(h.remaining, 0);
      assert.equal(h.limit, 5);
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `retry-after ${retryAfter}`);
      assert.ok(Math.abs(retryAfter - h.reset) <= 1, `retry-after ${retryAfter} vs reset ${h.reset}`);
      // Nothing was recorded.
      assert.equal(Number((await api.db('deploys').count({ n: '*' }))[0].n), 0);
      // Still refused on the next request, on a read as well.
      assert.equal((await api.call('GET', '/v1/workspaces', { key: o.apiKey })).status, 429);
    });

    it('is per key: another key of the same user is unaffected, and unknown keys are not counted', async () => {
      const o = await api.owner();
      const other = await api.key(o.userId);
      startOfAMinute();
      for (let i = 0; i < 5; i++) assert.equal((await api.call('GET', '/v1/workspaces', { key: o.apiKey })).status, 200);
      assert.equal((await api.call('GET', '/v1/workspaces', { key: o.apiKey })).status, 429);
      const res = await api.call('GET', '/v1/workspaces', { key: other.apiKey });
      assert.equal(res.status, 200);
      assert.equal(limitHeaders(res.headers).remaining, 4);
      const unknown = await api.call('GET', '/v1/workspaces', { key: 'sh_' + 'x'.repeat(40) });
      assert.equal(unknown.status, 401);
      assert.equal(unknown.headers.get('ratelimit-limit'), null);
    });

    it('answers every one of a burst of concurrent requests, exactly the limit of them 2xx', async () => {
      const o = await api.owner();
      startOfAMinute();
      const statuses = await Promise.all(Array.from({ length: 20 }, () => api.call('GET', '/v1/workspaces', { key: o.apiKey }).then((r) => r.status)));
      assert.equal(statuses.filter((s) => s === 200).length, 5, statuses.join(','));
      assert.equal(statuses.filter((s) => s === 429).length, 15, statuses.join(','));
    });
  });

  describe(`rate limits off (${engine})`, () => {
    let api: TestApi;
    before(async () => {
      api = await TestApi.start(engine, { env: { RATE_LIMIT_PER_MINUTE: '0' } });
    });
    after(() => api.stop());

    it('RATE_LIMIT_PER_MINUTE=0 sends no RateLimit headers and never 429', async () => {
      const o = await api.owner();
      for (let i = 0; i < 10; i++) {
        const res = await api.call('GET', '/v1/workspaces', { key: o.apiKey });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('ratelimit-limit'), null);
      }
    });
  });

  describe(`one limit across two API processes (${engine})`, () => {
    const LIMIT = 40;
    let url: string;
    let db: Db;
    let servers: ServerProc[];
    let owner: { userId: string; workspaceId: string; apiKey: string };
    /** A key of its own for each run: a run that straddled a minute has spent part of the next. */
    const freshKey = async (scopes: readonly string[] = ALL_SCOPES) => (await createApiKey(db, { userId: owner.userId, scopes, workspaceId: null })).apiKey;

    before(async () => {
      url = await freshDatabaseUrl(engine);
      const boot = await runCli(url, ['bootstrap', '--email', `limits-${engine}@example.com`, '--workspace-name', `Limits ${engine}`, '--website', 'https://www.example.com', '--json']);
      assert.equal(boot.code, 0, boot.stderr);
      owner = boot.json;
      db = createDb(url);
      const env = { RATE_LIMIT_PER_MINUTE: String(LIMIT) };
      servers = await Promise.all([startServerProcess(url, env), startServerProcess(url, env)]);
    });
    after(async () => {
      await db?.destroy();
    });

    it('two servers together allow exactly the limit, alternating requests', async () => {
      const byServer = await withinOneMinute(async () => {
        const key = await freshKey();
        const allowed = [0, 0];
        let refusedBoth = 0;
        for (let i = 0; i < 200 && refusedBoth < 2; i++) {
          const s = i % 2;
          const res = await checkedFetch(servers[s].url, 'GET', '/v1/workspaces', { key });
          if (res.status === 200) {
            allowed[s]++;
            refusedBoth = 0;
          } else {
            assert.equal(res.status, 429);
            assert.equal(res.body.code, 'rate_limited');
            refusedBoth++;
          }
        }
        return allowed;
      });
      assert.equal(byServer[0] + byServer[1], LIMIT, `allowed ${byServer.join(' + ')}`);
      assert.ok(byServer[0] > 0 && byServer[1] > 0, 'both servers served some');
    });

    it('concurrent bursts on both servers never pass the limit, and the count is shared', async () => {
      let run = 0;
      const { results, shas } = await withinOneMinute(async () => {
        const key = await freshKey(['deploys']);
        run++;
        const shas = Array.from({ length: 100 }, (_, i) => `${run.toString(16)}${i.toString(16).padStart(39, 'c')}`);
        const results = await Promise.all(
          shas.map((sha, i) => checkedFetch(servers[i % 2].url, 'POST', '/v1/deploys', { key, body: { workspaceId: owner.workspaceId, commitSha: sha, environment: 'staging' } })),
        );
        return { results, shas: new Set(shas) };
      });
      const created = results.filter((r) => r.status === 201);
      assert.equal(created.length, LIMIT, results.map((r) => r.status).join(','));
      assert.ok(results.every((r) => r.status === 201 || r.status === 429));
      // Exactly the acknowledged deploys exist (read with a key of its own: this one is spent).
      const list = await checkedFetch(servers[1].url, 'GET', `/v1/deploys?workspace_id=${owner.workspaceId}&limit=100`, { key: await freshKey(['search']) });
      assert.equal(list.status, 200);
      const listed = list.body.data.filter((d: { commitSha: string }) => shas.has(d.commitSha));
      assert.deepEqual(new Set(listed.map((d: { id: string }) => d.id)), new Set(created.map((r) => r.body.id)));
    });
  });
}
