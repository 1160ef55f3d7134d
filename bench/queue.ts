// npm run bench:queue — the jobs table against graphile-worker 0.17 on the same PostgreSQL.
//
// For each system, on its own fresh database:
//   enqueue   20,000 no-op jobs from 10 concurrent callers (one job per call), jobs/s;
//   drain     the 20,000 with one worker process of concurrency 10, jobs/s from start until the
//             last job is recorded as finished;
//   latency   with the worker idle and listening, 1,000 jobs enqueued one at a time (paced),
//             time from the enqueue's commit to the handler's start, p50 and p99.
// Then EXPLAIN ANALYZE of the claim at 100,000 queued jobs.
//
// Env: BENCH_DATABASE_URL (else TEST_DATABASE_URL, else postgres://root@127.0.0.1:5432/test) is
// used to create and drop the databases; BENCH_JOBS (20000), BENCH_CONCURRENCY (10),
// BENCH_LATENCY_JOBS (1000), BENCH_OUT (bench/results/queue.md).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import knexFactory from 'knex';
import { pino } from 'pino';
import { Logger as GraphileLogger, makeWorkerUtils, run as graphileRun, runMigrations } from 'graphile-worker';
import { createDb, type Db, migrateLatest } from '../core/db/index.ts';
import { PG_CLAIM, enqueueKind } from '../core/jobs/index.ts';
import { Runner } from '../worker/runner.ts';
import { tasks } from '../worker/tasks/index.ts';
import { queueSessionUrl } from '../worker/config.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgres://root@127.0.0.1:5432/test';
const N = Number(process.env.BENCH_JOBS || 20_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY || 10);
const LATENCY_JOBS = Number(process.env.BENCH_LATENCY_JOBS || 1000);
const LATENCY_GAP_MS = 2;
const OUT = process.env.BENCH_OUT || path.join(root, 'bench/results/queue.md');

const created: string[] = [];
async function freshDatabase(): Promise<string> {
  const name = `sh_bench_${crypto.randomBytes(5).toString('hex')}`;
  const k = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
  try {
    await k.raw(`CREATE DATABASE ${name}`);
  } finally {
    await k.destroy();
  }
  created.push(name);
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}
async function dropDatabases(): Promise<void> {
  const k = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
  try {
    for (const name of created) await k.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await k.destroy();
  }
}

function pct(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const r1 = (x: number) => Math.round(x * 10) / 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Run `total` calls of `fn` from `parallel` concurrent loops; returns jobs/s. */
async function hammer(total: number, parallel: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < total) await fn(next++);
    }),
  );
  return total / ((performance.now() - t0) / 1000);
}

async function waitUntil(check: () => Promise<boolean>, everyMs = 5): Promise<void> {
  while (!(await check())) await sleep(everyMs);
}

interface Result {
  name: string;
  enqueuePerSec: number;
  enqueueNote: string;
  drainPerSec: number;
  p50: number;
  p99: number;
  max: number;
}

// ---------------------------------------------------------------------------------------------
// sitehealth's jobs table
// ---------------------------------------------------------------------------------------------

