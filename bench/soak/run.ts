// The soak from set-up to verdict (bench/soak.ts documents what it does and why).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import knexFactory from 'knex';
import type { Db } from '../../core/db/index.ts';
import { generateSite, startFixtureSite, type FixtureSite } from '../../test/support/fixture-site.ts';
import { startReceiver, type Receiver } from '../../test/support/https-receiver.ts';
import { freePort, startCluster, stopClusterIn, type PgCluster } from './pg-cluster.ts';
import { npmRun, spawnLogged, startApi, stopChild, waitFor, type Child } from './stack.ts';
import { runLoad, type LoadResult } from './load.ts';
import { checkDeliveries, checkDeploys, checkNoDoubleRuns, checkRequestLog, checkRuns, drained, drainState, type Check, type DrainState, type KilledJob } from './verify.ts';
import { inOutage, outageWindows, renderReport, type Timeline } from './report.ts';

export interface SoakOptions {
  seconds: number;
  drainSeconds: number;
  clients: number;
  /** Requests per second, all clients together. */
  rate: number;
  productionPerSecond: number;
  sitePages: number;
  /** Print progress lines here. */
  log: (line: string) => void;
}

export interface SoakOutcome {
  passed: boolean;
  report: string;
  /** Kept when the soak failed: the processes' logs. */
  logsDir: string | null;
}

const EVENTS = ['deploy.recorded', 'site_check.completed', 'site_check.regression', 'site_crawl.completed', 'site_crawl.regression'];

/** Everything that must be undone, whatever happens. */
class Resources {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-soak-'));
  cluster: PgCluster | null = null;
  children: Child[] = [];
  site: FixtureSite | null = null;
  receiver: Receiver | null = null;
  db: Db | null = null;
  private done = false;

  get logsDir(): string {
    return path.join(this.dir, 'logs');
  }

  /** Stops everything; keeps the logs directory when `keepLogs`, else removes it all. */
  async cleanup(keepLogs: boolean): Promise<void> {
    if (this.done) return;
    this.done = true;
    await Promise.allSettled(this.children.map((c) => stopChild(c)));
    await this.db?.destroy().catch(() => {});
    await this.site?.close().catch(() => {});
    await this.receiver?.close().catch(() => {});
    if (this.cluster) await this.cluster.stop().catch(() => {});
    else await stopClusterIn(path.join(this.dir, 'pg', 'data')).catch(() => {});
    fs.rmSync(keepLogs ? path.join(this.dir, 'pg') : this.dir, { recursive: true, force: true });
  }
}

export let current: Resources | null = null;

export async function runSoak(o: SoakOptions): Promise<SoakOutcome> {
  const res = new Resources();
  current = res;
  let passed = false;
  try {
    fs.mkdirSync(res.logsDir, { recursive: true });
    const outcome = await soak(res, o);
    passed = outcome.passed;
    return { ...outcome, logsDir: passed ? null : res.logsDir };
  } finally {
    await res.cleanup(!passed);
    if (!passed) o.log(`logs of every process kept in ${res.logsDir}`);
    current = null;
  }
}

