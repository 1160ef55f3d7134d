// npm run bench:logs
//
// GET /v1/logs on PostgreSQL with BENCH_LOG_ROWS (default 1,000,000) request log rows in one
// workspace spread over 30 days, through the real server (a child process, bench/lib/serve.ts):
// p50/p99 of `days=30` (meta from the hourly rollups), of other rollup-answered filters, and of
// `q` searches (meta counted over the rows). Then the cost of request logging on POST
// /v1/deploys: the same server with the request log writer and with a discarding sink,
// alternated in one run. Writes bench/results/logs.md.
//
// Targets: p99 of the meta query under 50 ms; logging overhead on POST /v1/deploys under 10%.
// Environment: BENCH_LOG_ROWS, BENCH_LATENCY_SECONDS (default 10), BENCH_LATENCY_CONNECTIONS
// (default 1: latency, not queueing); for the overhead: BENCH_ROUNDS (default 8),
// BENCH_ROUND_SECONDS (5), BENCH_WARMUP (2), BENCH_CONNECTIONS (50); BENCH_PG_URL (an admin URL
// that may create databases); BENCH_ONLY=overhead runs the overhead part alone (no report).

import crypto from 'node:crypto';
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';
import knexFactory from 'knex';
import { migrateLatest, createDb, DAY_MS, type Db } from '../core/db/index.ts';
import { createUser, createApiKey } from '../core/access/index.ts';
import { createWorkspace } from '../core/workspaces/index.ts';
import { writeRequestLogs, logMeta, logWindow, type LogFilters, type RequestLogInput } from '../core/request-logs/index.ts';

const ROWS = Number(process.env.BENCH_LOG_ROWS || 1_000_000);
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS || 10);
const LATENCY_CONNECTIONS = Number(process.env.BENCH_LATENCY_CONNECTIONS || 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 8);
const DURATION = Number(process.env.BENCH_DURATION || 10);
const OVERHEAD_SECONDS = Number(process.env.BENCH_ROUND_SECONDS || 5);
const WARMUP = Number(process.env.BENCH_WARMUP || 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 50);
const PG_ADMIN_URL = process.env.BENCH_PG_URL || 'postgres://root@127.0.0.1:5432/test';
const META_TARGET_MS = 50;
const OVERHEAD_TARGET = 0.1;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const pct = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ------------------------------------------------------------------ scratch databases

const made: string[] = [];

async function scratchDb(): Promise<{ url: string; db: Db }> {
  const name = `sh_bench_logs_${crypto.randomBytes(5).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: PG_ADMIN_URL, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`CREATE DATABASE ${name}`);
  } finally {
    await admin.destroy();
  }
  made.push(name);
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${name}`;
  const db = createDb(u.toString());
  await migrateLatest(db);
  return { url: u.toString(), db };
}

async function dropScratch(): Promise<void> {
  const admin = knexFactory({ client: 'pg', connection: PG_ADMIN_URL, pool: { min: 0, max: 1 } });
  try {
    while (made.length) await admin.raw(`DROP DATABASE IF EXISTS ${made.pop()} WITH (FORCE)`);
  } finally {
    await admin.destroy();
  }
}

interface Owner {
  userId: string;
  workspaceId: string;
  apiKey: string;
  keyId: string;
}

async function owner(db: Db, tag: string): Promise<Owner> {
  const u = await createUser(db, `bench.${tag}.${process.pid}@example.com`);
  const ws = await createWorkspace(db, { accountId: u.accountId, userId: u.userId, input: { name: `Bench ${tag} ${process.pid}`, website: 'https://www.example.com' } });
  const key = await createApiKey(db, { userId: u.userId, scopes: ['deploys', 'search', 'workspaces', 'webhooks'] });
  return { userId: u.userId, workspaceId: ws.id, apiKey: key.apiKey, keyId: key.id };
}

// ------------------------------------------------------------------ servers under test

