// Shared pieces of the HTTP benchmarks: scratch databases, server child processes, autocannon
// runs (warm-up, then the measured run), fixtures and the Markdown report.
//
// Layout: the benchmark process runs autocannon (the load generator); every server under test
// is its own child process (bench/lib/serve.ts), started the same way for the real app and for
// the bare routes, with the log level silent. Only one server is under load at a time, so on a
// 2-core machine each side gets one core for the server (plus the database) and one for the
// load generator.

import { fork, execFileSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type RequestSpec, type Result } from 'autocannon';
import knexFactory from 'knex';
import { createDb, type Db, migrateLatest } from '../../core/db/index.ts';
import { createUser, createApiKey } from '../../core/access/index.ts';
import { createWorkspace } from '../../core/workspaces/index.ts';

export type Engine = 'sqlite' | 'postgres';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const RESULTS_DIR = path.join(ROOT, 'bench', 'results');

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

/** Measured run length (s), warm-up length (s) and concurrent connections, for every run. */
export const SETTINGS = {
  duration: envInt('BENCH_DURATION', 10),
  warmup: envInt('BENCH_WARMUP', 3),
  connections: envInt('BENCH_CONNECTIONS', 50),
  /** Measured runs per case (round-robin across the cases compared); the report shows medians. */
  rounds: envInt('BENCH_ROUNDS', 3),
  /** Before each run, wait (up to quietWaitS) until other processes use at most this share of the CPUs. */
  quietShare: Number(process.env.BENCH_QUIET ?? 0.2),
  quietWaitS: envInt('BENCH_QUIET_WAIT', 180),
};

/** A PostgreSQL database whose user may create databases; scratch databases are made beside it. */
export const PG_ADMIN_URL = process.env.BENCH_PG_URL || 'postgres://root@127.0.0.1:5432/test';

export function enginesToRun(): Engine[] {
  const only = process.env.BENCH_ENGINES;
  if (!only) return ['sqlite', 'postgres'];
  return only.split(',').map((s) => {
    const e = s.trim();
    if (e !== 'sqlite' && e !== 'postgres') throw new Error(`BENCH_ENGINES: unknown engine "${e}"`);
    return e;
  });
}

// ---------------------------------------------------------------------------------------------
// Scratch databases

export interface ScratchDb {
  engine: Engine;
  url: string;
  /** A migrated database handle in this (the load generator's) process, for fixtures and seeding. */
  db: Db;
}

/** Creates fresh, migrated databases and drops every one of them on `dropAll` (also on Ctrl-C). */
export class Scratch {
  private made: Array<{ engine: Engine; name: string; db: Db }> = [];

  async create(engine: Engine): Promise<ScratchDb> {
    let url: string;
    let name: string;
    if (engine === 'sqlite') {
      name = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-bench-'));
      url = `sqlite:${path.join(name, 'bench.db')}`;
    } else {
      name = `sh_bench_${crypto.randomBytes(6).toString('hex')}`;
      const admin = knexFactory({ client: 'pg', connection: PG_ADMIN_URL, pool: { min: 0, max: 1 } });
      try {
        await admin.raw(`CREATE DATABASE ${name}`);
      } finally {
        await admin.destroy();
      }
      const u = new URL(PG_ADMIN_URL);
      u.pathname = `/${name}`;
      url = u.toString();
    }
    const db = createDb(url);
    this.made.push({ engine, name, db });
    await migrateLatest(db);
    return { engine, url, db };
  }

