// npm run bench:deploys
//
// Part 1, POST /v1/deploys against the yardsticks of ../shared/peers, in one run, measured by the
// peers' own load generator (bench/lib/peers.ts) so every row is taken the same way:
//   - the bare Koa route `server-koa.mjs pg-tx-job`: the deploy upsert and one job row in one
//     transaction, the simplest code that could do the job (and its SQLite twin,
//     bench/peers/server-koa-sqlite-tx-job.mjs);
//   - Lighthouse CI server 0.15.1 creating a build (`POST /v1/projects/:id/builds`, PostgreSQL);
//   - sitehealth as `npm start` runs it: server and an idle worker, request logging on, LOG_LEVEL
//     info to a pipe; each request a new production deploy with 5 changes.
// Every server starts fresh for each measurement on an empty database; the cases take turns,
// BENCH_ROUNDS rounds (default 3); the report gives each round and the medians.
// Targets (PostgreSQL): at least 60% of the bare route's 2xx/s, at least 1.5x Lighthouse CI's,
// p99 at most 1.5x the bare route's. SQLite: at least 60% of the bare route on SQLite.
//
// Part 2, GET /v1/deploys?workspace_id=...&limit=50 with 1,000 deploys in the workspace, then
// 100,000 (bulk-seeded, deployed_at spread over time, a finished check per production deploy),
// through the real server (bench/lib/harness.ts). Target: p99 at 100k within 1.5x of p99 at 1k.
//
// Writes bench/results/deploys.md. Environment: BENCH_ROUNDS (3), BENCH_ENGINES
// (sqlite,postgres), BENCH_PARTS (post,list), BENCH_LIST_SIZES (1000,100000), and the peers'
// knobs (BENCH_DURATION_S, BENCH_WARMUP_S, BENCH_CONNECTIONS); BENCH_ONLY=<text>[|<text>...] runs only
// the POST cases whose name holds one of them, for profiling.

import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { type Db, isPostgres, runSql } from '../core/db/index.ts';
import { newId } from '../core/platform/index.ts';
import {
  ROOT,
  SETTINGS,
  Scratch,
  addWorkspace,
  createOwner,
  enginesToRun,
  fmt,
  machineLines,
  measure,
  pct,
  probe,
  runBenchmark,
  startServerChild,
  table,
  writeReport,
  type Engine,
  type Measurement,
  type Target,
} from './lib/harness.ts';
import { importPeers, preparePeers, type PeerLib, type PeerLoad, type PeerSchema } from './lib/peers.ts';
import { BENCH_RATE_LIMIT } from './lib/limits.ts';

const TARGETS = { ofBare: 0.6, ofLhci: 1.5, p99OfBare: 1.5, sqliteOfBare: 0.6, listP99: 1.5, limitCost: 0.1 };
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const PARTS = (process.env.BENCH_PARTS || 'post,list').split(',');
const LIST_LIMIT = 50;
const SIZES = (process.env.BENCH_LIST_SIZES || '1000,100000').split(',').map(Number);
const DAY_MS = 86_400_000;
/** Seeded workspaces deploy about this often: 1,000 deploys span 10 days, 100,000 span 1,000. */
const DEPLOYS_PER_DAY = 100;

const CHANGES = [
  { path: 'src/pages/blog/[slug].tsx', category: 'page', signals: [{ kind: 'canonical', change: 'removed', line: 12 }, { kind: 'title', change: 'added', line: 8 }] },
  { path: 'src/components/Header.tsx', category: 'component', signals: [{ kind: 'link', change: 'added', line: 40 }, { kind: 'image', change: 'added' }] },
  { path: 'src/layouts/Base.astro', category: 'template', signals: [{ kind: 'meta_robots', change: 'added', line: 5 }, { kind: 'hreflang', change: 'removed', line: 9 }] },
  { path: 'public/robots.txt', category: 'robots', signals: [{ kind: 'robots_rule', change: 'added', line: 3 }, { kind: 'robots_rule', change: 'removed', line: 4 }] },
  { path: 'next.config.js', category: 'config', signals: [{ kind: 'redirect', change: 'added', line: 22 }, { kind: 'route', change: 'removed', line: 30 }] },
];
const CHANGES_JSON = JSON.stringify(CHANGES);

