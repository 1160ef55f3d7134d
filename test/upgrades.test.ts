// Rolling upgrades: while a newer release's migrations have run, processes of the previous
// release still start and serve (docs/operating.md, "Upgrades").
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createDb, migrateLatest } from '../core/db/index.ts';
import { engines, dropCreatedDatabases, freshDatabaseUrl } from './support/databases.ts';
import { killAll, runCli, startServerProcess, startWorkerProcess } from './support/processes.ts';
import { checkedFetch } from './support/contract.ts';

after(async () => {
  await killAll();
  await dropCreatedDatabases();
});

for (const engine of engines()) {
  describe(`a database ahead of this release (${engine})`, () => {
    it('starts the server, the worker and the CLI, applies nothing and serves', async () => {
      const url = await freshDatabaseUrl(engine);
      const db = createDb(url);
      try {
        await migrateLatest(db);
        // What the next release's migration leaves behind: a row this release has no file for.
        await db('knex_migrations').insert({ name: '20991231000000_next_release_change.ts', batch: 99, migration_time: new Date() });
        assert.deepEqual(await migrateLatest(db), []);
      } finally {
        await db.destroy();
      }
      // All three start on the database at once, as they may in production.
      const [boot, server] = await Promise.all([runCli(url, ['bootstrap', '--email', `upgrade-${engine}@example.com`, '--json']), startServerProcess(url), startWorkerProcess(url)]);
      assert.equal(boot.code, 0, boot.stderr);
      const res = await checkedFetch(server.url, 'GET', '/v1/workspaces', { key: boot.json.apiKey });
      assert.equal(res.status, 200);
      assert.equal((await fetch(`${server.url}/ready`)).status, 200);
    });
  });
}
