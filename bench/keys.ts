// npm run bench:keys
//
// API key creation (POST /v1/api-keys) on SQLite and PostgreSQL (BENCH_PG_URL; BENCH_ENGINES=sqlite
// skips PostgreSQL), through a real API server process: BENCH_KEYS (default 1,000) creations,
// BENCH_KEYS_CONCURRENCY (default 8) at a time, after BENCH_WARMUP_KEYS (default 200) discarded ones
// that let the server compile its validators and JIT its hot path; then the same one at a time.
// Each creation is a write transaction: the escalation checks, the key row and its security
// activity row. Reports creations per second and the latency p50 / p99 / max.
// Writes bench/results/keys.md.
import { createApiKey } from '../core/access/index.ts';
import { bindModels } from '../core/db/index.ts';
import { startServerProcess, killAll } from '../test/support/processes.ts';
import { Scratch, createOwner, enginesToRun, machineLines, runBenchmark, writeReport, type Engine } from './lib/harness.ts';

const KEYS = Number(process.env.BENCH_KEYS || 1000);
const WARMUP = Number(process.env.BENCH_WARMUP_KEYS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_KEYS_CONCURRENCY || 8);
const SERIAL = Math.max(50, Math.round(KEYS / 5));
const at = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

interface Run {
  perSecond: number;
  latencies: number[];
}
interface Result {
  engine: Engine;
  concurrent: Run;
  serial: Run;
}

async function measure(scratch: Scratch, engine: Engine): Promise<Result> {
  const { db, url } = await scratch.create(engine);
  bindModels(db);
  const owner = await createOwner(db, 'keys');
  const caller = await createApiKey(db, { userId: owner.userId, scopes: ['deploys', 'search', 'workspaces', 'webhooks', 'keys'], name: 'bench' });
  const server = await startServerProcess(url, { RATE_LIMIT_PER_MINUTE: '0' });
  let n = 0;
  const create = async (): Promise<number> => {
    n += 1;
    const started = performance.now();
    const res = await fetch(`${server.url}/v1/api-keys`, {
      method: 'POST',
      headers: { 'x-api-key': caller.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `bench ${n}`, scopes: ['deploys', 'search'], workspaceId: owner.workspaceId }),
    });
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`POST /v1/api-keys answered ${res.status}`);
    return performance.now() - started;
  };
  const run = async (count: number, concurrency: number): Promise<Run> => {
    const latencies: number[] = [];
    let left = count;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (left-- > 0) latencies.push(await create());
    }));
    const seconds = (performance.now() - t0) / 1000;
    latencies.sort((a, b) => a - b);
    return { perSecond: count / seconds, latencies };
  };
  await run(WARMUP, CONCURRENCY);
  const concurrent = await run(KEYS, CONCURRENCY);
  const serial = await run(SERIAL, 1);
  await server.stop();
  return { engine, concurrent, serial };
}

const scratch = new Scratch();
await runBenchmark(scratch, async () => {
  const results: Result[] = [];
  for (const engine of enginesToRun()) results.push(await measure(scratch, engine));
  await killAll();
  const row = (r: Result, label: string, run: Run, count: number) =>
    `| ${r.engine} | ${label} | ${count} | ${Math.round(run.perSecond)}/s | ${at(run.latencies, 50).toFixed(1)} | ${at(run.latencies, 99).toFixed(1)} | ${run.latencies.at(-1)!.toFixed(1)} |`;
  const lines = [
    '# bench:keys',
    '',
    ...machineLines('npm run bench:keys').filter((l) => !/^- (Columns|Shared machine|Load)/.test(l)),
    '',
    `One API server process per engine (rate limit off), a fresh database each. Each request is \`POST /v1/api-keys\` (a key bound to the workspace, scopes deploys and search) by an all-scope key: the escalation checks, the key's insert and its \`api_key.created\` security row in one write transaction. ${WARMUP} creations warm the server up first and are not counted. Latency is measured by the client, from request to the whole answer.`,
    '',
    '| engine | load | keys | created | p50 (ms) | p99 (ms) | max (ms) |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...results.flatMap((r) => [row(r, `${CONCURRENCY} at a time`, r.concurrent, KEYS), row(r, 'one at a time', r.serial, SERIAL)]),
  ];
  writeReport('keys.md', lines);
  console.log(lines.join('\n'));
});