  /**
   * A PostgreSQL database kept between runs (a benchmark's keep/reuse option): created and
   * migrated when missing, migrated when present, never dropped. `existed` says which.
   */
  async keep(name: string): Promise<ScratchDb & { existed: boolean }> {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a database name: ${name}`);
    const admin = knexFactory({ client: 'pg', connection: PG_ADMIN_URL, pool: { min: 0, max: 1 } });
    let existed: boolean;
    try {
      existed = (await admin.raw('SELECT 1 FROM pg_database WHERE datname = ?', [name])).rows.length > 0;
      if (!existed) await admin.raw(`CREATE DATABASE ${name}`);
    } finally {
      await admin.destroy();
    }
    const u = new URL(PG_ADMIN_URL);
    u.pathname = `/${name}`;
    const url = u.toString();
    const db = createDb(url);
    this.made.push({ engine: 'postgres', name: '', db });
    await migrateLatest(db);
    return { engine: 'postgres', url, db, existed };
  }

  async dropAll(): Promise<void> {
    while (this.made.length) {
      const m = this.made.pop()!;
      await m.db.destroy().catch(() => {});
      if (m.name === '') continue;
      if (m.engine === 'sqlite') {
        fs.rmSync(m.name, { recursive: true, force: true });
        continue;
      }
      const admin = knexFactory({ client: 'pg', connection: PG_ADMIN_URL, pool: { min: 0, max: 1 } });
      try {
        await admin.raw(`DROP DATABASE IF EXISTS ${m.name} WITH (FORCE)`);
      } catch (err) {
        console.error(`could not drop ${m.name}:`, err);
      } finally {
        await admin.destroy();
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Fixtures (through the domain layer, as test/support/api.ts does)

let fixtureCounter = 0;

export interface Owner {
  userId: string;
  accountId: string;
  workspaceId: string;
  apiKey: string;
}

/** An owner with a workspace and an all-scope, unbound API key. */
export async function createOwner(db: Db, tag: string): Promise<Owner> {
  fixtureCounter += 1;
  const u = await createUser(db, `bench.${tag}.${process.pid}.${fixtureCounter}@example.com`);
  const workspaceId = await addWorkspace(db, u, tag);
  const key = await createApiKey(db, { userId: u.userId, scopes: ['deploys', 'search', 'workspaces', 'webhooks'] });
  return { userId: u.userId, accountId: u.accountId, workspaceId, apiKey: key.apiKey };
}

/** Another workspace owned by the same user (so the owner's key sees it). */
export async function addWorkspace(db: Db, owner: { userId: string; accountId: string }, tag: string): Promise<string> {
  fixtureCounter += 1;
  const ws = await createWorkspace(db, {
    accountId: owner.accountId,
    userId: owner.userId,
    input: { name: `Bench ${tag} ${fixtureCounter}`, website: 'https://www.example.com' },
  });
  return ws.id;
}

// ---------------------------------------------------------------------------------------------
// Servers under test

export type ServerMode = 'app' | 'bare-workspace' | 'bare-workspace-db';

export interface ServerChild {
  mode: ServerMode;
  url: string;
  /** The request log sink the server hands finished requests to (class name), or 'none'. */
  requestLog: string;
  /** Knex queries the server has run since it started (its 'query' event) and its CPU time so far (µs). */
  counters(): Promise<{ queries: number; cpuMicros: number }>;
  stop(): Promise<void>;
}

const SERVE = path.join(ROOT, 'bench', 'lib', 'serve.ts');
const children = new Set<ChildProcess>();

function request<T>(child: ChildProcess, msg: { type: string }, reply: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type: string } & Record<string, unknown>) => {
      if (m.type !== reply) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m as T);
    };
    const onExit = (code: number | null) => {
      child.off('message', onMessage);
      reject(new Error(`server child exited (${code}) while waiting for "${reply}"`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    if (msg.type !== 'none') child.send(msg);
  });
}

/**
 * Starts a server child: `app` is the real server (startServer, as server/main.ts runs it),
 * the others are the bare routes of bench/lib/bare.ts. `BENCH_CPU_PROF=<dir>` writes a
 * V8 CPU profile of every server child into <dir> when it stops.
 */
export async function startServerChild(mode: ServerMode, databaseUrl: string | null, extraEnv: Record<string, string> = {}): Promise<ServerChild> {
  const execArgv = ['--import', 'tsx'];
  const profDir = process.env.BENCH_CPU_PROF;
  // One directory per server kind: with tsx every process has a loader thread that writes its own profile.
  if (profDir) execArgv.push('--cpu-prof', `--cpu-prof-dir=${path.resolve(profDir, mode)}`);
  const child = fork(SERVE, [], {
    cwd: ROOT,
    execArgv,
    env: {
      ...process.env,
      ...extraEnv,
      BENCH_MODE: mode,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      LOG_LEVEL: 'silent',
      NODE_ENV: 'production',
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const ready = await request<{ port: number; requestLog: string }>(child, { type: 'none' }, 'ready');
  return {
    mode,
    url: `http://127.0.0.1:${ready.port}`,
    requestLog: ready.requestLog,
    async counters() {
      const r = await request<{ n: number; cpuMicros: number }>(child, { type: 'queries' }, 'queries');
      return { queries: r.n, cpuMicros: r.cpuMicros };
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'stop' });
      await exited;
    },
  };
}