interface ServerChild {
  url: string;
  requestLog: string;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();

async function startServerChild(databaseUrl: string, env: Record<string, string> = {}): Promise<ServerChild> {
  const child = fork(path.join(ROOT, 'bench', 'logs-server.ts'), [], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const ready = await new Promise<{ port: number; requestLog: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { port: number; requestLog: string }));
    child.once('exit', (code) => reject(new Error(`server child exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${ready.port}`,
    requestLog: ready.requestLog,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.send({ type: 'stop' });
      await exited;
    },
  };
}

interface Target {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  /** A new body for every request (POST). */
  body?: () => string;
}

async function probe(url: string, t: Target, status: number): Promise<unknown> {
  const res = await fetch(new URL(t.path, url), {
    method: t.method,
    headers: { ...t.headers, ...(t.body ? { 'content-type': 'application/json' } : {}) },
    body: t.body?.(),
  });
  const text = await res.text();
  if (res.status !== status) throw new Error(`${t.method} ${t.path}: expected ${status}, got ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

async function load(url: string, t: Target, connections: number, duration: number): Promise<Result> {
  const build = t.body;
  const r = await autocannon({
    url,
    connections,
    duration,
    pipelining: 1,
    timeout: 30,
    requests: [
      {
        method: t.method,
        path: t.path,
        headers: { ...t.headers, ...(build ? { 'content-type': 'application/json' } : {}) },
        ...(build ? { setupRequest: (req) => ({ ...req, body: build() }) } : {}),
      },
    ],
  });
  if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0) {
    throw new Error(`${t.method} ${t.path}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts ${JSON.stringify(r.statusCodeStats)}`);
  }
  return r;
}

interface Throughput {
  reqPerSec: number;
  p50: number;
  p99: number;
  total: number;
}

async function throughput(label: string, server: ServerChild, t: Target, seconds: number): Promise<Throughput> {
  process.stdout.write(`  ${label}: `);
  await load(server.url, t, CONNECTIONS, WARMUP);
  await pause(300);
  const r = await load(server.url, t, CONNECTIONS, seconds);
  process.stdout.write(`${fmt(r.requests.average)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms\n`);
  return { reqPerSec: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total };
}

function machine(): string[] {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    // not a checkout
  }
  return [
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${os.availableParallelism()} × ${os.cpus()[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ${os.platform()} ${os.release()}; Node.js ${process.version}; autocannon 8; commit ${commit} plus the working tree`,
    '- Command: `npm run bench:logs` (bench/logs.ts, server child bench/logs-server.ts)',
  ];
}

// ------------------------------------------------------------------ the seeded traffic

interface Kind {
  weight: number;
  method: string;
  route: string;
  status: number;
  message?: string;
}

// A CI-heavy workspace: mostly deploys recorded and read back, some failures of each kind.
const KINDS: Kind[] = [
  { weight: 400, method: 'POST', route: '/v1/deploys', status: 201 },
  { weight: 30, method: 'POST', route: '/v1/deploys', status: 400, message: 'body /commitSha has an invalid format' },
  { weight: 10, method: 'POST', route: '/v1/deploys', status: 403, message: 'Only a member, admin or owner of this workspace may record deploys; your role is viewer.' },
  { weight: 150, method: 'GET', route: '/v1/deploys', status: 200 },
  { weight: 150, method: 'GET', route: '/v1/deploys/{id}', status: 200 },
  { weight: 30, method: 'GET', route: '/v1/deploys/{id}', status: 404, message: 'The resource does not exist or you cannot see it.' },
  { weight: 100, method: 'GET', route: '/v1/site-checks/latest', status: 200 },
  { weight: 50, method: 'GET', route: '/v1/workspaces/{id}', status: 200 },
  { weight: 20, method: 'PUT', route: '/v1/workspaces/{id}', status: 200 },
  { weight: 10, method: 'PUT', route: '/v1/workspaces/{id}', status: 400, message: 'body /timezone must be an IANA time zone' },
  { weight: 20, method: 'POST', route: '/v1/webhooks/{id}/test', status: 200 },
  { weight: 5, method: 'POST', route: '/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver', status: 409, message: 'The webhook is paused; enable it before redelivering.' },
  { weight: 5, method: 'GET', route: '/v1/deploys', status: 500, message: 'Something failed on our side; quote request id 3f0c1d2e when reporting it.' },
];
const TOTAL_WEIGHT = KINDS.reduce((s, k) => s + k.weight, 0);

function pick(r: number): Kind {
  let x = r * TOTAL_WEIGHT;
  for (const k of KINDS) {
    x -= k.weight;
    if (x < 0) return k;
  }
  return KINDS[0];
}

async function seed(db: Db, workspaceId: string, keyId: string | null, rows: number, now: number): Promise<number> {
  const started = performance.now();
  const CHUNK = 10_000;
  for (let done = 0; done < rows; done += CHUNK) {
    const batch: RequestLogInput[] = [];
    for (let i = 0; i < Math.min(CHUNK, rows - done); i++) {
      const k = pick(Math.random());
      const path = k.route.replace('{id}', crypto.randomUUID()).replace('{deliveryId}', crypto.randomUUID());
      batch.push({
        workspaceId,
        method: k.method,
        path,
        route: k.route,
        statusCode: k.status,
        durationMs: 3 + Math.floor(Math.random() * 120),
        errorMessage: k.message ?? null,
        apiKeyId: keyId,
        createdAt: now - Math.floor(Math.random() * 30 * DAY_MS),
      });
    }
    await writeRequestLogs(db, batch);
    if ((done / CHUNK) % 10 === 9) process.stdout.write(`  seeded ${fmt(done + batch.length)} rows\n`);
  }
  return (performance.now() - started) / 1000;
}

// ------------------------------------------------------------------ latency runs

interface Latency {
  label: string;
  query: string;
  p50: number;
  p99: number;
  max: number;
  reqPerSec: number;
  total: number;
  meta: { total: number; errors: number; buckets: number };
  from: 'request_log_hourly' | 'request_log_rollups' | 'rows (q)';
}

async function latency(server: ServerChild, key: string, label: string, query: Record<string, string>): Promise<Latency> {
  const path = `/v1/logs?${new URLSearchParams(query).toString()}`;
  const target: Target = { method: 'GET', path, headers: { 'x-api-key': key } };
  const sample = (await probe(server.url, target, 200)) as { meta: { total: number; errors: number; buckets: unknown[] } };
  process.stdout.write(`  ${label}: `);
  await load(server.url, target, LATENCY_CONNECTIONS, 2); // warm-up
  const r = await load(server.url, target, LATENCY_CONNECTIONS, LATENCY_SECONDS);
  process.stdout.write(`p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${fmt(r.requests.average)} req/s\n`);
  return {
    label,
    query: path.replace(/workspace_id=[^&]+/, 'workspace_id=W'),
    p50: r.latency.p50,
    p99: r.latency.p99,
    max: r.latency.max,
    reqPerSec: r.requests.average,
    total: r.requests.total,
    meta: { total: sample.meta.total, errors: sample.meta.errors, buckets: sample.meta.buckets.length },
    from: query.q ? 'rows (q)' : query.method || query.status_code || query.route ? 'request_log_rollups' : 'request_log_hourly',
  };
}

/** The meta computation alone, in this process, one call at a time. */
async function metaTimings(db: Db, f: LogFilters, runs: number): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await logMeta(db, f, logWindow(Date.now(), f.days));
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)];
  return { p50: Math.round(at(0.5) * 100) / 100, p99: Math.round(at(0.99) * 100) / 100 };
}

