// npm run admin -- jobs stats | list | retry
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Db } from '../core/db/index.ts';
import { nowMs } from '../core/platform/index.ts';
import { claimJobs, enqueue, failJob } from '../core/jobs/index.ts';
import { main } from '../admin/admin.ts';
import { engines, freshDb, dropCreatedDatabases } from './support/databases.ts';

after(dropCreatedDatabases);

for (const engine of engines()) {
  describe(`admin jobs commands (${engine})`, () => {
    let db: Db;
    let url: string;
    let failedId: string;
    let queuedId: string;
    before(async () => {
      ({ db, url } = await freshDb(engine));
      queuedId = (await enqueue(db, 'site_check', { checkId: 'c1' }, { dedupeKey: 'site_check:c1' })).id;
      await enqueue(db, 'webhook_delivery', { messageId: 'd1', attempt: 1 }, { runAt: nowMs() + 60_000 });
      failedId = (await enqueue(db, 'site_crawl', { crawlId: 'r1' }, { maxAttempts: 1 })).id;
      await db('jobs').where({ id: queuedId }).update({ run_at: nowMs() + 60_000 });
      const [job] = await claimJobs(db, { workerId: 'w', limit: 1, leaseMs: 1000, now: nowMs() });
      assert.equal(job.id, failedId);
      assert.equal(await failJob(db, 'w', job, { error: new Error('boom'), retryAt: nowMs(), now: nowMs() }), 'failed');
    });
    after(async () => {
      await db.destroy();
    });

    async function admin(...args: string[]): Promise<{ code: number; out: string; err: string }> {
      let out = '';
      let err = '';
      const code = await main(args, { ...process.env, DATABASE_URL: url }, {
        out: (t) => (out += `${t}\n`),
        err: (t) => (err += `${t}\n`),
      });
      return { code, out, err };
    }

    test('jobs stats counts per state and kind', async () => {
      const r = await admin('jobs', 'stats', '--json');
      assert.equal(r.code, 0, r.err);
      const body = JSON.parse(r.out);
      assert.deepEqual(body.states, { queued: 2, running: 0, done: 0, failed: 1, cancelled: 0 });
      assert.deepEqual(body.kinds.site_crawl, { failed: 1 });
      assert.equal(body.oldestDueAt, null);
      const text = await admin('jobs', 'stats');
      assert.equal(text.code, 0);
      assert.match(text.out, /failed\s+1/);
    });

    test('jobs list filters by state and kind', async () => {
      const r = await admin('jobs', 'list', '--state', 'failed', '--json');
      assert.equal(r.code, 0, r.err);
      const { jobs } = JSON.parse(r.out);
      assert.equal(jobs.length, 1);
      assert.equal(jobs[0].id, failedId);
      assert.equal(jobs[0].lastError, 'Error: boom');
      assert.deepEqual(jobs[0].payload, { crawlId: 'r1' });
      const all = JSON.parse((await admin('jobs', 'list', '--json', '--limit', '2')).out);
      assert.equal(all.jobs.length, 2);
      const byKind = JSON.parse((await admin('jobs', 'list', '--kind', 'webhook_delivery', '--json')).out);
      assert.deepEqual(byKind.jobs.map((j: { kind: string }) => j.kind), ['webhook_delivery']);
      for (const bad of [['--state', 'stuck'], ['--kind', 'nope'], ['--limit', '0'], ['--limit', '1001']]) {
        const b = await admin('jobs', 'list', ...bad);
        assert.equal(b.code, 1, bad.join(' '));
        assert.equal(b.out, '');
        assert.notEqual(b.err, '');
      }
    });

    test('jobs retry re-queues a failed job; other states are refused', async () => {
      const r = await admin('jobs', 'retry', '--id', failedId, '--json');
      assert.equal(r.code, 0, r.err);
      const body = JSON.parse(r.out);
      assert.equal(body.id, failedId);
      assert.equal(body.state, 'queued');
      assert.equal(body.attempts, 0);
      const row = (await db('jobs').where({ id: failedId }).first()) as { state: string; attempts: number; run_at: number };
      assert.equal(row.state, 'queued');
      assert.ok(Number(row.run_at) <= nowMs());
      const again = await admin('jobs', 'retry', '--id', failedId);
      assert.equal(again.code, 1);
      assert.match(again.err, /only failed or cancelled/);
      assert.equal((await admin('jobs', 'retry', '--id', '0190a0a0-0000-7000-8000-000000000000')).code, 1);
      assert.equal((await admin('jobs', 'retry', '--id', 'nope')).code, 1);
      assert.equal((await admin('jobs', 'retry')).code, 1);
    });
  });
}