/** Kills any server child still running (error paths). */
export function killChildren(): void {
  for (const c of children) c.kill('SIGKILL');
}

// ---------------------------------------------------------------------------------------------
// Load

export interface Target {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  /** Builds the body of each request (a new one every time), for POST. */
  body?: () => string;
  /** Paths taken in turn, one per request, instead of `path` every time (e.g. many resources). */
  paths?: string[];
}

function cpuTimes(): { busy: number; total: number } | null {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = v[3] + (v[4] ?? 0); // idle + iowait
    const total = v.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null; // not Linux
  }
}

/** Share of all CPUs busy over `ms` (0..1), or null where /proc/stat is missing. */
async function cpuBusyShare(ms: number): Promise<number | null> {
  const a = cpuTimes();
  await pause(ms);
  const b = cpuTimes();
  if (!a || !b || b.total === a.total) return null;
  return (b.busy - a.busy) / (b.total - a.total);
}

/**
 * Called while every server under test is idle: whatever uses the CPUs now is someone else.
 * Waits for a quiet moment (the machine may be shared), up to SETTINGS.quietWaitS; returns
 * the background share measured last.
 */
export async function waitForQuiet(): Promise<number | null> {
  const deadline = Date.now() + SETTINGS.quietWaitS * 1000;
  let said = false;
  for (;;) {
    const share = await cpuBusyShare(1000);
    if (share === null || share <= SETTINGS.quietShare || Date.now() > deadline) {
      if (said) process.stdout.write(share !== null && share > SETTINGS.quietShare ? 'gave up waiting; ' : 'quiet; ');
      return share;
    }
    if (!said) process.stdout.write(`other processes use ${pct(share)} of the CPUs, waiting ... `);
    said = true;
    await pause(2000);
  }
}

/** One measured run. */
export interface Run {
  /** Share of the CPUs other processes used just before the run (null: unknown). */
  background: number | null;
  reqPerSec: number;
  p50: number;
  p99: number;
  total: number;
  /** Knex queries per completed request during the run (server side). */
  queriesPerRequest: number;
  /** CPU time of the server process per completed request (µs; a PostgreSQL server's own CPU is not included). */
  cpuPerRequest: number;
  raw: Result;
}

/** A case over one or more rounds: the median of each figure across its rounds. */
export interface Measurement {
  label: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  total: number;
  queriesPerRequest: number;
  cpuPerRequest: number;
  runs: Run[];
}

export interface Case {
  label: string;
  server: ServerChild;
  target: Target;
  /** Default SETTINGS.connections. */
  connections?: number;
}

function specOf(t: Target): RequestSpec {
  const spec: RequestSpec = { method: t.method, path: t.path, headers: { ...t.headers } };
  if (t.body) {
    const build = t.body;
    spec.headers!['content-type'] = 'application/json';
    spec.setupRequest = (req) => ({ ...req, body: build() });
  }
  if (t.paths?.length) {
    const paths = t.paths;
    const before = spec.setupRequest;
    let i = 0;
    spec.setupRequest = (req, context) => ({ ...(before ? before(req, context) : req), path: paths[i++ % paths.length] });
  }
  return spec;
}

