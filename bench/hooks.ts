// npm run bench:hooks
//
// Inbound repository hooks on SQLite and PostgreSQL (BENCH_PG_URL, default the local server's
// `postgres` database, where a scratch database is created; BENCH_ENGINES=sqlite skips it), through
// a real API server process and a real worker process:
// 1. BENCH_HOOKS (default 2,000) signed GitHub push deliveries, BENCH_CONCURRENCY (default 16) at a time, each to a mapped
//    branch with its own delivery id, after BENCH_WARMUP (default 300) discarded ones that let
//    the server compile its validators and JIT its hot paths: accepted per second and the latency
//    of each answer (target: p99 at most 100 ms);
// 2. BENCH_PUSHES (default 20) pushes one after another, each timed from its POST to the moment
//    its deploy is readable with its changes (the compare against a local stub GitHub host).
// Writes bench/results/hooks.md.
import crypto from 'node:crypto';
import { createUser, createApiKey } from '../core/access/index.ts';
import { createWorkspace } from '../core/workspaces/index.ts';
import { bindModels, createDb, migrateLatest } from '../core/db/index.ts';
import { StubRepoHost } from '../test/support/repo-hosts.ts';
import { startWorkerProcess, killAll } from '../test/support/processes.ts';
import { machineLines, startServerChild, writeReport } from './lib/harness.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const HOOKS = Number(process.env.BENCH_HOOKS || 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
const ENGINES = (process.env.BENCH_ENGINES || 'sqlite,postgres').split(',') as Array<'sqlite' | 'postgres'>;
const PG_URL = process.env.BENCH_PG_URL || 'postgres://root@127.0.0.1:5432/postgres';
const PUSHES = Number(process.env.BENCH_PUSHES || 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY || 16);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

interface Result {
  engine: 'sqlite' | 'postgres';
  perSecond: number;
  seconds: number;
  latencies: number[];
  toDeploy: number[];
  cpuMsPerHook: number;
  queriesPerHook: number;
}

/** A scratch database of the engine: a file, or a database created on the PostgreSQL server. */
async function scratchDatabase(engine: 'sqlite' | 'postgres'): Promise<{ url: string; drop: () => Promise<void> }> {
  if (engine === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-hooks-'));
    return { url: `sqlite:${path.join(dir, 'bench.db')}`, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `bench_hooks_${process.pid}_${Date.now()}`;
  const admin = createDb(PG_URL);
  await admin.raw(`CREATE DATABASE ${name}`);
  await admin.destroy();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const a = createDb(PG_URL);
      await a.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.destroy();
    },
  };
}

