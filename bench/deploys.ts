// npm run bench:deploys
//
// On SQLite and PostgreSQL, measured in the same run:
// 1. POST /v1/deploys (a new commit sha on every request, 5 changes with 2 signals each) through
//    the real server, next to a bare Koa + Knex route doing the same upsert, check + job,
//    crawl + job and events row in one transaction (bench/lib/bare.ts) on a database of the
//    same kind. Target: the real route reaches at least 60% of the bare route's req/s.
// 2. GET /v1/deploys?workspace_id=...&limit=50 on the workspace the POST runs filled, next to
//    the bare route's same two queries (reference, no target).
// 3. GET /v1/deploys list latency with 1,000 deploys in a workspace, then with 100,000 (seeded
//    with bulk inserts, deployed_at spread over time, a finished check per production deploy).
//    Target: p99 at 100k within 1.5x of p99 at 1k.
//
// Writes bench/results/deploys.md. Environment: BENCH_DURATION (10), BENCH_WARMUP (3),
// BENCH_CONNECTIONS (50), BENCH_ROUNDS (3), BENCH_ENGINES (sqlite,postgres), BENCH_PG_URL,
// BENCH_CPU_PROF=<dir>, BENCH_REQUEST_LOG=off, BENCH_LIST_SIZES (1000,100000).

import crypto from 'node:crypto';
import { type Db, isPostgres } from '../core/db/index.ts';
import { newId } from '../core/platform/index.ts';
import {
  Scratch,
  SETTINGS,
  addWorkspace,
  compare,
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
  type Case,
  type Engine,
  type Measurement,
  type Target,
} from './lib/harness.ts';

const POST_TARGET = 0.6;
const LIST_P99_TARGET = 1.5;
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

interface EngineResult {
  engine: Engine;
  post: { bare: Measurement; app: Measurement };
  list: { bare: Measurement; app: Measurement; deploys: number };
  sizes: Array<{ size: number; loaded: Measurement; single: Measurement }>;
  requestLog: string;
}