/** A POST /v1/deploys body with a new commit sha every call. */
function deployBody(workspaceId: string): () => string {
  const head = `{"workspaceId":"${workspaceId}","commitSha":"`;
  const tail = `","ref":"main","message":"Ship the new blog layout","changes":${CHANGES_JSON}}`;
  return () => head + crypto.randomBytes(20).toString('hex') + tail;
}

function listTarget(workspaceId: string, apiKey: string): Target {
  return { method: 'GET', path: `/v1/deploys?workspace_id=${workspaceId}&limit=${LIST_LIMIT}`, headers: { 'x-api-key': apiKey } };
}

/**
 * Bulk-inserts `count` deploys into a workspace, deployed_at uniformly over the last `spanMs`
 * (so new ones interleave with those already there), 85% production with a finished check.
 */
async function seedDeploys(db: Db, workspaceId: string, count: number, spanMs: number): Promise<void> {
  // Knex writes a multi-row insert on SQLite as one compound SELECT, limited to 500 terms.
  const BATCH = isPostgres(db) ? 1000 : 400;
  const now = Date.now();
  await db.transaction(async (trx) => {
    for (let done = 0; done < count; done += BATCH) {
      const deploys: Array<Record<string, unknown>> = [];
      const checks: Array<Record<string, unknown>> = [];
      for (let i = 0; i < Math.min(BATCH, count - done); i++) {
        const deployedAt = now - Math.floor(Math.random() * spanMs);
        const id = newId();
        const environment = Math.random() < 0.85 ? 'production' : 'staging';
        deploys.push({
          id,
          workspace_id: workspaceId,
          commit_sha: crypto.randomBytes(20).toString('hex'),
          environment,
          ref: 'main',
          message: `Deploy ${done + i}`,
          source: 'cli',
          deployed_at: deployedAt,
          changes: CHANGES_JSON,
          created_at: deployedAt,
          updated_at: deployedAt,
        });
        if (environment === 'production') {
          checks.push({
            id: newId(),
            workspace_id: workspaceId,
            deploy_id: id,
            state: 'finished',
            trigger_kind: 'deploy',
            scheduled_at: deployedAt + 120_000,
            started_at: deployedAt + 121_000,
            finished_at: deployedAt + 150_000,
            pages: '[]',
            findings: null,
            error: null,
            created_at: deployedAt,
          });
        }
      }
      await trx('deploys').insert(deploys);
      if (checks.length) await trx('site_checks').insert(checks);
    }
  });
  // What autovacuum's analyze would do shortly after a bulk load; SQLite keeps no statistics
  // unless asked, and the server's SQLite database is used as it comes.
  if (isPostgres(db)) await db.raw('ANALYZE deploys, site_checks');
}


// ---------------------------------------------------------------------------------------------
// Part 1: POST /v1/deploys vs the peers

interface PostRow {
  case: string;
  engine: Engine;
  rounds: PeerLoad[];
}

