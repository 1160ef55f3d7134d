// npm run bench:hooks
//
// Inbound repository hooks on SQLite, through a real API server process and a real worker process:
// 1. BENCH_HOOKS (default 2,000) signed GitHub push deliveries, 16 at a time, each to a mapped
//    branch with its own delivery id: accepted per second and the latency of each answer
//    (target: p99 at most 100 ms);
// 2. BENCH_PUSHES (default 20) pushes one after another, each timed from its POST to the moment
//    its deploy is readable with its changes (the compare against a local stub GitHub host).
// Writes bench/results/hooks.md.
import crypto from 'node:crypto';
import { createUser, createApiKey } from '../core/access/index.ts';
import { createWorkspace } from '../core/workspaces/index.ts';
import { bindModels, createDb, migrateLatest } from '../core/db/index.ts';
import { StubRepoHost } from '../test/support/repo-hosts.ts';
import { startServerProcess, startWorkerProcess, killAll } from '../test/support/processes.ts';
import { machineLines, writeReport } from './lib/harness.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const HOOKS = Number(process.env.BENCH_HOOKS || 2000);
const PUSHES = Number(process.env.BENCH_PUSHES || 20);
const CONCURRENCY = 16;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-hooks-'));
  const dbUrl = `sqlite:${path.join(dir, 'bench.db')}`;
  const env = { ALLOW_PRIVATE_NETWORK: '1', SECRETS_KEY: crypto.randomBytes(32).toString('base64'), SITE_CHECK_DELAY_SECONDS: '86400', CRAWL_DELAY_SECONDS: '86400' };
  const db = createDb(dbUrl);
  await migrateLatest(db);
  bindModels(db);
  const user = await createUser(db, `bench-${Date.now()}@example.com`);
  const ws = await createWorkspace(db, { accountId: user.accountId, userId: user.userId, input: { name: `bench ${Date.now()}`, website: 'https://www.example.com' } });
  const key = await createApiKey(db, { userId: user.userId, scopes: ['workspaces'] });
  await db.destroy();

  const host = await StubRepoHost.start('github', 'acme/site', 'ghp_benchToken0000000000');
  const server = await startServerProcess(dbUrl, env);
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
  const heads = Array.from({ length: HOOKS }, () => host.commit(base, [{ path: 'src/pages/index.astro', status: 'modified', patch: '@@ -1 +1 @@\n-<title>a</title>\n+<title>b</title>' }]));
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < heads.length) latencies.push(await send(push(base, heads[next++])));
  }));
  const seconds = (performance.now() - t0) / 1000;
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
      if (row && JSON.parse(row.changes).length > 0) break;
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

  const lines = [
    '# bench:hooks',
    '',
    ...machineLines('npm run bench:hooks'),
    '',
    `SQLite, one API server process, one worker process (default settings), a local stub GitHub host.`,
    '',
    '| measure | value | target |',
    '|---|---|---|',
    `| signed push deliveries accepted, ${CONCURRENCY} at a time | ${Math.round(HOOKS / seconds)}/s (${HOOKS} in ${seconds.toFixed(1)} s) | |`,
    `| answer latency p50 / p99 / max | ${pct(latencies, 50).toFixed(1)} / ${pct(latencies, 99).toFixed(1)} / ${latencies.at(-1)!.toFixed(1)} ms | p99 ≤ 100 ms: ${pct(latencies, 99) <= 100 ? 'met' : 'NOT met'} |`,
    `| push to deploy with its changes (compare against the stub), p50 / p99 over ${PUSHES} | ${pct(toDeploy, 50).toFixed(0)} / ${pct(toDeploy, 99).toFixed(0)} ms | |`,
  ];
  writeReport('hooks.md', lines);
  console.log(lines.join('\n'));
}

void main().catch(async (err) => {
  console.error(err);
  await killAll();
  process.exit(1);
});
