// Security changes take effect at once on every process: two API server processes on one
// database, the operator CLI as a third.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { engines, dropCreatedDatabases, freshDatabaseUrl } from './support/databases.ts';
import { killAll, runCli, startServerProcess, type ServerProc } from './support/processes.ts';
import { checkedFetch } from './support/contract.ts';

after(async () => {
  await killAll();
  await dropCreatedDatabases();
});

const get = (base: string, path: string, key: string) => checkedFetch(base, 'GET', path, { key });

for (const engine of engines()) {
  describe(`revocation across processes (${engine})`, () => {
    let url: string;
    let servers: ServerProc[];
    let owner: { accountId: string; userId: string; workspaceId: string; apiKey: string };

    before(async () => {
      url = await freshDatabaseUrl(engine);
      const boot = await runCli(url, ['bootstrap', '--email', `owner-${engine}@example.com`, '--workspace-name', `Revocation ${engine}`, '--website', 'https://www.example.com', '--json']);
      assert.equal(boot.code, 0, boot.stderr);
      owner = boot.json;
      servers = await Promise.all([startServerProcess(url), startServerProcess(url)]);
    });

    it('a key revoked with the CLI is refused on the next request on either server', async () => {
      const key = await runCli(url, ['keys', 'create', '--user', owner.userId, '--scopes', 'workspaces', '--json']);
      assert.equal(key.code, 0, key.stderr);
      for (const s of servers) assert.equal((await get(s.url, '/v1/workspaces', key.json.apiKey)).status, 200);
      const revoked = await runCli(url, ['keys', 'revoke', '--id', key.json.id, '--json']);
      assert.equal(revoked.code, 0, revoked.stderr);
      for (const s of servers) {
        const res = await get(s.url, '/v1/workspaces', key.json.apiKey);
        assert.equal(res.status, 401, `${s.url} answered ${res.status} right after the revocation`);
        assert.equal(res.body.code, 'unauthorized');
      }
    });

    it('a removed membership is 404 on the next request on either server; a changed role applies at once', async () => {
      const member = await runCli(url, ['users', 'create', '--email', `member-${engine}@example.com`, '--account', owner.accountId, '--json']);
      assert.equal(member.code, 0, member.stderr);
      const added = await runCli(url, ['members', 'add', '--workspace', owner.workspaceId, '--user', member.json.userId, '--role', 'viewer', '--json']);
      assert.equal(added.code, 0, added.stderr);
      const key = await runCli(url, ['keys', 'create', '--user', member.json.userId, '--scopes', 'workspaces,deploys', '--json']);
      assert.equal(key.code, 0, key.stderr);
      const k = key.json.apiKey as string;
      const path = `/v1/workspaces/${owner.workspaceId}`;
      for (const s of servers) assert.equal((await get(s.url, path, k)).status, 200);

      // A viewer cannot record a deploy; promoted to member, the very next request can.
      const deploy = (base: string) => checkedFetch(base, 'POST', '/v1/deploys', { key: k, body: { workspaceId: owner.workspaceId, commitSha: 'abcdef1', environment: 'staging' } });
      for (const s of servers) assert.equal((await deploy(s.url)).status, 403);
      assert.equal((await runCli(url, ['members', 'add', '--workspace', owner.workspaceId, '--user', member.json.userId, '--role', 'member'])).code, 0);
      for (const s of servers) assert.equal((await deploy(s.url)).status, 201);

      const removed = await runCli(url, ['members', 'remove', '--workspace', owner.workspaceId, '--user', member.json.userId, '--json']);
      assert.equal(removed.code, 0, removed.stderr);
      for (const s of servers) {
        const res = await get(s.url, path, k);
        assert.equal(res.status, 404, `${s.url} answered ${res.status} right after the removal`);
        assert.equal(res.body.code, 'not_found');
        // The (unbound) key itself still works, for what the user can still see.
        assert.deepEqual((await get(s.url, '/v1/workspaces', k)).body.data, []);
      }
    });
  });
}