async function benchOurs(
  asyncCommit: boolean,
): Promise<{ result: Result; explain: string; explainAnalyzed: string; indexOk: boolean; enqueueTrxPerSec: number }> {
  const url = await freshDatabase();
  const db = createDb(url, { pool: { max: CONCURRENCY + 3 } });
  // As worker/main.ts does: the queue's statements on their own pool and session settings.
  const queueDb = createDb(queueSessionUrl(url, { asyncCommit }), { pool: { max: 4 } });
  await migrateLatest(db);
  const logger = pino({ level: 'warn' });
  const started = new Map<string, number>();
  let finished = 0;
  const benchTasks = {
    ...tasks,
    noop: async (_p: Record<string, never>, ctx: { job: { id: string } }) => {
      started.set(ctx.job.id, performance.now());
      finished++;
    },
  };
  const newRunner = () =>
    new Runner({
      db,
      queueDb,
      tasks: benchTasks,
      logger,
      concurrency: CONCURRENCY,
      pollMs: 1000,
      leaseMs: 60_000,
      heartbeatMs: 20_000,
      listenUrl: url,
      maintenancePeriodMs: null,
    });

  // Enqueue: as the API does it (inside a transaction), and autocommit (like graphile's addJob).
  const enqueueTrxPerSec = await hammer(N / 4, CONCURRENCY, () => db.transaction((trx) => enqueueKind(trx, 'noop', {})));
  await db('jobs').del();
  const enqueuePerSec = await hammer(N, CONCURRENCY, () => enqueueKind(db, 'noop', {}));

  // Drain.
  const idle = async () => !(await db('jobs').whereIn('state', ['queued', 'running']).first('id'));
  let runner = newRunner();
  const t0 = performance.now();
  await runner.start();
  await waitUntil(async () => finished >= N);
  await waitUntil(idle);
  const drainPerSec = N / ((performance.now() - t0) / 1000);
  await runner.stop(5000);
  await db('jobs').del();

  // Latency from commit to start.
  runner = newRunner();
  await runner.start();
  started.clear();
  const committed = new Map<string, number>();
  for (let i = 0; i < LATENCY_JOBS; i++) {
    const { id } = await db.transaction((trx) => enqueueKind(trx, 'noop', {}));
    committed.set(id, performance.now());
    await sleep(LATENCY_GAP_MS);
  }
  await waitUntil(async () => started.size >= LATENCY_JOBS);
  await runner.stop(5000);
  const lat = [...committed].map(([id, t]) => started.get(id)! - t).sort((a, b) => a - b);

  // EXPLAIN the claim at 100,000 queued jobs.
  await db('jobs').del();
  await db.raw(`
    INSERT INTO jobs (id, kind, payload, state, run_at, attempts, max_attempts, created_at, updated_at)
    SELECT gen_random_uuid(), 'noop', '{}', 'queued', CAST(? AS BIGINT) - g, 0, 3, ?, ?
    FROM generate_series(1, 100000) AS g`, [Date.now(), Date.now(), Date.now()]);
  // Some finished history too, as a real table would have.
  await db.raw(`
    INSERT INTO jobs (id, kind, payload, state, run_at, attempts, max_attempts, created_at, updated_at, finished_at)
    SELECT gen_random_uuid(), 'noop', '{}', 'done', CAST(? AS BIGINT) - g, 1, 3, ?, ?, ?
    FROM generate_series(1, 100000) AS g`, [Date.now(), Date.now(), Date.now(), Date.now()]);
  const explainClaim = async (h: Db): Promise<string> => {
    let plan = '';
    await h
      .transaction(async (trx) => {
        const now = Date.now();
        const res = (await trx.raw(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${PG_CLAIM}`, ['{}', now, CONCURRENCY, CONCURRENCY, CONCURRENCY, CONCURRENCY, 'bench', now + 60_000, now, now])) as {
          rows: Array<{ 'QUERY PLAN': string }>;
        };
        plan = res.rows.map((r) => r['QUERY PLAN']).join('\n');
        throw new Error('rollback');
      })
      .catch((e: Error) => {
        if (e.message !== 'rollback') throw e;
      });
    return plan;
  };
  // As the worker sees it, right after the burst (no statistics yet), then after ANALYZE on a
  // plain session.
  const explain = await explainClaim(queueDb);
  await db.raw('ANALYZE jobs');
  const explainAnalyzed = await explainClaim(db);
  // The queue is read only by the candidates' scan, which must walk jobs_claim_idx in order and
  // stop; the fair-share ranking sorts those few candidates (core/jobs/claim.ts), never the queue.
  const candidateScan = (p: string): string => {
    const lines = p.split('\n');
    const at = lines.findIndex((l) => /CTE candidates/.test(l));
    if (at < 0) return '';
    const depth = lines[at].search(/\S/);
    const end = lines.findIndex((l, i) => i > at && l.search(/\S/) <= depth);
    return lines.slice(at + 1, end < 0 ? undefined : end).join('\n');
  };
  const planOk = (p: string) => /Index Scan using jobs_claim_idx/.test(candidateScan(p)) && !/\bSort\b/.test(candidateScan(p)) && !/Seq Scan|Bitmap/.test(p);
  const indexOk = planOk(explain) && planOk(explainAnalyzed);
  await queueDb.destroy();
  await db.destroy();
  return {
    result: {
      name: `sitehealth (claims up to free slots, batched completion; synchronous_commit ${asyncCommit ? 'off' : 'on'} for queue statements)`,
      enqueuePerSec,
      enqueueNote: 'autocommit',
      drainPerSec,
      p50: pct(lat, 50),
      p99: pct(lat, 99),
      max: lat[lat.length - 1],
    },
    explain,
    explainAnalyzed,
    indexOk,
    enqueueTrxPerSec,
  };
}

// ---------------------------------------------------------------------------------------------
// graphile-worker 0.17
// ---------------------------------------------------------------------------------------------

async function benchGraphile(variant: 'single' | 'batch', asyncCommit = false): Promise<Result> {
  const plainUrl = await freshDatabase();
  const u = new URL(plainUrl);
  if (asyncCommit) u.searchParams.set('options', '-c synchronous_commit=off');
  const connectionString = u.toString();
  const logger = new GraphileLogger(() => () => {});
  await runMigrations({ connectionString, logger });
  const utils = await makeWorkerUtils({ connectionString, logger, maxPoolSize: CONCURRENCY + 2 });
  const started = new Map<string, number>();
  let finished = 0;
  const taskList = {
    noop: async (_payload: unknown, helpers: { job: { id: string | number } }) => {
      started.set(String(helpers.job.id), performance.now());
      finished++;
    },
  };
  const preset =
    variant === 'batch'
      ? { worker: { localQueue: { size: CONCURRENCY }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } }
      : { worker: {} };
  const start = () =>
    graphileRun({
      connectionString,
      concurrency: CONCURRENCY,
      // Room for the local queue's fetches and batched completions beside the 10 jobs.
      maxPoolSize: CONCURRENCY + 10,
      pollInterval: 1000,
      noHandleSignals: true,
      logger,
      taskList,
      preset,
    });

  const enqueuePerSec = await hammer(N, CONCURRENCY, () => utils.addJob('noop', {}));

  const pgc = knexFactory({ client: 'pg', connection: connectionString, pool: { min: 0, max: 1 } });
  const idle = async () =>
    !((await pgc.raw('SELECT 1 FROM graphile_worker._private_jobs LIMIT 1')) as { rows: unknown[] }).rows.length;
  const t0 = performance.now();
  let runner = await start();
  await waitUntil(async () => finished >= N);
  await waitUntil(idle);
  const drainPerSec = N / ((performance.now() - t0) / 1000);
  await runner.stop();

  runner = await start();
  await sleep(300);
  started.clear();
  const committed = new Map<string, number>();
  for (let i = 0; i < LATENCY_JOBS; i++) {
    const job = await utils.addJob('noop', {});
    committed.set(String(job.id), performance.now());
    await sleep(LATENCY_GAP_MS);
  }
  await waitUntil(async () => started.size >= LATENCY_JOBS);
  await runner.stop();
  const lat = [...committed].map(([id, t]) => started.get(id)! - t).sort((a, b) => a - b);
  await pgc.destroy();
  await utils.release();
  return {
    name:
      variant === 'batch'
        ? `graphile-worker 0.17.3 (localQueue.size ${CONCURRENCY}, completeJobBatchDelay 0${asyncCommit ? ', synchronous_commit off' : ''})`
        : `graphile-worker 0.17.3 (defaults: one job per claim${asyncCommit ? ', synchronous_commit off' : ''})`,
    enqueuePerSec,
    enqueueNote: 'addJob',
    drainPerSec,
    p50: pct(lat, 50),
    p99: pct(lat, 99),
    max: lat[lat.length - 1],
  };
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const pgVersion = await (async () => {
    const k = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
    try {
      return ((await k.raw('SHOW server_version')) as { rows: Array<{ server_version: string }> }).rows[0].server_version;
    } finally {
      await k.destroy();
    }
  })();
  const log = (s: string) => process.stderr.write(`${s}\n`);
  log(`bench:queue: ${N} jobs, concurrency ${CONCURRENCY}, PostgreSQL ${pgVersion}`);
  const ours = await benchOurs(true);
  log(`  ${JSON.stringify(ours.result)}`);
  const oursSync = await benchOurs(false);
  log(`  ${JSON.stringify(oursSync.result)}`);
  const graphile: Result[] = [];
  for (const [variant, asyncCommit] of [
    ['single', false],
    ['batch', false],
    ['single', true],
    ['batch', true],
  ] as const) {
    graphile.push(await benchGraphile(variant, asyncCommit));
    log(`  ${JSON.stringify(graphile[graphile.length - 1])}`);
  }
  const all = [ours.result, oursSync.result, ...graphile];
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const best = Math.max(...graphile.map((g) => g.drainPerSec));
  const bestSync = Math.max(...graphile.filter((g) => !g.name.includes('synchronous_commit off')).map((g) => g.drainPerSec));
  const md = `# Queue benchmark

- date: ${new Date().toISOString()}
- machine: ${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ${os.type()} ${os.release()}; Node ${process.version}; PostgreSQL ${pgVersion} on the same machine
- command: \`npm run bench:queue\` (bench/queue.ts)
- workload: ${N} no-op jobs, concurrency ${CONCURRENCY}, one worker (in the benchmark process), LISTEN/NOTIFY on, poll 1 s; both systems silent (no per-job log lines); each system on its own fresh database
- enqueue: ${CONCURRENCY} concurrent callers, one job per call; latency: ${LATENCY_JOBS} jobs enqueued one at a time, ${LATENCY_GAP_MS} ms apart, into an idle listening worker, measured from the enqueue's commit to the handler's start

| system | enqueue jobs/s | processing jobs/s | start latency p50 | p99 | max |
|---|---:|---:|---:|---:|---:|
${all
  .map((r) => `| ${r.name} | ${Math.round(r.enqueuePerSec)} (${r.enqueueNote}) | ${Math.round(r.drainPerSec)} | ${r1(r.p50)} ms | ${r1(r.p99)} ms | ${r1(r.max)} ms |`)
  .join('\n')}

sitehealth enqueue inside a caller's transaction (BEGIN, the insert with its NOTIFY, COMMIT: how the API enqueues): ${Math.round(ours.enqueueTrxPerSec)} jobs/s.

Targets:
- processing at least graphile-worker's best at the same concurrency (${Math.round(best)} jobs/s, any variant): **${ours.result.drainPerSec >= best ? 'met' : 'not met'}** (${Math.round(ours.result.drainPerSec)} jobs/s as the worker runs by default); with synchronous commit on both sides (${Math.round(bestSync)} jobs/s): **${oursSync.result.drainPerSec >= bestSync ? 'met' : 'not met'}** (${Math.round(oursSync.result.drainPerSec)} jobs/s)
- p50 start latency under 50 ms: **${ours.result.p50 < 50 ? 'met' : 'not met'}** (${r1(ours.result.p50)} ms)
- claim walks jobs_claim_idx in its sort order at 100,000 queued jobs (its scan of the queue has no Sort; no bitmap or sequential scan anywhere; the fair-share ranking sorts only the candidates): **${ours.indexOk && oursSync.indexOk ? 'met' : 'not met'}**

This machine is shared: other processes' load during the run moves these figures by tens of percent; compare rows of the same run.

## EXPLAIN ANALYZE of the claim (100,000 queued + 100,000 done jobs, LIMIT ${CONCURRENCY})

As the worker's queue session runs it (enable_sort off, see worker/config.ts), right after the burst, before any ANALYZE:

\`\`\`
${ours.explain}
\`\`\`

On a plain session after ANALYZE:

\`\`\`
${ours.explainAnalyzed}
\`\`\`
`;
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, md);
  process.stdout.write(md);
}

try {
  await main();
} finally {
  await dropDatabases();
}