async function measure(engine: 'sqlite' | 'postgres'): Promise<Result> {
  const scratch = await scratchDatabase(engine);
  const dbUrl = scratch.url;
  const env = { ALLOW_PRIVATE_NETWORK: '1', SECRETS_KEY: crypto.randomBytes(32).toString('base64'), SITE_CHECK_DELAY_SECONDS: '86400', CRAWL_DELAY_SECONDS: '86400' };
  const db = createDb(dbUrl);
  await migrateLatest(db);
  bindModels(db);
  const user = await createUser(db, `bench-${Date.now()}@example.com`);
  const ws = await createWorkspace(db, { accountId: user.accountId, userId: user.userId, input: { name: `bench ${Date.now()}`, website: 'https://www.example.com' } });
  const key = await createApiKey(db, { userId: user.userId, scopes: ['workspaces'] });
  await db.destroy();

  const host = await StubRepoHost.start('github', 'acme/site', 'ghp_benchToken0000000000');
  // The real server as every benchmark runs it (bench/lib/serve.ts): silent and in production
  // mode, so no log line is written here and parsed by this process on the same two cores, with
  // its CPU time readable (BENCH_CPU_PROF=<dir> profiles it).
  const server = await startServerChild('app', dbUrl, env);
  const created = await fetch(`${server.url}/v1/workspaces/${ws.id}/connections`, {
    method: 'POST',
    headers: { 'x-api-key': key.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ provider: 'github', baseUrl: host.baseUrl, repository: 'acme/site', token: host.token, branches: { main: 'production' } }),
  });
  const connection = (await created.json()) as { id: string; webhookSecret: string };
  const send = async (payload: unknown) => {
    const raw = JSON.stringify(payload);
    const started = performance.now();
    const res = await fetch(`${server.url}/v1/hooks/github/${connection.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': crypto.randomUUID(), 'x-hub-signature-256': `sha256=${crypto.createHmac('sha256', connection.webhookSecret).update(raw).digest('hex')}` },
      body: raw,
    });
    await res.arrayBuffer();
    if (res.status !== 202) throw new Error(`hook answered ${res.status}`);
    return performance.now() - started;
  };
  const push = (before: string, after: string) => ({ ref: 'refs/heads/main', before, after, commits: [{ id: after, message: 'bench' }], head_commit: { id: after, message: 'bench' } });

  // 1. Accepted per second (no worker yet: the queue only grows).
  const base = host.commit(null, []);
  const heads = Array.from({ length: WARMUP + HOOKS }, () => host.commit(base, [{ path: 'src/pages/index.astro', status: 'modified', patch: '@@ -1 +1 @@\n-<title>a</title>\n+<title>b</title>' }]));
  const sendAll = async (from: number, to: number, latencies: number[]) => {
    let next = from;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < to) latencies.push(await send(push(base, heads[next++])));
    }));
  };
  await sendAll(0, Math.min(WARMUP, heads.length), []);
  const latencies: number[] = [];
  const before = await server.counters();
  const t0 = performance.now();
  await sendAll(Math.min(WARMUP, heads.length), heads.length, latencies);
  const seconds = (performance.now() - t0) / 1000;
  const after = await server.counters();
  const cpuMsPerHook = (after.cpuMicros - before.cpuMicros) / 1000 / HOOKS;
  const queriesPerHook = (after.queries - before.queries) / HOOKS;
  latencies.sort((a, b) => a - b);

  // 2. Push to deploy with changes, one at a time, with a worker.
  const q = createDb(dbUrl);
  bindModels(q);
  await q('jobs').where({ kind: 'repository_deploy', state: 'queued' }).del();
  const worker = await startWorkerProcess(dbUrl, env);
  const toDeploy: number[] = [];
  let parent = base;
  for (let i = 0; i < PUSHES; i++) {
    const head = host.commit(parent, [{ path: `src/pages/p${i}.astro`, status: 'added', patch: '@@ -0,0 +1 @@\n+<link rel="canonical" href="/x" />' }]);
    const started = performance.now();
    await send(push(parent, head));
    for (;;) {
      const row = await q('deploys').where({ commit_sha: head }).first('changes');
      const changes = row && (typeof row.changes === 'string' ? JSON.parse(row.changes) : row.changes);
      if (changes && changes.length > 0) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    toDeploy.push(performance.now() - started);
    parent = head;
  }
  toDeploy.sort((a, b) => a - b);
  await q.destroy();
  await worker.stop();
  await server.stop();
  await host.close();
  await killAll();

  await scratch.drop();
  return { engine, perSecond: HOOKS / seconds, seconds, latencies, toDeploy, cpuMsPerHook, queriesPerHook };
}

async function main(): Promise<void> {
  const results: Result[] = [];
  for (const engine of ENGINES) results.push(await measure(engine));
  const lines = [
    '# bench:hooks',
    '',
    ...machineLines('npm run bench:hooks'),
    '',
    `One API server process and one worker process per engine (default settings), a local stub GitHub host. ${WARMUP} deliveries warm the server up first and are not counted.`,
    '',
    '| engine | measure | value | target |',
    '|---|---|---|---|',
    ...results.flatMap((r) => [
      `| ${r.engine} | signed push deliveries accepted, ${CONCURRENCY} at a time | ${Math.round(r.perSecond)}/s (${HOOKS} in ${r.seconds.toFixed(1)} s) | |`,
      `| ${r.engine} | answer latency p50 / p99 / max | ${pct(r.latencies, 50).toFixed(1)} / ${pct(r.latencies, 99).toFixed(1)} / ${r.latencies.at(-1)!.toFixed(1)} ms | p99 ≤ 100 ms: ${pct(r.latencies, 99) <= 100 ? 'met' : 'NOT met'} |`,
      `| ${r.engine} | server CPU and queries per accepted delivery | ${r.cpuMsPerHook.toFixed(2)} ms, ${r.queriesPerHook.toFixed(1)} queries | |`,
      `| ${r.engine} | push to deploy with its changes (compare against the stub), p50 / p99 over ${PUSHES} | ${pct(r.toDeploy, 50).toFixed(0)} / ${pct(r.toDeploy, 99).toFixed(0)} ms | |`,
    ]),
  ];
  writeReport('hooks.md', lines);
  console.log(lines.join('\n'));
}

void main().catch(async (err) => {
  console.error(err);
  await killAll();
  process.exit(1);
});