async function run(url: string, target: Target, duration: number, connections = SETTINGS.connections): Promise<Result> {
  return await autocannon({
    url,
    connections,
    duration,
    pipelining: 1,
    timeout: 30,
    requests: [specOf(target)],
  });
}

/** One request first, so a wrong status fails loudly instead of measuring error responses. */
export async function probe(url: string, target: Target, expectStatus: number): Promise<unknown> {
  const res = await fetch(new URL(target.path, url), {
    method: target.method,
    headers: { ...target.headers, ...(target.body ? { 'content-type': 'application/json' } : {}) },
    body: target.body ? target.body() : undefined,
  });
  const text = await res.text();
  if (res.status !== expectStatus) throw new Error(`${target.method} ${url}${target.path}: expected ${expectStatus}, got ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as unknown;
}

/** Warm-up (discarded), then the measured run. Any non-2xx response or socket error fails the benchmark. */
export async function measureOnce(c: Case): Promise<Run> {
  process.stdout.write(`  ${c.label}: `);
  const background = await waitForQuiet();
  process.stdout.write(`warm-up ${SETTINGS.warmup} s, `);
  check(`${c.label} (warm-up)`, await run(c.server.url, c.target, SETTINGS.warmup, c.connections));
  await pause(300);
  process.stdout.write(`measure ${SETTINGS.duration} s ... `);
  const before = await c.server.counters();
  const r = await run(c.server.url, c.target, SETTINGS.duration, c.connections);
  const after = await c.server.counters();
  check(c.label, r);
  const total = r.requests.total;
  const one: Run = {
    background,
    reqPerSec: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    total,
    queriesPerRequest: total > 0 ? (after.queries - before.queries) / total : 0,
    cpuPerRequest: total > 0 ? (after.cpuMicros - before.cpuMicros) / total : 0,
    raw: r,
  };
  process.stdout.write(`${fmt(one.reqPerSec)} req/s, p50 ${one.p50} ms, p99 ${one.p99} ms, ${fmt(one.queriesPerRequest, 1)} queries/req, ${fmt(one.cpuPerRequest)} µs server CPU/req\n`);
  await pause(300);
  return one;
}

function median(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

export function summarize(label: string, runs: Run[]): Measurement {
  return {
    label,
    reqPerSec: median(runs.map((r) => r.reqPerSec)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    total: median(runs.map((r) => r.total)),
    queriesPerRequest: median(runs.map((r) => r.queriesPerRequest)),
    cpuPerRequest: median(runs.map((r) => r.cpuPerRequest)),
    runs,
  };
}

/**
 * Measures the cases round-robin, SETTINGS.rounds times (each run with its own warm-up), so a
 * burst of load from elsewhere on the machine hits every case alike; medians per case.
 */
export async function compare(cases: Case[], rounds = SETTINGS.rounds): Promise<Measurement[]> {
  const runs: Run[][] = cases.map(() => []);
  for (let r = 0; r < rounds; r++) {
    if (rounds > 1) console.log(` round ${r + 1}/${rounds}`);
    for (let i = 0; i < cases.length; i++) runs[i].push(await measureOnce(cases[i]));
  }
  return cases.map((c, i) => summarize(c.label, runs[i]));
}

/** One case, SETTINGS.rounds runs in a row; medians. */
export async function measure(c: Case, rounds = SETTINGS.rounds): Promise<Measurement> {
  return (await compare([c], rounds))[0];
}

function check(label: string, r: Result): void {
  if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0) {
    throw new Error(`${label}: ${r.non2xx} non-2xx responses, ${r.errors} errors, ${r.timeouts} timeouts; status codes ${JSON.stringify(r.statusCodeStats)}`);
  }
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------------------------------------
// Report

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function pct(ratio: number): string {
  return `${(ratio * 100).toFixed(0)}%`;
}

const loadAtStart = os.loadavg();

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

export function machineLines(command: string): string[] {
  const commit = git(['rev-parse', '--short', 'HEAD']) ?? 'unknown';
  const dirty = (git(['status', '--porcelain', '--', 'core', 'server']) ?? '').split('\n').filter(Boolean).length;
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  return [
    `- Date: ${new Date().toISOString()}`,
    `- Machine: \`nproc\` = ${os.availableParallelism()} (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ${os.platform()} ${os.release()}; load average (1/5/15 min) ${load(loadAtStart)} at start, ${load(os.loadavg())} at the end`,
    `- Node.js ${process.version}; autocannon 8; commit ${commit}${dirty ? ` plus uncommitted changes in ${dirty} file(s) under core/ and server/ (the working tree was measured)` : ''}`,
    `- Command: \`${command}\``,
    `- Columns: req/s is autocannon's mean of per-second counts; p50/p99 are latencies; queries/req counts the server's Knex queries (its 'query' event, BEGIN and COMMIT included) per completed request; server CPU/req is the server process's CPU time (user + system) per completed request, which other load on the machine disturbs much less than req/s (on PostgreSQL the database server's own CPU is not in it).`,
    `- Shared machine: before every run the benchmark waits (up to ${SETTINGS.quietWaitS} s) until other processes use at most ${pct(SETTINGS.quietShare)} of the CPUs; the "background" column is the highest share measured just before a run of that case started (after any wait).`,
    `- Load: autocannon in the benchmark process, ${SETTINGS.connections} connections, pipelining 1, loopback. Every measured run (${SETTINGS.duration} s) follows its own ${SETTINGS.warmup} s warm-up (discarded); the cases compared are measured round-robin, ${SETTINGS.rounds} round(s), and the table shows the median of each figure. Each server under test is its own child process (LOG_LEVEL=silent, NODE_ENV=production); only one is under load at a time.`,
  ];
}

