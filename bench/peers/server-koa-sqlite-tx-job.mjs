// The `pg-tx-job` route of ../shared/peers/server-koa.mjs, line for line, on SQLite: Koa 3 +
// @koa/router + @koa/bodyparser, and in one Knex transaction the deploy upsert plus one job row.
// The peers have no SQLite version of that route; bench:deploys copies this file next to theirs
// (it imports their lib.mjs and schema.mjs) so the SQLite yardstick is the same simplest code.
// The database is set up as the peers' `koa-post-sqlite-wal` case and as sitehealth's own:
// journal_mode=WAL, synchronous=NORMAL.
// argv[2] = JSON options { file }.
import http from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import knexFactory from 'knex';
import { serveChild } from './lib.mjs';
import { DEPLOYS_SQLITE } from './schema.mjs';

const opts = JSON.parse(process.argv[2] || '{}');
const info = { mode: 'sqlite-tx-job' };

// The peers' JOBS_PG table, in SQLite's types.
const JOBS_SQLITE = [
  `create table if not exists jobs (
    id           integer primary key,
    queue        text not null default 'default',
    payload      text not null default '{}',
    status       text not null default 'queued',
    run_at       text not null default (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    attempts     integer not null default 0,
    max_attempts integer not null default 5,
    locked_at    text,
    locked_by    text,
    last_error   text,
    created_at   text not null default (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
    finished_at  text
  )`,
  `create index if not exists jobs_claimable on jobs (queue, run_at, id) where status = 'queued'`,
];

const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: opts.file }, useNullAsDefault: true });
await knex.raw('pragma journal_mode = wal');
await knex.raw('pragma synchronous = normal');
for (const s of [...DEPLOYS_SQLITE, ...JOBS_SQLITE]) await knex.raw(s);
info.journal_mode = (await knex.raw('pragma journal_mode'))[0].journal_mode;

const FIELDS = ['service', 'version', 'status', 'deployed_by', 'started_at', 'finished_at', 'url', 'metadata'];

function toRow(b) {
  if (!b || typeof b.environment !== 'string' || typeof b.commit_sha !== 'string' || typeof b.service !== 'string' || typeof b.status !== 'string') {
    return null;
  }
  return {
    environment: b.environment,
    commit_sha: b.commit_sha,
    service: b.service,
    version: b.version ?? null,
    status: b.status,
    deployed_by: b.deployed_by ?? null,
    started_at: b.started_at ?? null,
    finished_at: b.finished_at ?? null,
    url: b.url ?? null,
    metadata: JSON.stringify(b.metadata ?? {}),
  };
}

const app = new Koa();
const router = new Router();
router.post('/v1/deploys', async (ctx) => {
  const row = toRow(ctx.request.body);
  if (!row) ctx.throw(422, 'invalid deploy');
  const id = await knex.transaction(async (trx) => {
    const [r] = await trx('deploys')
      .insert(row)
      .onConflict(['environment', 'commit_sha'])
      .merge({ ...Object.fromEntries(FIELDS.map((f) => [f, row[f]])), updated_at: knex.raw("strftime('%Y-%m-%dT%H:%M:%fZ','now')") })
      .returning(['id']);
    await trx('jobs').insert({ queue: 'deploy', payload: JSON.stringify({ deploy_id: r.id }) });
    return r.id;
  });
  ctx.status = 201;
  ctx.body = { id: Number(id) };
});

app.use(bodyParser());
app.use(router.routes()).use(router.allowedMethods());
app.silent = true;

const server = http.createServer(app.callback());
serveChild(server, info, async () => {
  await new Promise((r) => setTimeout(r, 500));
  await knex.destroy();
});
