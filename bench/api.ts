// npm run bench:api
//
// GET /v1/workspaces/{id} with a valid key through the whole stack (key auth, ajv validation,
// access check, handler, and the request log startServer wires by default), on SQLite and on
// PostgreSQL, next to a bare Koa route returning the same JSON, measured in the same run.
// Target: the real route reaches at least 50% of the bare route's req/s.
// For reference (no target) a third server per engine runs the real route's two queries
// through Knex and nothing else, which separates the cost of the stack from that of the database.
//
// Writes bench/results/api.md. Environment: BENCH_DURATION (10), BENCH_WARMUP (3),
// BENCH_CONNECTIONS (50), BENCH_ROUNDS (3), BENCH_ENGINES (sqlite,postgres), BENCH_PG_URL,
// BENCH_CPU_PROF=<dir> (V8 CPU profiles of the servers), BENCH_REQUEST_LOG=off.

import {
  Scratch,
  SETTINGS,
  compare,
  createOwner,
  enginesToRun,
  fmt,
  machineLines,
  pct,
  probe,
  runBenchmark,
  startServerChild,
  table,
  writeReport,
  type Case,
  type Measurement,
  type ServerChild,
} from './lib/harness.ts';

const TARGET_RATIO = 0.5;

const scratch = new Scratch();

await runBenchmark(scratch, async () => {
  console.log(`bench:api: ${SETTINGS.connections} connections, ${SETTINGS.warmup} s warm-up + ${SETTINGS.duration} s per run, ${SETTINGS.rounds} round(s)`);

  // Per engine: a database with an owner, workspace and key; the real server; and the bare
  // Koa + Knex server on the same database.
  const engines: Array<{ engine: string; app: Case; withDb: Case }> = [];
  const servers: ServerChild[] = [];
  for (const engine of enginesToRun()) {
    const s = await scratch.create(engine);
    const owner = await createOwner(s.db, 'api');
    await s.db.destroy(); // the server children are the only users of the database during the runs
    const app = await startServerChild('app', s.url);
    const withDb = await startServerChild('bare-workspace-db', s.url);
    servers.push(app, withDb);
    const target = { method: 'GET' as const, path: `/v1/workspaces/${owner.workspaceId}`, headers: { 'x-api-key': owner.apiKey } };
    engines.push({
      engine,
      app: { label: `GET /v1/workspaces/{id}, ${engine}`, server: app, target },
      withDb: { label: `bare Koa + Knex (key, membership, workspace), ${engine}`, server: withDb, target },
    });
  }

  // The bare route returns exactly the JSON the real route returned.
  const sample = await probe(engines[0].app.server.url, engines[0].app.target, 200);
  for (const e of engines) {
    await probe(e.app.server.url, e.app.target, 200);
    await probe(e.withDb.server.url, e.withDb.target, 200);
  }
  const bareServer = await startServerChild('bare-workspace', null, { BENCH_BODY: JSON.stringify(sample) });
  servers.push(bareServer);
  const bare: Case = { label: 'bare Koa route (fixed object)', server: bareServer, target: { method: 'GET', path: engines[0].app.target.path } };
  await probe(bare.server.url, bare.target, 200);

  const cases = [bare, ...engines.flatMap((e) => [e.withDb, e.app])];
  const results = await compare(cases);
  const byLabel = new Map(results.map((m) => [m.label, m]));
  const bareRun = byLabel.get(bare.label)!;
  const requestLog = engines[0].app.server.requestLog;
  for (const s of servers) await s.stop();

  const ratio = (m: Measurement) => m.reqPerSec / bareRun.reqPerSec;
  const real = engines.map((e) => ({ engine: e.engine, m: byLabel.get(e.app.label)!, withDb: byLabel.get(e.withDb.label)! }));
  const lines = [
    '# bench:api: authenticated, validated GET vs a bare Koa route',
    '',
    ...machineLines('npm run bench:api'),
    `- Real server: \`startServer({ db, config, log })\` as server/main.ts calls it; request log sink: ${requestLog}${process.env.BENCH_REQUEST_LOG === 'off' ? ' (replaced by the discarding sink: BENCH_REQUEST_LOG=off)' : ''}.`,
    '',
    '`GET /v1/workspaces/{id}` with an all-scope owner key: key authentication with no cache (the key, the caller\'s role and the workspace row in one prepared query), ajv validation of path and query, the response, the request log hand-off. The bare route is Koa + @koa/router returning a fixed object: the same JSON the real route returned. The "bare Koa + Knex" rows (reference, no target) read the same facts as simply as possible: the key by its hash, then the membership and the workspace row, three query-builder queries on the same database.',
    '',
    ...table(results, [{ header: 'vs bare', cell: (m) => pct(ratio(m)) }]),
    '',
    `Target: the real route reaches at least ${pct(TARGET_RATIO)} of the bare route's req/s.`,
    '',
    ...real.map(
      (r) =>
        `- ${r.engine}: ${pct(ratio(r.m))} of bare (${fmt(r.m.reqPerSec)} vs ${fmt(bareRun.reqPerSec)} req/s): ${ratio(r.m) >= TARGET_RATIO ? 'met' : 'MISSED'}; ` +
        `${pct(r.m.reqPerSec / r.withDb.reqPerSec)} of bare Koa + Knex (${fmt(r.withDb.reqPerSec)} req/s), which itself reaches ${pct(ratio(r.withDb))} of bare.`,
    ),
    '',
    'The "bare Koa + Knex" rows show what a route that reads the same facts the simplest way reaches on this machine: where they are themselves below the target, the gap to the fixed-object route is the database round trips (query building, driver, the database), not the stack around them; compare the server CPU per request of the three rows.',
  ];
  writeReport('api.md', lines);
  for (const r of real) if (ratio(r.m) < TARGET_RATIO) console.log(`target missed on ${r.engine}: ${pct(ratio(r.m))} of bare`);
});