async function explain(db: Db, sql: string, bindings: unknown[]): Promise<string> {
  const res = (await db.raw(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, bindings as never)) as { rows: Array<{ 'QUERY PLAN': string }> };
  return res.rows.map((r) => r['QUERY PLAN']).join('\n');
}

// ------------------------------------------------------------------ logging overhead

/** POST /v1/deploys on one fresh database: the same server with and without the request log writer. */
async function overheadRun() {
  console.log(`logging overhead on POST /v1/deploys (${ROUNDS} rounds, alternating)`);
  const d = await scratchDb();
  const dOwner = await owner(d.db, 'deploys');
  const deployTarget: Target = {
    method: 'POST',
    path: '/v1/deploys',
    headers: { 'x-api-key': dOwner.apiKey },
    body: () => JSON.stringify({ workspaceId: dOwner.workspaceId, commitSha: crypto.randomBytes(20).toString('hex'), ref: 'main', message: 'bench' }),
  };
  const on = await startServerChild(d.url);
  const off = await startServerChild(d.url, { BENCH_REQUEST_LOG: 'off' });
  if (on.requestLog !== 'RequestLogWriter' || off.requestLog !== 'none') throw new Error(`unexpected sinks: ${on.requestLog} / ${off.requestLog}`);
  await probe(on.url, deployTarget, 201);
  await probe(off.url, deployTarget, 201);
  // A discarded round first: both servers (and the database) warm before anything counts.
  await throughput('warm-up, request log off (discarded)', off, deployTarget, DURATION);
  await throughput('warm-up, request log on (discarded)', on, deployTarget, DURATION);
  const rounds: Array<{ off: Throughput; on: Throughput }> = [];
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate which goes first, so a table growing during the run favours neither.
    let mOff: Throughput;
    let mOn: Throughput;
    if (i % 2 === 0) {
      mOff = await throughput(`round ${i + 1}, request log off`, off, deployTarget, OVERHEAD_SECONDS);
      mOn = await throughput(`round ${i + 1}, request log on`, on, deployTarget, OVERHEAD_SECONDS);
    } else {
      mOn = await throughput(`round ${i + 1}, request log on`, on, deployTarget, OVERHEAD_SECONDS);
      mOff = await throughput(`round ${i + 1}, request log off`, off, deployTarget, OVERHEAD_SECONDS);
    }
    rounds.push({ off: mOff, on: mOn });
    await pause(500);
  }
  await on.stop(); // flushes its request log
  await off.stop();
  const logged = Number(((await d.db('request_logs').count({ n: '*' }).first()) as { n: number }).n);
  const deploysMade = Number(((await d.db('deploys').count({ n: '*' }).first()) as { n: number }).n);
  await d.db.destroy();
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const offRps = mean(rounds.map((r) => r.off.reqPerSec));
  const onRps = mean(rounds.map((r) => r.on.reqPerSec));
  const overhead = 1 - onRps / offRps;
  const ratios = rounds.map((r) => r.on.reqPerSec / r.off.reqPerSec).sort((a, b) => a - b);
  const medianRatio = ratios.length % 2 ? ratios[(ratios.length - 1) / 2] : (ratios[ratios.length / 2 - 1] + ratios[ratios.length / 2]) / 2;
  console.log(`  off ${fmt(offRps)} req/s, on ${fmt(onRps)} req/s: overhead ${pct(overhead)} (median round ${pct(1 - medianRatio)}); ${fmt(logged)} rows logged, ${fmt(deploysMade)} deploys`);
  return { rounds, offRps, onRps, overhead, medianRatio, logged, deploysMade };

}

