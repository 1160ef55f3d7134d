// npm run bench:webhooks
//
// 2,000 events to one subscribed endpoint on a local HTTPS receiver, on PostgreSQL, through the
// whole path a partner's webhook takes: the event committed in the transaction of a recorded
// deploy, its fan-out job, the message and its delivery job, the signed POST through the guarded
// fetcher, the attempt recorded. One worker process (worker/main.ts, default settings), trusting
// the receiver's certificate through NODE_EXTRA_CA_CERTS.
//
// Two runs: events offered at a steady rate (BENCH_EVENT_RATE, default 200/s, the target rate), for the latency
// from the event's commit to its receipt (p50, p99); and a burst of all events at once, for the
// rate the worker drains them at. Targets: p50 under 100 ms; at least 200 deliveries/s.
// Writes bench/results/webhooks.md. BENCH_EVENTS (2000), BENCH_PG_URL, BENCH_CPU_PROF (a directory).

import crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createUser } from '../core/access/index.ts';
import { createWorkspace } from '../core/workspaces/index.ts';
import { recordDeploy } from '../core/deploys/index.ts';
import { createWebhook } from '../core/webhooks/index.ts';
import { keyringFor } from '../core/secrets/index.ts';
import { nowMs } from '../core/platform/index.ts';
import { startReceiver } from '../test/support/https-receiver.ts';
import { ROOT, Scratch, fmt, machineLines, writeReport } from './lib/harness.ts';

const EVENTS = Number(process.env.BENCH_EVENTS || 2000);
const RATE = Number(process.env.BENCH_EVENT_RATE || 200);
const TARGETS = { p50Ms: 100, perSecond: 200 };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface RunResult {
  label: string;
  delivered: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p90: number;
  p99: number;
}

// The worker opens the webhook's sealed secret with the key the bench sealed it with.
const SECRETS_KEY = crypto.randomBytes(32);
const scratch = new Scratch();
const receiver = await startReceiver();
let worker: ReturnType<typeof spawn> | null = null;
try {
  const s = await scratch.create('postgres');
  const user = await createUser(s.db, `webhooks-bench-${Date.now()}@example.com`);
  const ws = await createWorkspace(s.db, { accountId: user.accountId, userId: user.userId, input: { name: `Webhook bench ${Date.now()}`, website: 'https://www.example.com' } });
  await createWebhook(s.db, { workspaceId: ws.id, url: receiver.url('/bench'), events: ['deploy.recorded'] }, { allowPrivateNetwork: true, keyring: keyringFor({ secretsKeys: [SECRETS_KEY] }) });

  // BENCH_CPU_PROF=<dir>: a V8 CPU profile of the worker.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  worker = spawn(process.execPath, [...profile, '--import', 'tsx', path.join(ROOT, 'worker/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: s.url, SECRETS_KEY: SECRETS_KEY.toString('base64'), ALLOW_PRIVATE_NETWORK: '1', NODE_EXTRA_CA_CERTS: receiver.certFile, LOG_LEVEL: 'warn', NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await sleep(4000); // start-up and migrations

  const committed = new Map<string, number>();
  const emit = async (i: number, tag: string) => {
    const { deploy } = await recordDeploy(s.db, ws.id, { commitSha: `${tag}${i.toString(16).padStart(8, '0')}`, environment: 'staging' }, { siteCheckDelaySeconds: 120, crawlDelaySeconds: 300 });
    committed.set(deploy.id, nowMs());
  };
  const collect = async (label: string, from: number): Promise<RunResult> => {
    const got = await receiver.waitFor('/bench', from + EVENTS, 300_000);
    const mine = got.slice(from);
    const latencies = mine.map((r) => r.at - committed.get((JSON.parse(r.body) as { data: { deploy: { id: string } } }).data.deploy.id)!).sort((a, b) => a - b);
    const firstCommit = Math.min(...mine.map((r) => committed.get((JSON.parse(r.body) as { data: { deploy: { id: string } } }).data.deploy.id)!));
    const seconds = (mine[mine.length - 1].at - firstCommit) / 1000;
    return { label, delivered: mine.length, seconds, perSecond: mine.length / seconds, p50: percentile(latencies, 50), p90: percentile(latencies, 90), p99: percentile(latencies, 99) };
  };

  console.log(`bench:webhooks: ${EVENTS} events, steady at ${RATE}/s, then a burst`);
  const steadyStart = Date.now();
  for (let i = 0; i < EVENTS; i++) {
    const due = steadyStart + (i * 1000) / RATE;
    if (due > Date.now()) await sleep(due - Date.now());
    void emit(i, 'a');
  }
  const steady = await collect(`steady ${RATE} events/s`, 0);
  console.log(`  ${steady.label}: ${fmt(steady.perSecond)} deliveries/s, p50 ${steady.p50} ms, p99 ${steady.p99} ms`);
  await Promise.all(Array.from({ length: EVENTS }, (_, i) => emit(i, 'b')));
  const burst = await collect(`burst of ${EVENTS}`, EVENTS);
  console.log(`  ${burst.label}: ${fmt(burst.perSecond)} deliveries/s, p50 ${burst.p50} ms, p99 ${burst.p99} ms`);

  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  writeReport('webhooks.md', [
    '# bench:webhooks: events to one HTTPS endpoint, on PostgreSQL',
    '',
    ...machineLines('npm run bench:webhooks'),
    '',
    `Each event is a \`deploy.recorded\` committed by \`recordDeploy\` in the benchmark process (its commit time noted), fanned out by one worker process (\`worker/main.ts\`, default settings: WORKER_CONCURRENCY=4) to a webhook subscribed to it, signed and POSTed through the guarded fetcher to an HTTPS receiver on 127.0.0.1 (self-signed, trusted via NODE_EXTRA_CA_CERTS) that answers 204; each attempt is recorded with its activity row. Latency: from the event's commit to the receiver reading the whole request. Deliveries/s: requests received over the time from the first commit to the last receipt.`,
    '',
    '| run | deliveries | seconds | deliveries/s | p50 (ms) | p90 (ms) | p99 (ms) |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...[steady, burst].map((r) => `| ${r.label} | ${fmt(r.delivered)} | ${r.seconds.toFixed(1)} | ${fmt(r.perSecond)} | ${r.p50} | ${r.p90} | ${r.p99} |`),
    '',
    'Targets:',
    '',
    `- p50 from commit to receipt at a steady ${RATE} events/s: ${steady.p50} ms (target under ${TARGETS.p50Ms}): ${verdict(steady.p50 < TARGETS.p50Ms)}`,
    `- deliveries/s draining a burst: ${fmt(burst.perSecond)} (target ${TARGETS.perSecond}): ${verdict(burst.perSecond >= TARGETS.perSecond)}`,
  ]);
} finally {
  worker?.kill('SIGTERM');
  if (worker) await new Promise((r) => worker!.once('exit', r));
  await receiver.close();
  await scratch.dropAll();
}