/** Every process below `pid` (Linux /proc), with its command line. */
function descendants(pid: number): Array<{ pid: number; cmd: string }> {
  const parentOf = new Map<number, number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      parentOf.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const out: Array<{ pid: number; cmd: string }> = [];
  for (const [p] of parentOf) {
    for (let up = parentOf.get(p); up !== undefined && up > 1; up = parentOf.get(up)) {
      if (up !== pid) continue;
      try {
        out.push({ pid: p, cmd: fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ') });
      } catch {
        // gone
      }
      break;
    }
  }
  return out;
}

/** sitehealth under `npm start` (server + worker), on a port of its own; resolves when /ready answers. */
async function startSitehealth(databaseUrl: string, extraEnv: Record<string, string>): Promise<{ url: string; pids: Record<string, number>; stop(): Promise<void>; output(): string }> {
  const port = 20000 + crypto.randomInt(20000);
  const child: ChildProcess = spawn('npm', ['start'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (d: Buffer) => (tail = (tail + d.toString()).slice(-4000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${tail}`);
    const ok = await fetch(`${url}/ready`).then((r) => r.ok, () => false);
    if (ok) break;
    if (i > 300) throw new Error(`npm start not ready after 30 s:\n${tail}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const procs = descendants(child.pid!);
  const server = procs.find((p) => p.cmd.includes('server/main.ts'));
  const worker = procs.find((p) => p.cmd.includes('worker/main.ts'));
  if (!server || !worker) throw new Error(`could not find the server and worker processes under npm start: ${JSON.stringify(procs)}`);
  return {
    url,
    pids: { server: server.pid, worker: worker.pid },
    output: () => tail,
    async stop() {
      const exited = new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
      // scripts/start.ts passes SIGTERM on to both children and exits after them; npm follows.
      const starter = procs.find((p) => p.cmd.includes('scripts/start.ts'));
      process.kill(starter?.pid ?? child.pid!, 'SIGTERM');
      await exited;
    },
  };
}

async function measureBarePg(lib: PeerLib, schema: PeerSchema): Promise<PeerLoad> {
  const DB = 'bench_http';
  await lib.resetDatabase(DB);
  await lib.checkpoint();
  const srv = await lib.startServer('server-koa.mjs', ['pg-tx-job', JSON.stringify({ db: DB })]);
  try {
    return await lib.load({
      url: `http://127.0.0.1:${srv.port}/v1/deploys`,
      method: 'POST',
      makeBody: schema.makeDeployFactory(),
      pids: { server: srv.pid },
      beforeAttempt: async () => {
        await lib.withClient(DB, (c) => c.query('truncate table deploys, jobs restart identity'));
      },
    });
  } finally {
    await srv.stop();
  }
}

async function measureBareSqlite(lib: PeerLib, schema: PeerSchema): Promise<PeerLoad> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-bench-bare-'));
  const file = path.join(dir, 'deploys.sqlite');
  const srv = await lib.startServer('server-koa-sqlite-tx-job.mjs', [JSON.stringify({ file })]);
  try {
    return await lib.load({
      url: `http://127.0.0.1:${srv.port}/v1/deploys`,
      method: 'POST',
      makeBody: schema.makeDeployFactory(),
      pids: { server: srv.pid },
      beforeAttempt: async () => {
        const db = new Database(file);
        db.exec('delete from deploys; delete from jobs');
        db.pragma('wal_checkpoint(truncate)');
        db.close();
      },
    });
  } finally {
    await srv.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A build body shaped like what `lhci upload` sends, as ../shared/peers/run-lhci.mjs makes it. */
function makeBuildFactory(): () => string {
  const tag = Math.floor(Math.random() * 0xffffff)
    .toString(16)
    .padStart(6, '0');
  let n = 0;
  return () => {
    n++;
    return JSON.stringify({
      hash: (tag + n.toString(16)).padStart(40, '0'),
      branch: 'main',
      externalBuildUrl: `https://ci.example.com/r/${n}`,
      commitMessage: 'deploy',
      author: 'CI <ci@example.com>',
      avatarUrl: '',
      ancestorHash: ''.padStart(40, '0'),
      committedAt: '2026-11-21T04:00:00.000Z',
      runAt: '2026-11-21T04:03:12.000Z',
      lifecycle: 'unsealed',
    });
  };
}

async function measureLhci(lib: PeerLib): Promise<PeerLoad> {
  const DB = 'bench_lhci';
  await lib.resetDatabase(DB);
  await lib.checkpoint();
  const storage = { storageMethod: 'sql', sqlDialect: 'postgres', sqlConnectionUrl: lib.pgUrl(DB) };
  const srv = await lib.startServer('server-lhci.mjs', [JSON.stringify(storage)], { readyTimeoutMs: 60000 });
  try {
    const base = `http://127.0.0.1:${srv.port}`;
    const res = await fetch(`${base}/v1/projects`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `bench-${Date.now()}`, externalUrl: 'https://example.com/repo', slug: '' }),
    });
    const project = (await res.json()) as { id: string; token: string };
    return await lib.load({ url: `${base}/v1/projects/${project.id}/builds`, method: 'POST', headers: { 'x-lhci-build-token': project.token }, makeBody: makeBuildFactory(), pids: { server: srv.pid } });
  } finally {
    await srv.stop();
  }
}

// Limits counted but out of the load's reach (bench/lib/limits.ts), against limits off.
const LIMITS_ON = { RATE_LIMIT_PER_MINUTE: BENCH_RATE_LIMIT };
const LIMITS_OFF = { RATE_LIMIT_PER_MINUTE: '0' };

async function measureSitehealth(lib: PeerLib, scratch: Scratch, engine: Engine, env: Record<string, string> = LIMITS_ON): Promise<PeerLoad> {
  const s = await scratch.create(engine);
  const owner = await createOwner(s.db, 'deploys');
  const app = await startSitehealth(s.url, env);
  try {
    const target: Target = { method: 'POST', path: '/v1/deploys', headers: { 'x-api-key': owner.apiKey }, body: deployBody(owner.workspaceId) };
    await probe(app.url, target, 201);
    const r = await lib.load({ url: `${app.url}/v1/deploys`, method: 'POST', headers: { 'x-api-key': owner.apiKey }, makeBody: deployBody(owner.workspaceId), pids: app.pids });
    // The work was done: per deploy a queued check and crawl with their two jobs (one
    // statement, one snapshot: requests cut off by the load generator may still be committing).
    const [counts] = await runSql<Record<string, number | string>>(
      s.db,
      'SELECT (SELECT count(*) FROM deploys) AS deploys, (SELECT count(*) FROM site_checks) AS checks, (SELECT count(*) FROM site_crawls) AS crawls, (SELECT count(*) FROM jobs) AS jobs',
    );
    const [deploys, checks, crawls, jobs] = [counts.deploys, counts.checks, counts.crawls, counts.jobs].map(Number);
    if (checks !== deploys || crawls !== deploys || jobs < deploys * 2) throw new Error(`${deploys} deploys but ${checks} checks, ${crawls} crawls, ${jobs} jobs: the route did not do its work`);
    return r;
  } catch (err) {
    console.error(app.output().slice(-1500));
    throw err;
  } finally {
    await app.stop();
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const NO_LIMITS = 'the same with rate limits off (`RATE_LIMIT_PER_MINUTE=0`), for their cost';

async function benchPost(scratch: Scratch): Promise<{ rows: PostRow[]; lines: string[] }> {
  preparePeers();
  const { lib, schema } = await importPeers();
  const engines = enginesToRun();
  const cases: Array<{ case: string; engine: Engine; run: () => Promise<PeerLoad> }> = [];
  if (engines.includes('postgres')) {
    cases.push({ case: 'bare Koa route, upsert + job in one transaction (peers `server-koa.mjs pg-tx-job`)', engine: 'postgres', run: () => measureBarePg(lib, schema) });
    cases.push({ case: 'Lighthouse CI server 0.15.1, `POST /v1/projects/:id/builds` (peers `server-lhci.mjs`)', engine: 'postgres', run: () => measureLhci(lib) });
    cases.push({ case: 'sitehealth `POST /v1/deploys` under `npm start`, production, 5 changes', engine: 'postgres', run: () => measureSitehealth(lib, scratch, 'postgres') });
    cases.push({ case: NO_LIMITS, engine: 'postgres', run: () => measureSitehealth(lib, scratch, 'postgres', LIMITS_OFF) });
  }
  if (engines.includes('sqlite')) {
    cases.push({ case: 'bare Koa route, upsert + job in one transaction, on SQLite (`bench/peers/server-koa-sqlite-tx-job.mjs`)', engine: 'sqlite', run: () => measureBareSqlite(lib, schema) });
    cases.push({ case: 'sitehealth `POST /v1/deploys` under `npm start`, production, 5 changes', engine: 'sqlite', run: () => measureSitehealth(lib, scratch, 'sqlite') });
    cases.push({ case: NO_LIMITS, engine: 'sqlite', run: () => measureSitehealth(lib, scratch, 'sqlite', LIMITS_OFF) });
  }
  // BENCH_ONLY keeps the cases whose name contains one of its |-separated texts (a profiling aid;
  // the report needs them all).
  const only = process.env.BENCH_ONLY?.split('|');
  if (only) cases.splice(0, cases.length, ...cases.filter((c) => only.some((o) => c.case.includes(o))));
  const rows: PostRow[] = cases.map((c) => ({ case: c.case, engine: c.engine, rounds: [] }));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [i, c] of cases.entries()) {
      const r = await c.run();
      if (r.non2xx || r.errors || r.timeouts) throw new Error(`${c.case} (${c.engine}): ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts: ${JSON.stringify(r.status_codes)}`);
      rows[i].rounds.push(r);
      console.log(`round ${round}, ${c.engine}, ${c.case}: ${fmt(r.ok_per_s)} 2xx/s, p99 ${r.p99_ms} ms, cores ${JSON.stringify(r.cpu)}`);
    }
  }

  const ok = (r: PostRow) => median(r.rounds.map((x) => x.ok_per_s));
  const p99 = (r: PostRow) => median(r.rounds.map((x) => x.p99_ms));
  const cores = (r: PostRow, k: string) => median(r.rounds.map((x) => Number(x.cpu[k] ?? 0)));
  const lines = [
    '## POST /v1/deploys vs the bare route and Lighthouse CI',
    '',
    `Measured with the peers' own load generator (\`../shared/peers/lib.mjs\` \`load\`: autocannon ${lib.versions(['autocannon']).autocannon}, ${lib.CONNECTIONS} connections, ${lib.WARMUP_S} s warm-up, ${lib.DURATION_S} s window, percentiles from per-response timings, a window re-measured when other work used more than 0.3 cores). Every server starts for its measurement on an empty database; the cases take turns, ${ROUNDS} round(s). sitehealth runs as \`npm start\` does (migrations, then the server and an idle worker as child processes, request logging on, LOG_LEVEL=info to a pipe, rate limits counted with the limit out of the load's reach; the last sitehealth row of each engine turns them off). Its body is a new production deploy with 5 changes (about 1 KB); the peers send their own bodies (about 320 bytes). sitehealth's request is authenticated (API key, role) and validated against the OpenAPI schema, and records the deploy, a site check and a crawl with their two jobs, and the \`deploy.recorded\` event with its fan-out job; the bare route records the deploy and one job.`,
    '',
    '| engine | case | 2xx/s (median) | p50 (ms) | p99 (ms) | server cores | postgres cores | 2xx/s by round |',
    '|---|---|---:|---:|---:|---:|---:|---|',
    ...rows.map((r) => `| ${r.engine} | ${r.case} | ${fmt(ok(r))} | ${median(r.rounds.map((x) => x.p50_ms)).toFixed(1)} | ${p99(r).toFixed(1)} | ${cores(r, 'server_cores').toFixed(2)} | ${r.engine === 'postgres' ? cores(r, 'postgres_cores').toFixed(2) : '-'} | ${r.rounds.map((x) => fmt(x.ok_per_s)).join(' / ')} |`),
    '',
    'Targets:',
    '',
  ];
  const find = (engine: Engine, prefix: string) => rows.find((r) => r.engine === engine && r.case.startsWith(prefix));
  const limitCost = (engine: Engine, name: string) => {
    const on = find(engine, 'sitehealth');
    const off = find(engine, NO_LIMITS);
    if (!on || !off) return;
    const cost = 1 - ok(on) / ok(off);
    lines.push(`- ${name}, cost of rate limiting (2xx/s with limits counted against 2xx/s with them off): ${pct(cost)} (target under ${pct(TARGETS.limitCost)}; by round ${on.rounds.map((x, i) => pct(1 - x.ok_per_s / off.rounds[i].ok_per_s)).join(' / ')}): ${cost < TARGETS.limitCost ? 'met' : 'MISSED'}`);
  };
  const byRound = (a: PostRow, b: PostRow, f: (x: PeerLoad) => number) => a.rounds.map((x, i) => (f(x) / f(b.rounds[i])).toFixed(2)).join(' / ');
  const ours = find('postgres', 'sitehealth');
  const bare = find('postgres', 'bare');
  const lhci = find('postgres', 'Lighthouse');
  if (ours && bare && lhci) {
    const ofBare = ok(ours) / ok(bare);
    const ofLhci = ok(ours) / ok(lhci);
    const p99Ratio = p99(ours) / p99(bare);
    lines.push(`- PostgreSQL, 2xx/s of the bare route: ${pct(ofBare)} (target ${pct(TARGETS.ofBare)}; by round ${byRound(ours, bare, (x) => x.ok_per_s)}): ${ofBare >= TARGETS.ofBare ? 'met' : 'MISSED'}`);
    lines.push(`- PostgreSQL, 2xx/s of Lighthouse CI's: ${ofLhci.toFixed(2)}x (target ${TARGETS.ofLhci}x; by round ${byRound(ours, lhci, (x) => x.ok_per_s)}): ${ofLhci >= TARGETS.ofLhci ? 'met' : 'MISSED'}`);
    lines.push(`- PostgreSQL, p99 against the bare route's: ${p99Ratio.toFixed(2)}x (target at most ${TARGETS.p99OfBare}x; by round ${byRound(ours, bare, (x) => x.p99_ms)}): ${p99Ratio <= TARGETS.p99OfBare ? 'met' : 'MISSED'}`);
  }
  limitCost('postgres', 'PostgreSQL');
  limitCost('sqlite', 'SQLite');
  const oursS = find('sqlite', 'sitehealth');
  const bareS = find('sqlite', 'bare');
  if (oursS && bareS) {
    const r = ok(oursS) / ok(bareS);
    lines.push(`- SQLite, 2xx/s of the bare route on SQLite: ${pct(r)} (target ${pct(TARGETS.sqliteOfBare)}; by round ${byRound(oursS, bareS, (x) => x.ok_per_s)}): ${r >= TARGETS.sqliteOfBare ? 'met' : 'MISSED'}`);
  }
  return { rows, lines };
}

// ---------------------------------------------------------------------------------------------
// Part 2: list latency by workspace size

async function benchList(scratch: Scratch, engine: Engine): Promise<Array<{ size: number; loaded: Measurement; single: Measurement }>> {
  console.log(`\nlist latency, ${engine}`);
  const s = await scratch.create(engine);
  const owner = await createOwner(s.db, 'list');
  const sized = await addWorkspace(s.db, owner, 'list');
  const app = await startServerChild('app', s.url);
  try {
    const sizes = [];
    let seeded = 0;
    for (const size of SIZES) {
      process.stdout.write(`  seeding ${fmt(size - seeded)} deploys (${fmt(size)} in all) ... `);
      const t0 = performance.now();
      await seedDeploys(s.db, sized, size - seeded, (size / DEPLOYS_PER_DAY) * DAY_MS);
      seeded = size;
      console.log(`${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const target = listTarget(sized, owner.apiKey);
      await probe(app.url, target, 200);
      const loaded = await measure({ label: `GET /v1/deploys, ${fmt(size)} deploys, ${SETTINGS.connections} connections, ${engine}`, server: app, target });
      const single = await measure({ label: `GET /v1/deploys, ${fmt(size)} deploys, 1 connection, ${engine}`, server: app, target, connections: 1 });
      sizes.push({ size, loaded, single });
    }
    return sizes;
  } finally {
    await app.stop();
  }
}

const scratch = new Scratch();

await runBenchmark(scratch, async () => {
  const lines = ['# bench:deploys: recording deploys against the peers, listing them at 100,000', '', ...machineLines('npm run bench:deploys').slice(0, 4), ''];
  if (PARTS.includes('post')) lines.push(...(await benchPost(scratch)).lines, '');
  if (PARTS.includes('list')) {
    const results: Array<{ engine: Engine; sizes: Awaited<ReturnType<typeof benchList>> }> = [];
    for (const engine of enginesToRun()) results.push({ engine, sizes: await benchList(scratch, engine) });
    lines.push(
      `## GET /v1/deploys?workspace_id=…&limit=${LIST_LIMIT} by workspace size`,
      '',
      ...machineLines('npm run bench:deploys').slice(4),
      '',
      `One workspace seeded with bulk inserts into \`deploys\` (batches of 1,000 rows on PostgreSQL, 400 on SQLite, in one transaction): ${SIZES.map((n) => fmt(n)).join(', then ')} deploys, deployed_at uniform over the last ${SIZES.map((n) => fmt(n / DEPLOYS_PER_DAY)).join(' / ')} days (about ${DEPLOYS_PER_DAY} a day; later batches interleave with earlier ones), 85% production, each production deploy with a finished site check. PostgreSQL: \`ANALYZE deploys, site_checks\` after each load (what autovacuum does shortly after). Measured at ${SETTINGS.connections} connections (throughput and queueing) and at 1 connection (one request at a time), through the real server (\`startServer\`, as server/main.ts runs it).`,
      '',
      ...table(results.flatMap((r) => r.sizes.flatMap((x) => [x.loaded, x.single]))),
      '',
      `Target: p99 at ${fmt(SIZES[SIZES.length - 1])} deploys within ${TARGETS.listP99}x of p99 at ${fmt(SIZES[0])} (${SETTINGS.connections} connections).`,
      '',
      ...results.map((r) => {
        const small = r.sizes[0];
        const big = r.sizes[r.sizes.length - 1];
        const ratio = big.loaded.p99 / small.loaded.p99;
        return (
          `- ${r.engine}: p99 ${big.loaded.p99} ms vs ${small.loaded.p99} ms = ${ratio.toFixed(2)}x: ${ratio <= TARGETS.listP99 ? 'met' : 'MISSED'}` +
          ` (1 connection: p99 ${big.single.p99} ms vs ${small.single.p99} ms = ${(big.single.p99 / small.single.p99).toFixed(2)}x)`
        );
      }),
    );
  }
  if (process.env.BENCH_ONLY) console.log(lines.join('\n'));
  else writeReport('deploys.md', lines);
});
