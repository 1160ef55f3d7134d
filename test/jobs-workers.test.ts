// Real worker processes (worker/process.ts plus the test kinds, test/support/test-worker.ts) sharing one database.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, afterEach, before, describe, test } from 'node:test';
import type { Db } from '../core/db/index.ts';
import { enqueueKind } from '../core/jobs/index.ts';
import { engines, freshDb, dropCreatedDatabases } from './support/databases.ts';
import { createTestRunsTable, jobRow, waitFor } from './support/jobs.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface WorkerProc {
  child: ChildProcess;
  pid: number;
  lines: Array<Record<string, unknown>>;
  ready: Promise<void>;
  exited: Promise<number | null>;
}

const procs: WorkerProc[] = [];

function startWorker(url: string, env: Record<string, string> = {}): WorkerProc {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'test/support/test-worker.ts')], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: url,
      WORKER_CONCURRENCY: '8',
      WORKER_POLL_MS: '50',
      JOB_LEASE_MS: '1500',
      JOB_HEARTBEAT_MS: '300',
      JOB_SHUTDOWN_MS: '5000',
      JOB_MAINTENANCE_PERIOD_MS: String(24 * 3600_000),
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: Array<Record<string, unknown>> = [];
  let onReady: () => void = () => {};
  const ready = new Promise<void>((r) => (onReady = r));
  readline.createInterface({ input: child.stdout! }).on('line', (l) => {
    try {
      const rec = JSON.parse(l) as Record<string, unknown>;
      lines.push(rec);
      if (rec.msg === 'worker ready') onReady();
    } catch {
      // not a log line
    }
  });
  // 'close', not 'exit': it comes after stdout has been read to the end, so every log line is in.
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  const w = { child, pid: child.pid!, lines, ready, exited };
  procs.push(w);
  return w;
}

async function count(db: Db, where: Record<string, unknown>): Promise<number> {
  return Number((await db('job_test_runs').where(where).count({ n: '*' }).first())!.n);
}

after(dropCreatedDatabases);
afterEach(async () => {
  for (const p of procs.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGKILL');
      await p.exited;
    }
  }
});

for (const engine of engines()) {
  describe(`worker processes (${engine})`, () => {
    let db: Db;
    let url: string;
    before(async () => {
      ({ db, url } = await freshDb(engine));
      await createTestRunsTable(db);
    });
    after(async () => {
      await db.destroy();
    });
    afterEach(async () => {
      await db('jobs').del();
      await db('job_test_runs').del();
    });

    test('two workers, 1,000 jobs: every job runs exactly once', async () => {
      const a = startWorker(url);
      const b = startWorker(url);
      await Promise.all([a.ready, b.ready]);
      const n = 1000;
      await db.transaction(async (trx) => {
        for (let i = 0; i < n; i++) await enqueueKind(trx, 'test_record', { sleepMs: 2 });
      });
      await waitFor(
        'all jobs done',
        async () => Number((await db('jobs').where({ kind: 'test_record', state: 'done' }).count({ n: '*' }).first())!.n) === n,
        60_000,
      );
      const perJob = (await db('job_test_runs')
        .select('job_id', 'phase')
        .count({ n: '*' })
        .groupBy('job_id', 'phase')) as Array<{ job_id: string; phase: string; n: number | string }>;
      assert.equal(perJob.length, 2 * n);
      assert.ok(perJob.every((r) => Number(r.n) === 1), 'one start and one done row per job');
      const jobs = (await db('jobs').where({ kind: 'test_record' }).select('state', 'attempts')) as Array<{ state: string; attempts: number }>;
      assert.equal(jobs.length, n);
      assert.ok(jobs.every((j) => j.state === 'done' && Number(j.attempts) === 1));
      const byPid = (await db('job_test_runs').where({ phase: 'done' }).select('pid').count({ n: '*' }).groupBy('pid')) as Array<{
        pid: number;
        n: number | string;
      }>;
      assert.deepEqual(byPid.map((r) => Number(r.pid)).sort(), [a.pid, b.pid].sort(), 'both workers took jobs');
      a.child.kill('SIGTERM');
      b.child.kill('SIGTERM');
      assert.deepEqual(await Promise.all([a.exited, b.exited]), [0, 0]);
      // One log line per job with kind, id, attempt, duration and outcome. Read once both
      // workers have exited: a job can be done in the table before its line has crossed the pipe.
      const jobLines = [...a.lines, ...b.lines].filter((l) => l.outcome === 'done');
      assert.equal(jobLines.length, n);
      for (const k of ['kind', 'jobId', 'attempt', 'durationMs', 'outcome']) assert.ok(k in jobLines[0], k);
    });

    test('kill -9 in the middle of a job: another worker runs it after the lease expires, once', async () => {
      const a = startWorker(url);
      await a.ready;
      const { id } = await enqueueKind(db, 'test_record', { sleepMs: 6000 });
      await waitFor('job started on a', async () => (await count(db, { job_id: id, phase: 'start', pid: a.pid })) === 1);
      // Killed while in the job; b starts only then, so however long a cold start takes on a busy
      // machine, a can never finish the job first.
      a.child.kill('SIGKILL');
      await a.exited;
      const b = startWorker(url);
      await b.ready;
      await waitFor('job done', async () => (await jobRow(db, id)).state === 'done', 20_000);
      const runs = (await db('job_test_runs').where({ job_id: id }).orderBy('n')) as Array<{
        pid: number;
        phase: string;
        attempt: number;
      }>;
      assert.deepEqual(
        runs.map((r) => [Number(r.pid), r.phase, Number(r.attempt)]),
        [
          [a.pid, 'start', 1],
          [b.pid, 'start', 2],
          [b.pid, 'done', 2],
        ],
      );
      const row = await jobRow(db, id);
      assert.equal(row.attempts, 2);
      assert.match(row.locked_by!, new RegExp(`/${b.pid}/`));
      assert.ok(b.lines.some((l) => l.jobId === id && l.msg === 'recovered a job whose lease expired'));
    });

    test('SIGTERM: running jobs finish within the deadline, the rest go back to the queue', async () => {
      const a = startWorker(url, { JOB_SHUTDOWN_MS: '500', WORKER_CONCURRENCY: '2' });
      await a.ready;
      const quick = await enqueueKind(db, 'test_record', { sleepMs: 100 });
      const slow = await enqueueKind(db, 'test_record', { sleepMs: 30_000 });
      await waitFor('both started', async () => (await count(db, { phase: 'start' })) === 2);
      const t0 = Date.now();
      a.child.kill('SIGTERM');
      assert.equal(await a.exited, 0);
      assert.ok(Date.now() - t0 < 5000);
      assert.equal((await jobRow(db, quick.id)).state, 'done');
      const row = await jobRow(db, slow.id);
      assert.equal(row.state, 'queued');
      assert.equal(row.attempts, 0);
      assert.equal(row.locked_by, null);
    });
  });
}
