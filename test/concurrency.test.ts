// Several processes writing one database at once, as `npm start`, more API servers, workers and an
// operator at the CLI do: no "database is locked", no 5xx, no lost write. And a lock held past
// the bounded wait is a 503 with Retry-After, never a hang or a 500.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import knexFactory from 'knex';
import { createDb, Deploy, Workspace } from '../core/db/index.ts';
import { engines, dropCreatedDatabases, freshDatabaseUrl } from './support/databases.ts';
import { killAll, runCli, startServerProcess, startWorkerProcess } from './support/processes.ts';
import { checkedFetch } from './support/contract.ts';
import { TestApi } from './support/api.ts';

after(async () => {
  await killAll();
  await dropCreatedDatabases();
});

// 8 s: every kind of writer overlaps the others many times (hundreds of requests; the CLI loop
// always completes a round of five commands, each a process of its own).
const LOAD_SECONDS = Number(process.env.STRESS_SECONDS || 8);
const CLIENTS = 20;

for (const engine of engines()) {
  describe(`several processes writing at once (${engine})`, () => {
    it(`server, worker and CLI loop with ${CLIENTS} API clients: zero 5xx, zero CLI failures, every acknowledged write stored`, async (t) => {
      const url = await freshDatabaseUrl(engine);
      const boot = await runCli(url, ['bootstrap', '--email', `stress-${engine}@example.com`, '--workspace-name', `Stress ${engine}`, '--website', 'https://www.example.com', '--json']);
      assert.equal(boot.code, 0, boot.stderr);
      const owner = boot.json as { accountId: string; userId: string; workspaceId: string; apiKey: string };
      assert.equal((await runCli(url, ['accounts', 'set-limit', '--account', owner.accountId, '--workspaces', '100000'])).code, 0);

      // Checks and crawls due at once, so the worker claims and writes during the load too.
      const env = { SITE_CHECK_DELAY_SECONDS: '0', CRAWL_DELAY_SECONDS: '0' };
      const [server] = await Promise.all([startServerProcess(url, env), startWorkerProcess(url, { ...env, WORKER_POLL_MS: '50' })]);

      const until = Date.now() + LOAD_SECONDS * 1000;
      const statuses = new Map<number, number>();
      const workspaces: string[] = [];
      const deploys: string[] = [];
      const count = (s: number) => statuses.set(s, (statuses.get(s) ?? 0) + 1);

      const client = async (n: number) => {
        for (let i = 0; Date.now() < until; i++) {
          const ws = await checkedFetch(server.url, 'POST', '/v1/workspaces', {
            key: owner.apiKey,
            body: { name: `Stress ${engine} ${n}-${i} ${crypto.randomUUID()}`, website: 'https://www.example.com' },
            allow5xx: true,
          });
          count(ws.status);
          if (ws.status !== 201) continue;
          workspaces.push(ws.body.data.id);
          for (let d = 0; d < 3; d++) {
            const sha = crypto.randomBytes(20).toString('hex');
            const res = await checkedFetch(server.url, 'POST', '/v1/deploys', {
              key: owner.apiKey,
              body: { workspaceId: ws.body.data.id, commitSha: sha, changes: [{ path: `src/pages/p${d}.tsx`, category: 'page' }] },
              allow5xx: true,
            });
            count(res.status);
            if (res.status === 201) deploys.push(res.body.id);
          }
        }
      };

      const cliFailures: string[] = [];
      let cliRuns = 0;
      const cliLoop = async () => {
        for (let i = 0; Date.now() < until; i++) {
          const run = async (args: string[]) => {
            const r = await runCli(url, [...args, '--json']);
            cliRuns += 1;
            if (r.code !== 0) cliFailures.push(`${args.join(' ')}: exit ${r.code}: ${r.stderr.trim()}`);
            return r.json;
          };
          const user = await run(['users', 'create', '--email', `cli-${engine}-${i}-${crypto.randomUUID()}@example.com`]);
          if (!user) continue;
          await run(['members', 'add', '--workspace', owner.workspaceId, '--user', user.userId, '--role', 'viewer']);
          const key = await run(['keys', 'create', '--user', user.userId, '--scopes', 'deploys,search']);
          if (key) await run(['keys', 'revoke', '--id', key.id]);
          await run(['accounts', 'set-limit', '--account', user.accountId, '--workspaces', String(5 + i)]);
        }
      };

      await Promise.all([...Array.from({ length: CLIENTS }, (_, n) => client(n)), cliLoop()]);
      await server.stop();

      t.diagnostic(`${workspaces.length} workspaces, ${deploys.length} deploys, ${cliRuns} CLI commands; statuses ${JSON.stringify([...statuses])}`);
      const fivexx = [...statuses].filter(([s]) => s >= 500);
      assert.deepEqual(fivexx, [], `5xx answers: ${JSON.stringify([...statuses])}`);
      assert.deepEqual(cliFailures, [], 'CLI failures');
      assert.ok(cliRuns >= 3, `the CLI loop ran (${cliRuns} commands)`);
      assert.ok(workspaces.length >= CLIENTS, `load ran: ${workspaces.length} workspaces, ${deploys.length} deploys`);

      const db = createDb(url);
      try {
        const storedWs = new Set((await Workspace.query(db).whereIn('id', workspaces).select('id')).map((w) => w.id));
        assert.equal(storedWs.size, workspaces.length, 'every acknowledged workspace is stored');
        const storedDeploys = new Set<string>();
        for (let i = 0; i < deploys.length; i += 500) {
          for (const d of await Deploy.query(db).whereIn('id', deploys.slice(i, i + 500)).select('id')) storedDeploys.add(d.id);
        }
        assert.equal(storedDeploys.size, deploys.length, 'every acknowledged deploy is stored');
      } finally {
        await db.destroy();
      }
    });
  });

  describe(`a lock held past the bounded wait (${engine})`, () => {
    let api: TestApi;
    let owner: Awaited<ReturnType<TestApi['owner']>>;
    before(async () => {
      api = await TestApi.start(engine, { env: { DB_BUSY_WAIT_MS: '400' } });
      owner = await api.owner();
    });
    after(async () => {
      await api.stop();
    });

    it('answers 503 service_unavailable with Retry-After, changes nothing, and serves again once the lock is gone', async () => {
      const before = await Workspace.query(api.db).resultSize();
      const release = await holdWriteLock(engine, api.dbUrl, owner.accountId);
      let res;
      try {
        const started = Date.now();
        res = await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `Locked ${crypto.randomUUID()}`, website: 'https://x.example' }, allow5xx: true });
        const waited = Date.now() - started;
        assert.equal(res.status, 503, res.text);
        assert.equal(res.body.code, 'service_unavailable');
        assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
        assert.ok(waited >= 350, `waited ${waited} ms for the lock before giving up`);
        // Reads do not wait for the writer.
        assert.equal((await api.call('GET', `/v1/workspaces/${owner.workspaceId}`, { key: owner.apiKey })).status, 200);
      } finally {
        await release();
      }
      assert.equal(await Workspace.query(api.db).resultSize(), before, 'the refused request wrote nothing');
      const again = await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `Unlocked ${crypto.randomUUID()}`, website: 'https://x.example' } });
      assert.equal(again.status, 201);
    });
  });
}

/** Holds the lock a workspace creation needs from a connection of the test's own; returns its release. */
async function holdWriteLock(engine: 'sqlite' | 'postgres', url: string, accountId: string): Promise<() => Promise<void>> {
  if (engine === 'sqlite') {
    const conn = new Database(url.slice('sqlite:'.length));
    conn.exec('BEGIN IMMEDIATE');
    return async () => {
      conn.exec('ROLLBACK');
      conn.close();
    };
  }
  const k = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  const trx = await k.transaction();
  await trx('accounts').where({ id: accountId }).forUpdate().select('id');
  return async () => {
    await trx.rollback();
    await k.destroy();
  };
}