function backgroundOf(m: Measurement): string {
  const known = m.runs.map((r) => r.background).filter((b): b is number => b !== null);
  return known.length ? pct(Math.max(...known)) : 'n/a';
}

export function table(rows: Measurement[], extra: Array<{ header: string; cell: (m: Measurement) => string }> = []): string[] {
  const head = ['case', 'req/s', 'p50 (ms)', 'p99 (ms)', 'queries/req', 'server CPU/req (µs)', ...extra.map((e) => e.header), 'req/s by round', 'background'];
  const out = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`];
  for (const m of rows) {
    const cells = [m.label, fmt(m.reqPerSec), String(m.p50), String(m.p99), fmt(m.queriesPerRequest, 1), fmt(m.cpuPerRequest), ...extra.map((e) => e.cell(m)), m.runs.map((r) => fmt(r.reqPerSec)).join(' / '), backgroundOf(m)];
    out.push(`| ${cells.join(' | ')} |`);
  }
  return out;
}

export function writeReport(file: string, lines: string[]): void {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const target = path.join(RESULTS_DIR, file);
  fs.writeFileSync(target, lines.join('\n') + '\n');
  console.log(`\nwrote ${path.relative(ROOT, target)}`);
}

/** Runs `main` with cleanup of server children and scratch databases, also on Ctrl-C. */
export async function runBenchmark(scratch: Scratch, main: () => Promise<void>): Promise<void> {
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error('\ninterrupted: cleaning up');
    killChildren();
    void scratch.dropAll().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await main();
  } catch (err) {
    process.exitCode = 1;
    // Database errors quote the whole statement; a bulk insert's is megabytes long.
    const e = err as Error;
    console.error(`${e.name}: ${String(e.message).slice(0, 2000)}\n${(e.stack ?? '').split('\n').slice(1, 12).join('\n')}`);
  } finally {
    killChildren();
    await scratch.dropAll();
  }
}
