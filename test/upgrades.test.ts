// Rolling upgrades: while a newer release's migrations have run, processes of the previous
// release still start and serve (docs/operating.md, "Upgrades").
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, describe, it } from 'node:test';
import { createDb, migrateLatest } from '../core/db/index.ts';
import { engines, dropCreatedDatabases, freshDatabaseUrl } from './support/databases.ts';
import { killAll, runCli, startServerProcess, startWorkerProcess } from './support/processes.ts';
import { checkedFetch } from './support/contract.ts';
import { startReceiver, type Receiver } from './support/https-receiver.ts';

const receivers: Receiver[] = [];
after(async () => {
  await killAll();
  await Promise.all(receivers.map((r) => r.close()));
  await dropCreatedDatabases();
});

/** Standard Webhooks' body signature of `body` under `secret`, computed here, apart from the server's code. */
const bodySignature = (secret: string, body: string) => {
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
  return `v1,${crypto.createHmac('sha256', key).update(body, 'utf8').digest('base64')}`;
};

const SEALING = '20261201000200_webhook_secrets_sealed.ts';

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

for (const engine of engines()) {
  describe(`webhook secrets stored before they were sealed (${engine})`, () => {
    it('without SECRETS_KEY the upgrade leaves them as they are; with it, seals them in place; the webhook then signs with the same secrets', async () => {
      const url = await freshDatabaseUrl(engine);
      const boot = await runCli(url, ['bootstrap', '--email', `sealing-${engine}@example.com`, '--workspace-name', 'Sealing', '--website', 'https://www.example.com', '--json']);
      assert.equal(boot.code, 0, boot.stderr);
      const receiver = await startReceiver();
      receivers.push(receiver);
      const id = crypto.randomUUID();
      const current = `whsec_${crypto.randomBytes(32).toString('base64')}`;
      const previous = 'a previous secret, rotated an hour ago';
      const db = createDb(url);
      try {
        // The database as the previous release left it: the sealing migration not applied, a
        // webhook (rotated within the last 24 hours) holding both its secrets as given.
        await db('knex_migrations').where({ name: SEALING }).delete();
        const now = Date.now();
        await db('webhooks').insert({
          id, workspace_id: boot.json.workspaceId, name: 'from before', url: receiver.url('/upgrade'), events: JSON.stringify(['deploy.recorded']), secret: current,
          previous_secret: previous, previous_secret_until: now + 23 * 3_600_000, headers: '[]', active: true, failure_count: 0, failing_since: null, last_triggered_at: null, created_at: now, updated_at: now,
        });
        const stored = async () => (await db('webhooks').where({ id }).first()) as { secret: string; previous_secret: string };

        // Without SECRETS_KEY nothing can be sealed: the upgrade goes through and leaves the row
        // as it was (secrets stay stored as given), and reseal has no key to seal with.
        const unkeyed = await runCli(url, ['secrets', 'reseal', '--json'], { SECRETS_KEY: '' });
        assert.equal(unkeyed.code, 0, unkeyed.stderr);
        assert.equal(unkeyed.json.webhookSecrets, 0);
        assert.ok(await db('knex_migrations').where({ name: SEALING }).first(), 'the migration ran');
        assert.deepEqual([(await stored()).secret, (await stored()).previous_secret], [current, previous]);

        // With SECRETS_KEY (this test process's), the same upgrade seals them in place.
        await db('knex_migrations').where({ name: SEALING }).delete();
        assert.deepEqual(await migrateLatest(db), [SEALING]);
        const sealed = await stored();
        for (const [column, plain] of [[sealed.secret, current], [sealed.previous_secret, previous]]) {
          assert.match(column, /^v1\.[0-9a-f]{8}\./);
          assert.ok(!column.includes(plain) && !column.includes(plain.slice(6)), 'no plaintext left');
        }
        assert.deepEqual(await migrateLatest(db), [], 'applied once');

        // A webhook a server of the previous release created during the rollout, stored as given:
        // secrets reseal seals it.
        const late = crypto.randomUUID();
        await db('webhooks').insert({ ...(await db('webhooks').where({ id }).first()), id: late, secret: 'created by a previous-release server', previous_secret: null, previous_secret_until: null });
        const resealed = await runCli(url, ['secrets', 'reseal', '--json']);
        assert.equal(resealed.code, 0, resealed.stderr);
        assert.equal(resealed.json.webhookSecrets, 1);
        assert.match((await db('webhooks').where({ id: late }).first()).secret, /^v1\.[0-9a-f]{8}\./);
        assert.deepEqual(await stored(), sealed, 'what was sealed already is left alone');
      } finally {
        await db.destroy();
      }

      // A server of this release signs with both secrets, as before the upgrade.
      const server = await startServerProcess(url, { ALLOW_PRIVATE_NETWORK: '1', NODE_EXTRA_CA_CERTS: receiver.certFile });
      const res = await checkedFetch(server.url, 'POST', `/v1/webhooks/${id}/test`, { key: boot.json.apiKey });
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'success', JSON.stringify(res.body));
      const [got] = await receiver.waitFor('/upgrade', 1);
      assert.deepEqual(got.headers['webhook-body-signature'].split(' '), [bodySignature(current, got.body), bodySignature(previous, got.body)]);
    });
  });
}
