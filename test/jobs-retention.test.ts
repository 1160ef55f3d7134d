// Retention rules and the maintenance job that applies them once per period.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { nowMs, setClockOffset, newId } from '../core/platform/index.ts';
import { type Db, applyRetention } from '../core/db/index.ts';
import { retentionRules } from '../worker/retention.ts';
import { maintenanceKey, nextPeriodStart, scheduleMaintenance } from '../worker/maintenance.ts';
import { engines, freshDb, dropCreatedDatabases } from './support/databases.ts';
import { testRunner } from './support/jobs.ts';

const DAY = 86_400_000;

after(dropCreatedDatabases);

test('the default rules follow docs/operating.md#retention', () => {
  const byName = new Map(retentionRules.map((r) => [r.name, r]));
  assert.equal(byName.get('activity')!.maxAgeMs, 90 * DAY);
  assert.equal(byName.get('request_logs')!.maxAgeMs, 30 * DAY);
  assert.equal(byName.get('jobs_done')!.maxAgeMs, 7 * DAY);
  assert.equal(byName.get('jobs_failed')!.maxAgeMs, 30 * DAY);
  // Search data: 16 months, the depth search consoles keep (16 x 30.44 days).
  assert.equal(byName.get('search_data')!.maxAgeMs, 487 * DAY);
  assert.equal(byName.get('search_data_days')!.maxAgeMs, 487 * DAY);
});

for (const engine of engines()) {
  describe(`retention and maintenance (${engine})`, () => {
    let db: Db;
    before(async () => {
      ({ db } = await freshDb(engine));
    });
    after(async () => {
      await db.destroy();
    });
    afterEach(async () => {
      setClockOffset(0);
      await db('jobs').del();
      await db('activity').del();
    });

    async function activity(kind: string, ageDays: number): Promise<string> {
      const id = newId();
      await db('activity').insert({
        id,
        kind,
        action: `${kind}.test`,
        actor_type: 'system',
        details: '{}',
        created_at: nowMs() - ageDays * DAY,
      });
      return id;
    }

    async function job(state: string, finishedDaysAgo: number | null): Promise<string> {
      const id = newId();
      const t = nowMs();
      await db('jobs').insert({
        id,
        kind: 'noop',
        payload: '{}',
        state,
        run_at: t - 100 * DAY,
        attempts: 1,
        max_attempts: 3,
        created_at: t - 100 * DAY,
        updated_at: t,
        finished_at: finishedDaysAgo === null ? null : t - finishedDaysAgo * DAY,
      });
      return id;
    }

    test('rows older than their window disappear; security activity and live jobs stay', async () => {
      const keep = [
        await activity('security', 400),
        await activity('security', 91),
        await activity('workspace', 89),
        await activity('billing', 1),
        await job('done', 6),
        await job('cancelled', 6.9),
        await job('failed', 29),
        await job('queued', null),
        await job('running', null),
      ];
      const drop = [
        await activity('workspace', 91),
        await activity('webhook', 365),
        await activity('billing', 90.01),
        await job('done', 8),
        await job('cancelled', 7.01),
        await job('failed', 31),
      ];
      const results = await applyRetention(db, { now: nowMs(), batchSize: 2, rules: retentionRules });
      const left = new Set([
        ...((await db('activity').pluck('id')) as string[]),
        ...((await db('jobs').pluck('id')) as string[]),
      ]);
      assert.deepEqual([...left].sort(), [...keep].sort());
      for (const id of drop) assert.ok(!left.has(id));
      const deleted = Object.fromEntries(results.map((r) => [r.name, r.deleted]));
      assert.equal(deleted.activity, 3);
      assert.equal(deleted.jobs_done, 2);
      assert.equal(deleted.jobs_failed, 1);
    });

    test('deletes in bounded batches until the backlog is gone', async () => {
      for (let i = 0; i < 25; i++) await activity('workspace', 100);
      const [r] = await applyRetention(db, { now: nowMs(), batchSize: 4, rules: [retentionRules[0]] });
      assert.equal(r.deleted, 25);
      assert.equal(Number((await db('activity').count({ n: '*' }).first())!.n), 0);
    });

    test('one maintenance job per period, however many workers schedule it', async () => {
      const period = 3_600_000;
      const now = nowMs();
      const results = await Promise.all([1, 2, 3, 4].map(() => scheduleMaintenance(db, now, period)));
      assert.equal(new Set(results.map((r) => r.id)).size, 1);
      assert.equal(results.filter((r) => r.outcome === 'inserted').length, 1);
      const rows = (await db('jobs').where({ kind: 'maintenance' })) as Array<{ run_at: number; dedupe_key: string }>;
      assert.equal(rows.length, 1);
      const start = nextPeriodStart(now, period);
      assert.equal(Number(rows[0].run_at), start);
      assert.equal(rows[0].dedupe_key, maintenanceKey(start));
    });

    test('the maintenance job applies retention and schedules the next period', async () => {
      const period = 3_600_000;
      const old = await activity('workspace', 100);
      const sec = await activity('security', 100);
      const first = await scheduleMaintenance(db, nowMs(), period);
      const runner = testRunner(db);
      assert.equal(await runner.runDue(), 0, 'not due before its period starts');
      const firstStart = nextPeriodStart(nowMs(), period);
      setClockOffset(firstStart - Date.now() + 10);
      assert.equal(await runner.runDue(), 1);
      assert.equal(((await db('jobs').where({ id: first.id }).first()) as { state: string }).state, 'done');
      assert.deepEqual(await db('activity').pluck('id'), [sec]);
      assert.ok(old);
      // The next period is queued, once, even if workers schedule it again now.
      await scheduleMaintenance(db, nowMs(), period);
      const queued = (await db('jobs').where({ kind: 'maintenance', state: 'queued' })) as Array<{ dedupe_key: string }>;
      assert.deepEqual(
        queued.map((q) => q.dedupe_key),
        [maintenanceKey(firstStart + period)],
      );
    });
  });
}