// ------------------------------------------------------------------ main

async function main(): Promise<void> {
  if (process.env.BENCH_ONLY === 'overhead') {
    await overheadRun();
    return;
  }
  console.log(`bench:logs — ${fmt(ROWS)} log rows over 30 days in one workspace, PostgreSQL`);
  const s = await scratchDb();
  const o = await owner(s.db, 'logs');
  const now = Date.now();
  const seedSeconds = await seed(s.db, o.workspaceId, o.keyId, ROWS, now);
  // As autovacuum would have by then: seeding rewrote every hour's rollups once per batch.
  for (const t of ['request_logs', 'request_log_hourly', 'request_log_rollups']) await s.db.raw(`VACUUM ANALYZE ${t}`);
  const trigram = ((await s.db.raw(`SELECT COUNT(*)::int AS n FROM pg_indexes WHERE indexname LIKE 'request_logs_%_trgm_idx'`)) as { rows: Array<{ n: number }> }).rows[0].n === 2;
  const counts = (await s.db.raw(
    `SELECT (SELECT COUNT(*) FROM request_logs) AS logs, (SELECT COUNT(*) FROM request_log_rollups) AS rollups,
            (SELECT COUNT(*) FROM request_log_hourly) AS hourly,
            pg_size_pretty(pg_total_relation_size('request_logs')) AS logs_size,
            pg_size_pretty(pg_total_relation_size('request_log_rollups')) AS rollups_size`,
  )) as { rows: Array<{ logs: number; rollups: number; hourly: number; logs_size: string; rollups_size: string }> };
  const c = counts.rows[0];
  console.log(`  ${fmt(c.logs)} rows (${c.logs_size}), ${fmt(c.rollups)} rollup rows (${c.rollups_size}); seeding took ${fmt(seedSeconds, 1)} s`);

  // --- GET /v1/logs through the real server
  const server = await startServerChild(s.url);
  const ws = o.workspaceId;
  const cases: Array<[string, Record<string, string>]> = [
    ['days=30 (the meta target)', { workspace_id: ws, days: '30' }],
    ['days=7 (default)', { workspace_id: ws }],
    ['days=1 (hourly buckets)', { workspace_id: ws, days: '1' }],
    ['days=30, status=failed', { workspace_id: ws, days: '30', status: 'failed' }],
    ['days=30, status_code=409 (rare)', { workspace_id: ws, days: '30', status_code: '409' }],
    ['days=30, route + method', { workspace_id: ws, days: '30', route: '/v1/deploys/{id}', method: 'GET' }],
    ['days=30, q=paused (0.5% of rows)', { workspace_id: ws, days: '30', q: 'paused' }],
    ['days=30, q=deploys (most rows)', { workspace_id: ws, days: '30', q: 'deploys' }],
    ['days=7, q=paused', { workspace_id: ws, days: '7', q: 'paused' }],
    ['days=1, q=paused', { workspace_id: ws, days: '1', q: 'paused' }],
  ];
  // Warm the server and the database on every case first, so no row measures a cold start.
  for (const [, q] of cases) await load(server.url, { method: 'GET', path: `/v1/logs?${new URLSearchParams(q).toString()}`, headers: { 'x-api-key': o.apiKey } }, 1, 1);
  const lat: Latency[] = [];
  for (const [label, q] of cases) lat.push(await latency(server, o.apiKey, label, q));
  // A later page: the `before` cursor after 20 pages of 200.
  let before: string | undefined;
  for (let i = 0; i < 20; i++) {
    const t: Target = { method: 'GET', path: `/v1/logs?workspace_id=${ws}&days=30&limit=200${before ? `&before=${before}` : ''}`, headers: { 'x-api-key': o.apiKey } };
    const page = (await probe(server.url, t, 200)) as { data: Array<{ id: string }> };
    before = page.data[page.data.length - 1].id;
  }
  lat.push(await latency(server, o.apiKey, 'days=30, page 21 (`before`)', { workspace_id: ws, days: '30', before: before! }));
  await server.stop();

  const metaAlone = {
    days30: await metaTimings(s.db, { workspaceId: ws, days: 30 }, 300),
    failed: await metaTimings(s.db, { workspaceId: ws, days: 30, status: 'failed' }, 300),
    q: await metaTimings(s.db, { workspaceId: ws, days: 30, q: 'paused' }, 20),
  };
  console.log(`  meta alone: days=30 p99 ${metaAlone.days30.p99} ms; status=failed p99 ${metaAlone.failed.p99} ms; q=paused p99 ${metaAlone.q.p99} ms`);

  const w = logWindow(Date.now(), 30);
  const plans = {
    meta: await explain(
      s.db,
      `SELECT hour_start, total, errors FROM request_log_hourly WHERE workspace_id = ? AND hour_start >= ? AND hour_start < ?`,
      [ws, w.start, w.end],
    ),
    rollups: await explain(
      s.db,
      `SELECT hour_start AS at, SUM(total) AS total, SUM(CASE WHEN status_code >= 400 THEN total ELSE 0 END) AS errors
         FROM request_log_rollups WHERE workspace_id = ? AND hour_start >= ? AND hour_start < ? AND method = ? AND route = ? GROUP BY hour_start`,
      [ws, w.start, w.end, 'GET', '/v1/deploys/{id}'],
    ),
    firstPage: await explain(
      s.db,
      `SELECT * FROM request_logs WHERE workspace_id = ? AND created_at >= ? AND created_at < ? ORDER BY created_at DESC, id DESC LIMIT 51`,
      [ws, w.start, w.end],
    ),
    page: await explain(
      s.db,
      `SELECT * FROM request_logs WHERE workspace_id = ? AND created_at >= ? AND created_at < ? AND status_code >= 400
        ORDER BY created_at DESC, id DESC LIMIT 51`,
      [ws, w.start, w.end],
    ),
    q: await explain(
      s.db,
      `SELECT created_at - (created_at % 86400000) AS at, COUNT(*) AS total FROM request_logs
        WHERE workspace_id = ? AND created_at >= ? AND created_at < ?
          AND (LOWER(path) LIKE ? ESCAPE '\\' OR LOWER(error_message) LIKE ? ESCAPE '\\') GROUP BY 1`,
      [ws, w.start, w.end, '%paused%', '%paused%'],
    ),
  };
  // The same `q` meta without the trigram indexes (SQLite, or a PostgreSQL without pg_trgm).
  let noTrigram: { p50: number; p99: number; plan: string } | null = null;
  if (trigram) {
    await s.db.raw('DROP INDEX request_logs_path_trgm_idx');
    await s.db.raw('DROP INDEX request_logs_error_trgm_idx');
    await s.db.raw('ANALYZE request_logs');
    const t = await metaTimings(s.db, { workspaceId: ws, days: 30, q: 'paused' }, 20);
    const plan = await explain(
      s.db,
      `SELECT created_at - (created_at % 86400000) AS at, COUNT(*) AS total FROM request_logs
        WHERE workspace_id = ? AND created_at >= ? AND created_at < ?
          AND (LOWER(path) LIKE ? ESCAPE '\\' OR LOWER(error_message) LIKE ? ESCAPE '\\') GROUP BY 1`,
      [ws, w.start, w.end, '%paused%', '%paused%'],
    );
    noTrigram = { ...t, plan };
    console.log(`  q=paused meta without pg_trgm: p50 ${t.p50} ms, p99 ${t.p99} ms`);
  }
  const pgVersion = ((await s.db.raw('SHOW server_version')) as { rows: Array<{ server_version: string }> }).rows[0].server_version;
  await s.db.destroy();

  const oh = await overheadRun();
  const { rounds, offRps, onRps, overhead, medianRatio, logged, deploysMade } = oh;

  // --- report
  const metaCase = lat[0];
  const qCase = lat[6];
  const row = (l: Latency) =>
    `| ${l.label} | ${l.from} | ${l.p50} | ${l.p99} | ${l.max} | ${fmt(l.reqPerSec)} | ${fmt(l.meta.total)} | ${fmt(l.meta.errors)} | ${l.meta.buckets} |`;
  const lines = [
    '# Request logs benchmark',
    '',
    ...machine(),
    `- PostgreSQL ${pgVersion} on the same machine, default settings; a fresh scratch database per part, dropped afterwards`,
    `- Data: ${fmt(c.logs)} request log rows in one workspace, created_at uniformly over the last 30 days (${c.logs_size} with indexes), written through \`writeRequestLogs\` (the writer's own path: rows and rollups in one transaction) in batches of 10,000: ${fmt(seedSeconds, 0)} s, ${fmt(c.logs / seedSeconds)} rows/s; ${fmt(c.hourly)} request_log_hourly rows, ${fmt(c.rollups)} request_log_rollups rows (${c.rollups_size}). pg_trgm indexes on LOWER(path) and LOWER(error_message): ${trigram ? 'yes' : 'no'}.`,
    `- Mix: ${KINDS.map((k) => `${k.method} ${k.route} ${k.status} (${pct(k.weight / TOTAL_WEIGHT)})`).join(', ')}.`,
    `- GET /v1/logs: the real server (startServer, as server/main.ts) as a child process; autocannon in the benchmark process with ${LATENCY_CONNECTIONS} connection(s), i.e. latency without queueing; 2 s warm-up, then ${LATENCY_SECONDS} s per row. Every response has \`meta\` (total, errors, buckets, has_more) and the first page of 50 rows.`,
    `- POST /v1/deploys: ${CONNECTIONS} connections, a new commitSha per request (every request creates a production deploy and queues its check and crawl). One discarded ${DURATION} s round per server first, then ${ROUNDS} rounds of ${WARMUP} s warm-up + ${OVERHEAD_SECONDS} s measured per server, alternating which goes first.`,
    '',
    '## Results',
    '',
    `- **Meta query: p99 ${metaCase.p99} ms** for the whole \`GET /v1/logs?days=30\` request (p50 ${metaCase.p50} ms). Target: under ${META_TARGET_MS} ms: **${metaCase.p99 < META_TARGET_MS ? 'met' : 'not met'}**. The meta computation alone (300 sequential calls in the benchmark process): p50 ${metaAlone.days30.p50} ms, p99 ${metaAlone.days30.p99} ms.`,
    `- **\`q\` search: p99 ${qCase.p99} ms** for \`days=30&q=paused\` (p50 ${qCase.p50} ms); for \`q=deploys\`, which matches most rows, p99 ${lat[7].p99} ms. With \`q\` the meta counts the matching rows (no rollup knows substrings): the pg_trgm indexes let a selective term read only its matches (meta alone p50 ${metaAlone.q.p50} ms, p99 ${metaAlone.q.p99} ms${noTrigram ? `; without them, as on SQLite or a PostgreSQL without pg_trgm, the same meta reads the whole window: p50 ${noTrigram.p50} ms, p99 ${noTrigram.p99} ms` : ''}); a term that matches most rows reads most of the window either way.`,
    `- **Logging overhead on \`POST /v1/deploys\`: ${pct(overhead)}** of throughput (${fmt(offRps)} req/s with the discarding sink, ${fmt(onRps)} req/s with the request log writer, mean of ${ROUNDS} rounds; the median round's overhead is ${pct(1 - medianRatio)}). Target: under ${pct(OVERHEAD_TARGET)}: **${overhead < OVERHEAD_TARGET ? 'met' : 'not met'}**. The logging server wrote ${fmt(logged)} log rows (its measured requests, warm-ups and probe); ${fmt(deploysMade)} deploys in all.`,
    '',
    '### GET /v1/logs',
    '',
    '| case | meta from | p50 (ms) | p99 (ms) | max (ms) | req/s | meta.total | meta.errors | buckets |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...lat.map(row),
    '',
    `Meta alone with \`status=failed\` (rollups): p50 ${metaAlone.failed.p50} ms, p99 ${metaAlone.failed.p99} ms.`,
    '',
    '### POST /v1/deploys with and without the request log',
    '',
    '| round | off req/s | on req/s | off p99 (ms) | on p99 (ms) | on / off |',
    '|---|---:|---:|---:|---:|---:|',
    ...rounds.map((r, i) => `| ${i + 1} | ${fmt(r.off.reqPerSec)} | ${fmt(r.on.reqPerSec)} | ${r.off.p99} | ${r.on.p99} | ${pct(r.on.reqPerSec / r.off.reqPerSec)} |`),
    `| mean | ${fmt(offRps)} | ${fmt(onRps)} | | | ${pct(onRps / offRps)} |`,
    '',
    '"off" is the same server started with the discarding sink (`BENCH_REQUEST_LOG=off`), "on" the default `RequestLogWriter`; both on one fresh database, one under load at a time.',
    '',
    '## Plans at this size',
    '',
    'Meta from request_log_hourly (`days=30`, no filter or `status` only):',
    '',
    '```',
    plans.meta,
    '```',
    '',
    'Meta from request_log_rollups (`days=30&method=GET&route=/v1/deploys/{id}`):',
    '',
    '```',
    plans.rollups,
    '```',
    '',
    'First page, no filter:',
    '',
    '```',
    plans.firstPage,
    '```',
    '',
    'First page of `status=failed` (partial index request_logs_failed_idx, read in its order):',
    '',
    '```',
    plans.page,
    '```',
    '',
    `Meta with \`q=paused\` (counts rows; pg_trgm indexes ${trigram ? 'present (migration 000303)' : 'absent: pg_trgm unavailable'}):`,
    '',
    '```',
    plans.q,
    '```',
    ...(noTrigram ? ['', 'The same without the pg_trgm indexes:', '', '```', noTrigram.plan, '```'] : []),
    '',
    'With one workspace in the database every rollup row belongs to it, so the planner scans the rollup tables instead of their (workspace_id, hour_start, ...) unique indexes; with many workspaces it reads them through those indexes.',
  ];
  fs.mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
  fs.writeFileSync(path.join(ROOT, 'bench', 'results', 'logs.md'), lines.join('\n') + '\n');
  console.log('\nwrote bench/results/logs.md');
}

const cleanup = async () => {
  for (const c of children) c.kill('SIGKILL');
  await dropScratch();
};
process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
try {
  await main();
} catch (err) {
  process.exitCode = 1;
  console.error(err);
} finally {
  await cleanup();
}
