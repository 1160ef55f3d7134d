// The number of SQL statements one POST /v1/deploys costs, so a later change cannot quietly add
// round trips to the write CI pipelines send most (bench:deploys measures what they cost).
// The request log's batched writes happen off the request path and are not counted (the server
// here discards them, so a batch cannot land inside a measurement), nor is a key's last-use time
// (written on its first request of a minute) or its rate-limit claim (one per up to 200
// requests): the warm-up request makes both. Concurrent requests share statements on
// PostgreSQL; a test pins that too.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createWebhook } from '../core/webhooks/index.ts';
import { keyringFor } from '../core/secrets/index.ts';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { discardRequestLog } from '../server/request-log.ts';

after(dropCreatedDatabases);

/** At most this many statements, by engine. */
const LIMITS = {
  // PostgreSQL: the key, role and workspace in one query; the deploy with its check, crawl,
  // jobs and event in one more (no BEGIN/COMMIT). An update: that statement finds the deploy,
  // then a transaction locks, reads and updates it.
  postgres: { create: 2, createWithWebhook: 2, update: 7 },
  // SQLite: the key query; BEGIN IMMEDIATE, the deploy, check, crawl, both jobs in one insert,
  // the webhook lookup, COMMIT (under load, concurrent requests share the BEGIN and COMMIT);
  // with a webhook, the event and its job. An update: BEGIN, the insert that finds the deploy,
  // its read and update, COMMIT.
  sqlite: { create: 8, createWithWebhook: 10, update: 6 },
};

for (const engine of engines()) {
  describe(`statements per POST /v1/deploys (${engine})`, () => {
    let api: TestApi;
    let o: Awaited<ReturnType<TestApi['owner']>>;
    before(async () => {
      api = await TestApi.start(engine, { requestLog: discardRequestLog });
      o = await api.owner();
      // A key's last use is written once a minute at most: let its first request do that. A
      // process reads the column types of a write plan once, on its first use (PostgreSQL): let
      // a first deploy do that.
      await api.call('GET', '/v1/workspaces', { key: o.apiKey });
      assert.equal((await api.call('POST', '/v1/deploys', { key: o.apiKey, body: { workspaceId: o.workspaceId, commitSha: crypto.randomBytes(20).toString('hex') } })).status, 201);
    });
    after(async () => {
      await api.stop();
    });

    const counted = async (body: Record<string, unknown>): Promise<{ status: number; statements: string[] }> => {
      await api.flushLogs();
      const statements: string[] = [];
      const listen = (q: { sql: string }) => statements.push(q.sql);
      api.db.on('query', listen);
      try {
        const res = await api.call('POST', '/v1/deploys', { key: o.apiKey, body });
        return { status: res.status, statements };
      } finally {
        api.db.off('query', listen);
      }
    };
    const changes = [{ path: 'src/pages/index.tsx', category: 'page', signals: [{ kind: 'title', change: 'added', line: 3 }] }];

    it('a new production deploy stays within its statement budget, and so does an update', async () => {
      const limits = LIMITS[engine];
      const commitSha = crypto.randomBytes(20).toString('hex');
      const create = await counted({ workspaceId: o.workspaceId, commitSha, changes });
      assert.equal(create.status, 201);
      assert.ok(create.statements.length <= limits.create, `create: ${create.statements.length} statements:\n${create.statements.join('\n')}`);
      const update = await counted({ workspaceId: o.workspaceId, commitSha, message: 'again' });
      assert.equal(update.status, 201);
      assert.ok(update.statements.length <= limits.update, `update: ${update.statements.length} statements:\n${update.statements.join('\n')}`);
    });

    it('concurrent new deploys share statements on PostgreSQL: 50 at once cost fewer than 50 times one', { skip: engine !== 'postgres' && 'SQLite answers in process: there is no round trip to share' }, async (t) => {
      // Concurrent key lookups and creates go out together (core/db/batch.ts). Without that,
      // exactly 50 times one.
      await api.flushLogs();
      const statements: string[] = [];
      const listen = (q: { sql: string }) => statements.push(q.sql);
      api.db.on('query', listen);
      try {
        const results = await Promise.all(
          Array.from({ length: 50 }, () => api.call('POST', '/v1/deploys', { key: o.apiKey, body: { workspaceId: o.workspaceId, commitSha: crypto.randomBytes(20).toString('hex'), changes } })),
        );
        assert.deepEqual(new Set(results.map((r) => r.status)), new Set([201]));
      } finally {
        api.db.off('query', listen);
      }
      assert.ok(statements.length < 50 * LIMITS[engine].create, `${statements.length} statements for 50 deploys`);
      t.diagnostic(`${statements.length} statements for 50 concurrent deploys`);
    });

    it('with an active webhook the event and its fan-out job add no statement on PostgreSQL', async () => {
      const workspaceId = await api.workspace(o);
      await createWebhook(api.db, { workspaceId, url: 'https://127.0.0.1:9/hook', events: ['deploy.recorded'] }, { allowPrivateNetwork: true, keyring: keyringFor(api.config) });
      const res = await counted({ workspaceId, commitSha: crypto.randomBytes(20).toString('hex'), changes });
      assert.equal(res.status, 201);
      assert.ok(res.statements.length <= LIMITS[engine].createWithWebhook, `${res.statements.length} statements:\n${res.statements.join('\n')}`);
      assert.equal((await api.db('events').where({ workspace_id: workspaceId })).length, 1, 'the event was written');
    });
  });
}