async function soak(res: Resources, o: SoakOptions): Promise<Omit<SoakOutcome, 'logsDir'>> {
  const t0 = Date.now();
  const log = (s: string) => o.log(`[soak ${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${s}`);

  // ---- set-up -----------------------------------------------------------------------------
  const cluster = (res.cluster = await startCluster(res.dir, 'sitehealth_soak'));
  log(`private PostgreSQL cluster: ${cluster.version}, port ${cluster.port}, data in ${cluster.dataDir} (binaries ${cluster.bin})`);
  const site = (res.site = await startFixtureSite());
  generateSite(site, { pages: o.sitePages, linksPerPage: 8, words: 150 });
  const receiver = (res.receiver = await startReceiver());
  let secret = '';
  let unverified = 0;
  // Mostly 204 after 100 ms (so that two sends of one delivery key at once would overlap
  // there); some 500s and 503s with Retry-After, so retries and their numbering happen too.
  receiver.answerWith('/soak', (r) => {
    try {
      new StandardWebhook(secret).verify(r.body, r.headers);
    } catch {
      unverified++;
    }
    const x = Math.random();
    if (x < 0.05) return { status: 500, body: 'soak: scripted failure', delayMs: 100 };
    if (x < 0.08) return { status: 503, headers: { 'retry-after': '1' }, body: 'soak: scripted busy', delayMs: 100 };
    return { status: 204, delayMs: 100 };
  });

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: cluster.url,
    // The webhook's signing secret is sealed with it, and every process opens it.
    SECRETS_KEY: process.env.SECRETS_KEY || crypto.randomBytes(32).toString('base64'),
    ALLOW_PRIVATE_NETWORK: '1',
    NODE_EXTRA_CA_CERTS: receiver.certFile,
    SITE_CHECK_DELAY_SECONDS: '3',
    CRAWL_DELAY_SECONDS: '6',
    WEBHOOK_RETRY_SCHEDULE: '1,2,3,5,8',
    JOB_LEASE_MS: '10000',
    RATE_LIMIT_PER_MINUTE: '100000000',
    LOG_LEVEL: 'warn',
  };
  delete env.NODE_TEST_CONTEXT;
  const opsLog = path.join(res.logsDir, 'operator.log');
  await npmRun('migrate', [], env, opsLog);
  const boot = JSON.parse(
    await npmRun('admin', ['bootstrap', '--json', '--email', `soak-${Date.now()}@example.com`, '--workspace-name', `Soak ${crypto.randomUUID().slice(0, 8)}`, '--website', site.origin], env, opsLog),
  ) as { workspaceId: string; apiKey: string };
  log(`migrated; bootstrapped workspace ${boot.workspaceId} (website ${site.origin}, ${o.sitePages} pages)`);

  const ports = [await freePort(), await freePort()];
  const apis = await Promise.all(ports.map((p, i) => startApi(`api${i + 1}`, p, env, res.logsDir)));
  res.children.push(...apis);
  const workers = [1, 2].map((i) => spawnLogged(`worker${i}`, 'worker/main.ts', env, res.logsDir));
  res.children.push(...workers);
  // The soak's own connection, quiet: knex would print every connection error of the restart.
  const quiet = { warn() {}, error() {}, debug() {}, deprecate() {} };
  const db = (res.db = knexFactory({ client: 'pg', connection: cluster.url, pool: { min: 0, max: 2 }, log: quiet }));
  // A worker is ready once its LISTEN connection is up (logs are at warn: no "ready" line).
  await waitFor('both workers to listen', async () => {
    for (const w of workers) if (!w.alive()) throw new Error(`${w.name} exited; see ${w.logFile}`);
    const rows = (await db.raw(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'LISTEN %'`)).rows as Array<{ n: number }>;
    return rows[0].n >= workers.length;
  }, 60_000);

  const hook = await fetch(`${apis[0].url}/v1/webhooks`, {
    method: 'POST',
    headers: { 'x-api-key': boot.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ workspaceId: boot.workspaceId, url: receiver.url('/soak'), events: EVENTS }),
  });
  const hookBody = (await hook.json()) as { id: string; secret: string };
  if (hook.status !== 201) throw new Error(`creating the webhook answered ${hook.status}: ${JSON.stringify(hookBody)}`);
  secret = hookBody.secret;
  log(`2 API processes (pids ${apis.map((a) => a.pid).join(', ')}), 2 workers (pids ${workers.map((w) => w.pid).join(', ')}), webhook ${hookBody.id} -> ${receiver.url('/soak')}`);

  // ---- load and faults --------------------------------------------------------------------
  const timeline: Timeline = { loadSeconds: o.seconds, kill: null, restart: null, drainMs: null, drainedState: null };
  const stop = new AbortController();
  log(`load: ${o.clients} clients, ~${o.rate} requests/s over both APIs, at most ${o.productionPerSecond} new production deploys/s, for ${o.seconds} s`);
  const loadStart = performance.now();
  const at = (s: number) => new Promise((r) => setTimeout(r, Math.max(0, loadStart + s * 1000 - performance.now())));
  const loadRun = runLoad(
    { apis: apis.map((a) => a.url), key: boot.apiKey, workspaceId: boot.workspaceId, webhookId: hookBody.id, seconds: o.seconds, clients: o.clients, rate: o.rate, productionPerSecond: o.productionPerSecond, timeoutMs: 30_000 },
    stop.signal,
  );
  let killedJobs: KilledJob[] = [];
  let killed: Child | null = null;
  const faults = (async () => {
    await at(o.seconds / 3);
    // Kill the worker that holds the most running jobs (a crawl if it can), wait up to 5 s for one.
    let victim = workers[0];
    for (let i = 0; i < 25; i++) {
      const rows = (await db('jobs').where({ state: 'running' }).select('locked_by', 'kind')) as Array<{ locked_by: string; kind: string }>;
      const score = (w: Child) => rows.filter((r) => r.locked_by.includes(`/${w.pid}/`)).reduce((n, r) => n + (r.kind === 'site_crawl' ? 10 : 1), 0);
      const best = [...workers].sort((a, b) => score(b) - score(a))[0];
      if (score(best) > 0) {
        victim = best;
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const killAt = performance.now() - loadStart;
    victim.child.kill('SIGKILL');
    await victim.exited;
    killed = victim;
    const held = (await db('jobs').where({ state: 'running' }).where('locked_by', 'like', `%/${victim.pid}/%`).select('id', 'kind', 'attempts', 'lease_expires_at')) as Array<{ id: string; kind: string; attempts: number; lease_expires_at: number }>;
    killedJobs = held.map((j) => ({ id: j.id, kind: j.kind, attempts: Number(j.attempts), leaseExpiresAt: Number(j.lease_expires_at) }));
    timeline.kill = { worker: victim.name, pid: victim.pid, atMs: killAt, jobs: killedJobs.map((j) => j.kind), takenOverMs: null };
    log(`kill -9 ${victim.name} (pid ${victim.pid}) holding ${killedJobs.length} running jobs (${killedJobs.map((j) => j.kind).join(', ') || 'none'})`);
    // Watch for the other worker to take them over (in the background).
    const watch = (async () => {
      const ids = killedJobs.map((j) => j.id);
      if (!ids.length) return;
      for (let i = 0; i < 600; i++) {
        const still = (await db('jobs')
          .whereIn('id', ids)
          .where('locked_by', 'like', `%/${victim.pid}/%`)
          .where('state', 'running')
          .count({ n: '*' })
          .catch(() => [{ n: 1 }])) as Array<{ n: number | string }>;
        if (Number(still[0].n) === 0) {
          timeline.kill!.takenOverMs = performance.now() - loadStart - killAt;
          log(`the killed worker's jobs were taken over ${(timeline.kill!.takenOverMs / 1000).toFixed(1)} s after the kill`);
          return;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    })();

    await at(o.seconds / 2);
    const restartAt = performance.now() - loadStart;
    log('restarting PostgreSQL with pg_ctl restart -m fast');
    const r = await cluster.restart();
    timeline.restart = { atMs: restartAt, endMs: performance.now() - loadStart, command: r.command };
    log(`PostgreSQL is back after ${r.ms} ms (used: ${r.command})`);
    await watch;
  })();
  faults.catch(() => stop.abort());
  const load = await loadRun;
  await faults;
  log(`load stopped: ${load.samples.length} requests`);

  // ---- drain ------------------------------------------------------------------------------
  const drainStart = performance.now();
  let state: DrainState = await drainState(db, boot.workspaceId);
  let lastPrint = 0;
  while (!drained(state) && performance.now() - drainStart < o.drainSeconds * 1000) {
    if (performance.now() - lastPrint > 10_000) {
      lastPrint = performance.now();
      log(`draining: ${state.checksOpen} checks and ${state.crawlsOpen} crawls open, ${state.eventsUndispatched} events undispatched, ${state.messagesPending} messages pending, ${state.jobsOpen} jobs queued or running`);
    }
    await new Promise((r) => setTimeout(r, 1000));
    state = await drainState(db, boot.workspaceId);
  }
  timeline.drainMs = performance.now() - drainStart;
  timeline.drainedState = state;
  log(drained(state) ? `drained in ${(timeline.drainMs / 1000).toFixed(1)} s` : `not drained after ${o.drainSeconds} s: ${JSON.stringify(state)}`);
  // Answers still on their way (the receiver answers after 100 ms).
  await new Promise((r) => setTimeout(r, 500));

  // ---- verdict ----------------------------------------------------------------------------
  const checks: Check[] = [];
  checks.push(await checkDeploys(db, boot.workspaceId, load));
  checks.push(await checkRuns(db, boot.workspaceId, load));
  const received = receiver.received.filter((r) => r.path === '/soak');
  checks.push(await checkDeliveries(db, boot.workspaceId, received, unverified));
  checks.push(checkStatuses(load, timeline, apis.length));
  const recovered = checkRecovered(load, timeline, apis);
  // The surviving worker reconnected its LISTEN connection after the restart (it polls meanwhile).
  const listening = ((await db.raw(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'LISTEN %'`)).rows as Array<{ n: number }>)[0].n;
  recovered.details.push(`${listening} worker LISTEN connection(s) open after the restart`);
  if (listening < 1) {
    recovered.ok = false;
    recovered.details.push('the surviving worker did not LISTEN again after the restart');
  }
  checks.push(recovered);
  const killedPid = (killed as Child | null)?.pid ?? null;
  checks.push(await checkNoDoubleRuns(db, { received, workerLogs: workers.map((w) => w.logFile), killedWorkerPid: killedPid, killedJobs }));
  checks.push(await checkRequestLog(db, boot.workspaceId, load));
  const survivors = workers.filter((w) => w !== killed);
  const survivorsAlive = survivors.every((w) => w.alive());
  if (!survivorsAlive) checks[checks.length - 1].details.push('the surviving worker is not running any more');
  const logs = [...apis, ...workers].map((c) => summarizeLog(c.name, c.logFile));
  // Operators parse the logs: a stack trace or a library's console.log during the outage is a defect.
  const unparsed = logs.filter((l) => l.other > 0);
  checks.push({
    name: '8. every log line of every process is a JSON line',
    ok: unparsed.length === 0,
    details: unparsed.length === 0 ? ['no other lines on stdout or stderr'] : unparsed.map((l) => `${l.name}: ${l.other} lines that are not JSON`),
  });
  const passed = checks.every((c) => c.ok) && survivorsAlive && drained(state);
  const report = renderReport({ load, timeline, checks, passed, cluster: cluster.version, options: o, apis: apis.map((a) => ({ name: a.name, pid: a.pid })), logs, drained: drained(state), logsDir: passed ? null : res.logsDir });
  return { passed, report };
}

const LEVELS: Record<number, string> = { 40: 'warn', 50: 'error', 60: 'fatal' };

/** A process's log at warn and above, counted by level, message and error code. */
function summarizeLog(name: string, file: string): { name: string; counts: Map<string, number>; other: number } {
  const counts = new Map<string, number>();
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  let other = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    if (!line.startsWith('{')) {
      other++;
      continue;
    }
    try {
      const l = JSON.parse(line) as { level?: number; msg?: string; err?: unknown; outcome?: string };
      const err = typeof l.err === 'string' ? l.err : ((l.err as { code?: string } | undefined)?.code ?? '');
      const code = /\(([0-9A-Z]{5}|E[A-Z]+)\)/.exec(err)?.[1] ?? '';
      const key = `${LEVELS[l.level ?? 0] ?? l.level} "${l.msg}"${code ? ` (${code})` : ''}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    } catch {
      other++;
    }
  }
  return { name, counts, other };
}