async function benchEngine(scratch: Scratch, engine: Engine): Promise<EngineResult> {
  console.log(`\n${engine}`);
  const appDb = await scratch.create(engine);
  const bareDb = await scratch.create(engine);
  const owner = await createOwner(appDb.db, 'deploys');
  const bareOwner = await createOwner(bareDb.db, 'deploys-bare'); // the bare route's workspace row
  const sized = await addWorkspace(appDb.db, owner, 'list');
  await bareDb.db.destroy();
  const app = await startServerChild('app', appDb.url);
  const bare = await startServerChild('bare-deploys', bareDb.url);
  try {
    // 1. POST
    const headers = { 'x-api-key': owner.apiKey };
    const appPost: Case = { label: `POST /v1/deploys, ${engine}`, server: app, target: { method: 'POST', path: '/v1/deploys', headers, body: deployBody(owner.workspaceId) } };
    const barePost: Case = { label: `bare Koa + Knex POST, ${engine}`, server: bare, target: { method: 'POST', path: '/v1/deploys', headers, body: deployBody(bareOwner.workspaceId) } };
    await probe(app.url, appPost.target, 201);
    await probe(bare.url, barePost.target, 201);
    const [postBare, postApp] = await compare([barePost, appPost]);

    // 2. GET list of the workspace the POST runs filled
    const appList: Case = { label: `GET /v1/deploys (limit ${LIST_LIMIT}), ${engine}`, server: app, target: listTarget(owner.workspaceId, owner.apiKey) };
    const bareList: Case = { label: `bare Koa + Knex list, ${engine}`, server: bare, target: listTarget(bareOwner.workspaceId, owner.apiKey) };
    const page = (await probe(app.url, appList.target, 200)) as { data: unknown[] };
    const barePage = (await probe(bare.url, bareList.target, 200)) as { data: unknown[] };
    if (page.data.length !== LIST_LIMIT || barePage.data.length !== LIST_LIMIT) throw new Error('the list did not return a full page');
    const filled = Number(((await appDb.db('deploys').where({ workspace_id: owner.workspaceId }).count({ n: '*' }).first()) as { n: number | string }).n);
    const [listBare, listApp] = await compare([bareList, appList]);

    // 3. list latency by workspace size
    const sizes: EngineResult['sizes'] = [];
    let seeded = 0;
    for (const size of SIZES) {
      process.stdout.write(`  seeding ${fmt(size - seeded)} deploys (${fmt(size)} in all) ... `);
      const t0 = performance.now();
      await seedDeploys(appDb.db, sized, size - seeded, (size / DEPLOYS_PER_DAY) * DAY_MS);
      seeded = size;
      console.log(`${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const target = listTarget(sized, owner.apiKey);
      await probe(app.url, target, 200);
      const loaded = await measure({ label: `GET /v1/deploys, ${fmt(size)} deploys, ${SETTINGS.connections} connections, ${engine}`, server: app, target });
      const single = await measure({ label: `GET /v1/deploys, ${fmt(size)} deploys, 1 connection, ${engine}`, server: app, target, connections: 1 });
      sizes.push({ size, loaded, single });
    }
    return { engine, post: { bare: postBare, app: postApp }, list: { bare: listBare, app: listApp, deploys: filled }, sizes, requestLog: app.requestLog };
  } finally {
    await app.stop();
    await bare.stop();
  }
}

const scratch = new Scratch();

await runBenchmark(scratch, async () => {
  console.log(`bench:deploys: ${SETTINGS.connections} connections, ${SETTINGS.warmup} s warm-up + ${SETTINGS.duration} s per run, ${SETTINGS.rounds} round(s)`);
  const results: EngineResult[] = [];
  for (const engine of enginesToRun()) results.push(await benchEngine(scratch, engine));

  const lines = [
    '# bench:deploys: recording and listing deploys vs bare Koa + Knex',
    '',
    ...machineLines('npm run bench:deploys'),
    `- Real server: \`startServer({ db, config, log })\` as server/main.ts calls it; request log sink: ${results[0]?.requestLog ?? 'none'}${process.env.BENCH_REQUEST_LOG === 'off' ? ' (replaced by the discarding sink: BENCH_REQUEST_LOG=off)' : ''}.`,
    '',
    '## POST /v1/deploys',
    '',
    'Every request records a new production deploy (a random 40-hex commit sha; 5 changes with 2 signals each; about 1 KB). The real route: key auth, body read and ajv validation, access check (member role), `recordDeploy` (one transaction: the upsert, a site_check record and its job, a site_crawl record and its job, the deploy.recorded event), the request log hand-off. The bare route: Koa + @koa/router + raw-body, and in one transaction the same `INSERT ... ON CONFLICT (workspace_id, environment, commit_sha) DO NOTHING RETURNING id`, the same check, crawl, job and event inserts, on its own database of the same kind (same migrations).',
    '',
    ...table(results.flatMap((r) => [r.post.bare, r.post.app]), [{ header: 'vs bare', cell: (m) => pct(m.reqPerSec / results.find((r) => r.post.app === m || r.post.bare === m)!.post.bare.reqPerSec) }]),
    '',
    `Target: the real route reaches at least ${pct(POST_TARGET)} of the bare route's req/s.`,
    '',
    ...results.map((r) => {
      const ratio = r.post.app.reqPerSec / r.post.bare.reqPerSec;
      return `- ${r.engine}: ${pct(ratio)} (${fmt(r.post.app.reqPerSec)} vs ${fmt(r.post.bare.reqPerSec)} req/s): ${ratio >= POST_TARGET ? 'met' : 'MISSED'}`;
    }),
    '',
    `## GET /v1/deploys?workspace_id=…&limit=${LIST_LIMIT}`,
    '',
    'The workspace the POST runs filled, newest first, each deploy with its newest check; the bare route runs the same two queries (page of deploys, their checks) and maps them to the same shape. Reference only, no target.',
    '',
    ...table(results.flatMap((r) => [r.list.bare, r.list.app]), [{ header: 'vs bare', cell: (m) => pct(m.reqPerSec / results.find((r) => r.list.app === m || r.list.bare === m)!.list.bare.reqPerSec) }]),
    '',
    ...results.map((r) => `- ${r.engine}: the real route's workspace held ${fmt(r.list.deploys)} deploys.`),
    '',
    '## List latency by workspace size',
    '',
    `One workspace seeded with bulk inserts into \`deploys\` (batches of 1,000 rows on PostgreSQL, 400 on SQLite, in one transaction): ${SIZES.map((n) => fmt(n)).join(', then ')} deploys, deployed_at uniform over the last ${SIZES.map((n) => fmt(n / DEPLOYS_PER_DAY)).join(' / ')} days (about ${DEPLOYS_PER_DAY} a day; later batches interleave with earlier ones), 85% production, each production deploy with a finished site check. PostgreSQL: \`ANALYZE deploys, site_checks\` after each load (what autovacuum does shortly after). \`GET /v1/deploys?workspace_id=…&limit=${LIST_LIMIT}\` measured at ${SETTINGS.connections} connections (throughput and queueing) and at 1 connection (latency of one request at a time).`,
    '',
    ...table(results.flatMap((r) => r.sizes.flatMap((s) => [s.loaded, s.single]))),
    '',
    `Target: p99 at ${fmt(SIZES[SIZES.length - 1])} deploys within ${LIST_P99_TARGET}x of p99 at ${fmt(SIZES[0])} (${SETTINGS.connections} connections).`,
    '',
    ...results.map((r) => {
      const small = r.sizes[0];
      const big = r.sizes[r.sizes.length - 1];
      const ratio = big.loaded.p99 / small.loaded.p99;
      return (
        `- ${r.engine}: p99 ${big.loaded.p99} ms vs ${small.loaded.p99} ms = ${ratio.toFixed(2)}x: ${ratio <= LIST_P99_TARGET ? 'met' : 'MISSED'}` +
        ` (1 connection: p99 ${big.single.p99} ms vs ${small.single.p99} ms = ${(big.single.p99 / small.single.p99).toFixed(2)}x)`
      );
    }),
  ];
  writeReport('deploys.md', lines);
});