/** 4. No 500 (any 5xx but 503), no unanswered request, no unexpected 4xx, every 503 a proper problem document, and 503s from every API during the outage. */
function checkStatuses(load: LoadResult, t: Timeline, apiCount: number): Check {
  const problems: string[] = [];
  const bad = load.samples.filter((s) => s.outcome === 'timeout' || s.outcome === 'network' || (typeof s.outcome === 'number' && s.outcome >= 400 && s.outcome !== 503));
  const byKind = new Map<string, number>();
  for (const s of bad) byKind.set(`api${s.api + 1} ${s.op} ${s.outcome}`, (byKind.get(`api${s.api + 1} ${s.op} ${s.outcome}`) ?? 0) + 1);
  for (const [k, n] of byKind) problems.push(`${n} x ${k}`);
  problems.push(...load.unexpected.slice(0, 5), ...load.networkErrors.slice(0, 5));
  for (const b of load.badUnavailable.slice(0, 5)) problems.push(`api${b.api + 1} ${b.op}: a 503 that is not a service_unavailable problem with Retry-After (${b.why})`);
  if (load.violationCount) problems.push(`${load.violationCount} responses broke the contract`, ...load.violations.slice(0, 5));
  const windows = outageWindows(load, t, apiCount);
  const during = windows.map((w, api) => load.samples.filter((s) => s.api === api && inOutage(s, w)).length);
  for (const [api, n] of during.entries()) if (n === 0) problems.push(`api${api + 1} answered no 503 while the database was down`);
  const all503 = load.samples.filter((s) => s.outcome === 503).length;
  return {
    name: '4. no 500s; 503 problem documents while the database was down',
    ok: problems.length === 0,
    details: [`503s during the outage: ${during.map((n, i) => `api${i + 1} ${n}`).join(', ')}; 503s at other times: ${all503 - during.reduce((a, b) => a + b, 0)}`, ...problems],
  };
}

/** 5. Both API processes survived the restart (same pids, still running) and served 2xx after it. */
function checkRecovered(load: LoadResult, t: Timeline, apis: Child[]): Check {
  const problems: string[] = [];
  const lines: string[] = [];
  apis.forEach((a, i) => {
    if (!a.alive()) problems.push(`${a.name} (pid ${a.pid}) is not running`);
    const after = load.samples.filter((s) => s.api === i && typeof s.outcome === 'number' && s.outcome < 300 && t.restart && s.t > t.restart.endMs);
    if (!after.length) problems.push(`${a.name} served no 2xx after the restart`);
    const first = after.sort((x, y) => x.t - y.t)[0];
    lines.push(`${a.name} pid ${a.pid} ${a.alive() ? 'running' : 'gone'}, ${after.length} 2xx after the restart${first && t.restart ? `, the first ${((first.t - t.restart.endMs) / 1000).toFixed(2)} s after pg_ctl returned` : ''}`);
  });
  return { name: '5. both API processes recovered without a restart (and the worker listens again)', ok: problems.length === 0, details: [...lines, ...problems] };
}
