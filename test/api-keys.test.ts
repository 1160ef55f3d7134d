// API keys over the API (spec/api-keys.tsp, docs/api.md#api-keys): the secret shown once in a
// format a scanner can verify offline, no escalation (each rule its own 403), expiry and
// rotation with overlap, lastUsedAt to the minute, the security rows (never a fragment of a key),
// and the whole lifecycle across two server processes.
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { SiteHealth, AuthenticationError, PermissionError } from '@sitehealth/sdk';
import { engines, dropCreatedDatabases, freshDatabaseUrl } from './support/databases.ts';
import { TestApi, ALL_SCOPES } from './support/api.ts';
import { killAll, runCli, startServerProcess, type ServerProc } from './support/processes.ts';
import { checkedFetch } from './support/contract.ts';

after(async () => {
  await killAll();
  await dropCreatedDatabases();
});

const EVERY_SCOPE = [...ALL_SCOPES];
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The documented check, written independently of core/access/key-format.ts (zlib's CRC32). */
function checksumValid(key: string): boolean {
  const m = /^sh_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/.exec(key);
  if (!m) return false;
  let n = zlib.crc32(m[1]);
  let digits = '';
  while (n > 0) {
    digits = BASE62[n % 62] + digits;
    n = Math.floor(n / 62);
  }
  return digits.padStart(6, '0') === m[2];
}

for (const engine of engines()) {
  describe(`API keys over the API (${engine})`, () => {
    let api: TestApi;
    let o: Awaited<ReturnType<TestApi['owner']>>;
    let ownerKey: string;

    before(async () => {
      api = await TestApi.start(engine);
      o = await api.owner();
      ownerKey = (await api.key(o.userId, { scopes: EVERY_SCOPE })).apiKey;
    });
    after(() => api.stop());

    const securityRows = async (key = ownerKey) => (await api.call('GET', '/v1/activity', { key, query: { kind: 'security', limit: 100 } })).body.data as any[];

    it('shows the key once, in the documented format; list and get never show it; the key works at once', async () => {
      const res = await api.call('POST', '/v1/api-keys', { key: ownerKey, body: { name: 'CI deploys', scopes: ['deploys', 'search', 'search'], workspaceId: o.workspaceId } });
      assert.equal(res.status, 201, res.text);
      const k = res.body;
      assert.match(k.key, /^sh_[0-9A-Za-z]{38}$/);
      assert.ok(checksumValid(k.key), 'the checksum verifies offline');
      let tampered = k.key.slice(0, 10) + (k.key[10] === 'a' ? 'b' : 'a') + k.key.slice(11);
      assert.ok(!checksumValid(tampered));
      assert.equal(k.prefix, k.key.slice(0, 8));
      assert.equal(k.last4, k.key.slice(-4));
      assert.deepEqual(k.scopes, ['deploys', 'search']);
      assert.equal(k.workspaceId, o.workspaceId);
      assert.equal(k.expiresAt, null);
      assert.equal(k.lastUsedAt, null);
      assert.equal(k.revokedAt, null);
      assert.equal(k.name, 'CI deploys');

      // A key with a valid shape whose checksum fails never reaches the database: 401 all the same.
      tampered = k.key.slice(0, -1) + (k.key.at(-1) === 'a' ? 'b' : 'a');
      assert.equal((await api.call('GET', `/v1/deploys`, { key: tampered, query: { workspace_id: o.workspaceId } })).status, 401);

      const used = await api.call('POST', '/v1/deploys', { key: k.key, body: { commitSha: 'abcdef1', environment: 'staging' } });
      assert.equal(used.status, 201, used.text);

      const one = await api.call('GET', `/v1/api-keys/${k.id}`, { key: ownerKey });
      assert.equal(one.status, 200);
      assert.ok(!('key' in one.body) && !one.text.includes(k.key));
      const list = await api.call('GET', '/v1/api-keys', { key: ownerKey });
      assert.equal(list.status, 200);
      assert.ok(list.body.data.some((x: any) => x.id === k.id));
      assert.ok(!list.text.includes(k.key));
      const stored = await api.db('api_keys').where({ id: k.id }).first();
      assert.ok(!JSON.stringify(stored).includes(k.key.slice(8, -4)), 'only a digest is stored');
    });

    it('refuses every escalation with 403 and a code naming the rule, and creates nothing', async () => {
      const countKeys = async () => Number((await api.db('api_keys').count({ n: '*' }))[0].n);
      const countRows = async () => Number((await api.db('activity').where({ kind: 'security' }).count({ n: '*' }))[0].n);
      const keysBefore = await countKeys();
      const rowsBefore = await countRows();
      const expect403 = async (key: string, body: unknown, code: string) => {
        const res = await api.call('POST', '/v1/api-keys', { key, body });
        assert.equal(res.status, 403, `${code}: ${res.text}`);
        assert.equal(res.body.code, code);
      };

      // Scopes: only those the creator holds.
      const narrow = (await api.key(o.userId, { scopes: ['keys', 'search'] })).apiKey;
      await expect403(narrow, { name: 'wider', scopes: ['search', 'webhooks'] }, 'scope_escalation');

      // A bound creator: only keys bound to its own workspace.
      const other = await api.workspace(o);
      const bound = (await api.key(o.userId, { scopes: EVERY_SCOPE, workspaceId: o.workspaceId })).apiKey;
      await expect403(bound, { name: 'elsewhere', scopes: ['search'], workspaceId: other }, 'workspace_escalation');
      // ... the same answer for a workspace that does not exist: nothing leaks.
      await expect403(bound, { name: 'nowhere', scopes: ['search'], workspaceId: '0193a4e2-0000-7000-8000-0000000000ff' }, 'workspace_escalation');

      // A viewer: no key that records deploys, bound or (with no other role anywhere) unbound.
      const viewer = await api.user({ accountId: o.accountId });
      await api.member(o.workspaceId, viewer.userId, 'viewer');
      const viewerKey = (await api.key(viewer.userId, { scopes: EVERY_SCOPE })).apiKey;
      await expect403(viewerKey, { name: 'deployer', scopes: ['deploys'], workspaceId: o.workspaceId }, 'role_escalation');
      await expect403(viewerKey, { name: 'deployer', scopes: ['deploys', 'search'] }, 'role_escalation');

      // A creator that expires: nothing that outlives it, explicitly or by omission.
      const soon = new Date(Date.now() + 3600_000).toISOString();
      const expiring = (await api.call('POST', '/v1/api-keys', { key: ownerKey, body: { name: 'expiring', scopes: EVERY_SCOPE, expiresAt: soon } })).body;
      const keysAfterSetup = await countKeys();
      const rowsAfterSetup = await countRows();
      await expect403(expiring.key, { name: 'forever', scopes: ['search'], expiresAt: new Date(Date.now() + 7200_000).toISOString() }, 'expiry_escalation');
      // Omitted, the new key inherits the creator's expiry.
      const inherited = await api.call('POST', '/v1/api-keys', { key: expiring.key, body: { name: 'inherits', scopes: ['search'] } });
      assert.equal(inherited.status, 201);
      assert.equal(inherited.body.expiresAt, expiring.expiresAt);

      assert.equal(await countKeys(), keysAfterSetup + 1, 'no refused key was stored');
      assert.equal(await countRows(), rowsAfterSetup + 1, 'no refused key was audited');
      assert.ok(keysAfterSetup > keysBefore && rowsAfterSetup > rowsBefore);

      // What is allowed: a subset, a bound creator's omitted workspace meaning its own.
      const sub = await api.call('POST', '/v1/api-keys', { key: bound, body: { name: 'bound child', scopes: ['search'] } });
      assert.equal(sub.status, 201);
      assert.equal(sub.body.workspaceId, o.workspaceId);
      const viewerRead = await api.call('POST', '/v1/api-keys', { key: viewerKey, body: { name: 'reader', scopes: ['search'], workspaceId: o.workspaceId } });
      assert.equal(viewerRead.status, 201);
    });

    it('a key cannot be rotated into more than its caller holds, nor rotated twice', async () => {
      const full = (await api.call('POST', '/v1/api-keys', { key: ownerKey, body: { name: 'full', scopes: EVERY_SCOPE } })).body;
      const narrow = (await api.call('POST', '/v1/api-keys', { key: ownerKey, body: { name: 'narrow', scopes: ['keys'] } })).body;
      const res = await api.call('POST', `/v1/api-keys/${full.id}/rotate`, { key: narrow.key });
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'scope_escalation');
      assert.equal((await api.call('GET', `/v1/api-keys/${full.id}`, { key: ownerKey })).body.replacedBy, null);

      const tooLong = await api.call('POST', `/v1/api-keys/${full.id}/rotate`, { key: ownerKey, body: { overlapSeconds: 604801 } });
      assert.equal(tooLong.status, 400);
      assert.equal(tooLong.body.errors[0].path, '/overlapSeconds');

      const rotated = await api.call('POST', `/v1/api-keys/${full.id}/rotate`, { key: ownerKey });
      assert.equal(rotated.status, 201, rotated.text);
      assert.notEqual(rotated.body.id, full.id);
      assert.deepEqual(rotated.body.scopes, full.scopes);
      assert.equal(rotated.body.name, 'full');
      // Overlap 0: the old secret is refused from the next request on.
      const old = await api.call('GET', '/v1/api-keys', { key: full.key });
      assert.equal(old.status, 401);
      assert.equal(old.body.code, 'key_expired');
      const again = await api.call('POST', `/v1/api-keys/${full.id}/rotate`, { key: ownerKey, body: {} });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'key_inactive');
      assert.equal((await api.call('GET', `/v1/api-keys/${full.id}`, { key: ownerKey })).body.replacedBy, rotated.body.id);
    });

    it("another user's key, or one outside a bound caller's workspace, is 404 everywhere", async () => {
      const stranger = await api.owner();
      const strangerKey = (await api.key(stranger.userId, { scopes: EVERY_SCOPE })).apiKey;
      const mine = (await api.call('POST', '/v1/api-keys', { key: ownerKey, body: { name: 'mine', scopes: ['search'] } })).body;
      for (const [method, path] of [
        ['GET', `/v1/api-keys/${mine.id}`],
        ['DELETE', `/v1/api-keys/${mine.id}`],
        ['POST', `/v1/api-keys/${mine.id}/rotate`],
      ] as const) {
        const res = await api.call(method, path, { key: strangerKey });
        assert.equal(res.status, 404, `${method} ${path}`);
      }
      assert.ok(!(await api.call('GET', '/v1/api-keys', { key: strangerKey, query: { limit: 100 } })).body.data.some((k: any) => k.id === mine.id));
      // A bound caller sees only the keys bound to its workspace.
      const bound = (await api.key(o.userId, { scopes: EVERY_SCOPE, workspaceId: o.workspaceId })).apiKey;
      assert.equal((await api.call('GET', `/v1/api-keys/${mine.id}`, { key: bound })).status, 404);
      const seen = (await api.call('GET', '/v1/api-keys', { key: bound, query: { limit: 100 } })).body.data;
      assert.ok(seen.length > 0 && seen.every((k: any) => k.workspaceId === o.workspaceId));
      // A workspace the caller cannot see, named in the body: 404 naming the field.
      const other = await api.call('POST', '/v1/api-keys', { key: strangerKey, body: { name: 'x', scopes: ['search'], workspaceId: o.workspaceId } });
      assert.equal(other.status, 404);
      assert.equal(other.body.errors[0].path, '/workspaceId');
      // Still valid after all those attempts.
      assert.equal((await api.call('GET', `/v1/api-keys/${mine.id}`, { key: ownerKey })).body.revokedAt, null);
      // Without the keys scope: 403 insufficient_scope.
      const withoutKeys = (await api.key(o.userId, { scopes: ['deploys', 'search', 'workspaces', 'webhooks'] })).apiKey;
      const noKeys = await api.call('GET', '/v1/api-keys', { key: withoutKeys });
      assert.equal(noKeys.status, 403);
      assert.equal(noKeys.body.requiredScope, 'keys');
    });

    it('an expired key is 401 key_expired, audited once; a past expiresAt is 400', async () => {
      const past = await api.call('POST', '/v1/api-keys', { key: ownerKey, body: { name: 'past', scopes: ['search'], expiresAt: '2020-01-01T00:00:00Z' } });
      assert.equal(past.status, 400);
      assert.equal(past.body.errors[0].path, '/expiresAt');
      const noOffset = await api.call('POST', '/v1/api-keys', { key: ownerKey, body: { name: 'past', scopes: ['search'], expiresAt: '2030-01-01T00:00:00' } });
      assert.equal(noOffset.status, 400);

      const k = (await api.call('POST', '/v1/api-keys', { key: ownerKey, body: { name: 'short-lived', scopes: ['workspaces'], expiresAt: new Date(Date.now() + 1500).toISOString() } })).body;
      assert.equal((await api.call('GET', '/v1/workspaces', { key: k.key })).status, 200);
      await sleep(Math.max(0, Date.parse(k.expiresAt) - Date.now()) + 50);
      for (let i = 0; i < 3; i++) {
        const res = await api.call('GET', '/v1/workspaces', { key: k.key });
        assert.equal(res.status, 401);
        assert.equal(res.body.code, 'key_expired');
        assert.match(res.body.detail, /expired at/);
      }
      const rows = (await securityRows()).filter((r) => r.action === 'api_key.expired' && r.target.id === k.id);
      assert.equal(rows.length, 1, 'one api_key.expired row however often it is used');
      assert.equal(rows[0].details.expired_at, k.expiresAt);
    });

    it('lastUsedAt is set on use and written at most once a minute', async () => {
      const k = (await api.call('POST', '/v1/api-keys', { key: ownerKey, body: { name: 'used', scopes: ['workspaces'] } })).body;
      assert.equal((await api.call('GET', '/v1/workspaces', { key: k.key })).status, 200);
      let first: string | null = null;
      for (let i = 0; i < 50 && !first; i++) {
        first = (await api.call('GET', `/v1/api-keys/${k.id}`, { key: ownerKey })).body.lastUsedAt;
        if (!first) await sleep(20);
      }
      assert.ok(first, 'lastUsedAt was set');
      await sleep(20);
      for (let i = 0; i < 5; i++) assert.equal((await api.call('GET', '/v1/workspaces', { key: k.key })).status, 200);
      await sleep(50);
      assert.equal((await api.call('GET', `/v1/api-keys/${k.id}`, { key: ownerKey })).body.lastUsedAt, first, 'not rewritten within the minute');
    });

    it('pages with a cursor, newest first, each key once', async () => {
      const u = await api.owner();
      const caller = (await api.key(u.userId, { scopes: EVERY_SCOPE })).apiKey;
      const made: string[] = [];
      for (let i = 0; i < 5; i++) made.push((await api.call('POST', '/v1/api-keys', { key: caller, body: { name: `k${i}`, scopes: ['search'] } })).body.id);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await api.call('GET', '/v1/api-keys', { key: caller, query: { limit: 2, cursor } });
        assert.equal(page.status, 200);
        assert.ok(page.body.data.length <= 2);
        seen.push(...page.body.data.map((k: any) => k.id));
        cursor = page.body.meta.next_cursor ?? undefined;
      } while (cursor);
      // 5 made here, plus the caller's own (and the owner() fixture's key).
      assert.equal(new Set(seen).size, seen.length);
      assert.deepEqual(seen.slice(0, 5), [...made].reverse());
      assert.equal(seen.length, 7);
      assert.equal((await api.call('GET', '/v1/api-keys', { key: caller, query: { cursor: 'nonsense' } })).status, 400);
    });

    it('writes created, rotated and revoked rows naming the actor key, never a fragment of a key', async () => {
      const k = (await api.call('POST', '/v1/api-keys', { key: ownerKey, body: { name: 'audited', scopes: ['search'], workspaceId: o.workspaceId } })).body;
      const r = (await api.call('POST', `/v1/api-keys/${k.id}/rotate`, { key: ownerKey, body: { overlapSeconds: 60 } })).body;
      assert.equal((await api.call('DELETE', `/v1/api-keys/${r.id}`, { key: ownerKey })).status, 204);
      assert.equal((await api.call('DELETE', `/v1/api-keys/${r.id}`, { key: ownerKey })).status, 204, 'revoking again changes nothing');
      const res = await api.call('GET', '/v1/activity', { key: ownerKey, query: { kind: 'security', workspace_id: o.workspaceId, limit: 100 } });
      const ours = res.body.data.filter((a: any) => [k.id, r.id].includes(a.target.id));
      assert.deepEqual(ours.map((a: any) => a.action).reverse(), ['api_key.created', 'api_key.rotated', 'api_key.revoked']);
      const rotatedRow = ours.find((a: any) => a.action === 'api_key.rotated');
      assert.equal(rotatedRow.details.replaced_by, r.id);
      assert.equal(rotatedRow.details.overlap_seconds, 60);
      const ownerKeyId = (await api.call('GET', '/v1/api-keys', { key: ownerKey, query: { limit: 100 } })).body.data.find((x: any) => ownerKey.startsWith(x.prefix) && ownerKey.endsWith(x.last4)).id;
      for (const row of ours) assert.deepEqual(row.actor, { type: 'api_key', id: ownerKeyId, label: null });
      for (const secret of [k.key, r.key]) {
        for (const fragment of [secret, secret.slice(3, 35), secret.slice(0, 8), secret.slice(-4)]) assert.ok(!res.text.includes(fragment), 'no part of a key in the activity feed');
      }
      // The rotated (old) key works through its overlap; the revoked new one does not.
      assert.equal((await api.call('GET', '/v1/deploys', { key: k.key, query: { workspace_id: o.workspaceId } })).status, 200);
      assert.equal((await api.call('GET', '/v1/deploys', { key: r.key, query: { workspace_id: o.workspaceId } })).status, 401);
    });
  });

  describe(`API key lifecycle across server processes (${engine})`, () => {
    let servers: ServerProc[];
    let boot: { userId: string; workspaceId: string; apiKey: string };

    before(async () => {
      const url = await freshDatabaseUrl(engine);
      const res = await runCli(url, ['bootstrap', '--email', `keys-${engine}@example.com`, '--workspace-name', `Keys ${engine}`, '--website', 'https://www.example.com', '--json']);
      assert.equal(res.code, 0, res.stderr);
      boot = res.json;
      servers = await Promise.all([startServerProcess(url), startServerProcess(url)]);
    });

    it('create, use, list, rotate with overlap, revoke: the next request on the other server is 401', async () => {
      const [a, b] = servers;
      const sdkA = new SiteHealth({ apiKey: boot.apiKey, baseUrl: a.url });
      const onB = (key: string) => checkedFetch(b.url, 'GET', `/v1/deploys?workspace_id=${boot.workspaceId}`, { key });

      // The bootstrap key carries every scope, keys included.
      const created = await sdkA.apiKeys.create({ name: 'pipeline', scopes: ['deploys', 'search'], workspaceId: boot.workspaceId });
      assert.equal(created.lastResponse.status, 201);
      const deployer = new SiteHealth({ apiKey: created.key, baseUrl: b.url });
      const d = await deployer.deploys.create({ commitSha: 'abc1234', environment: 'staging' });
      assert.equal(d.commitSha, 'abc1234');

      const listed = [];
      for await (const k of sdkA.apiKeys.iterate({ limit: 1 })) listed.push(k);
      assert.deepEqual(listed.map((k) => k.id).sort(), [created.id, listed.find((k) => k.name === 'bootstrap')!.id].sort());
      assert.ok(listed.every((k) => !('key' in k)));

      const rotated = await sdkA.apiKeys.rotate(created.id, { overlapSeconds: 2 });
      assert.notEqual(rotated.key, created.key);
      // During the overlap both secrets work, on both servers.
      for (const key of [created.key, rotated.key]) {
        assert.equal((await onB(key)).status, 200);
        assert.equal((await checkedFetch(a.url, 'GET', `/v1/deploys?workspace_id=${boot.workspaceId}`, { key })).status, 200);
      }
      const old = await sdkA.apiKeys.get(created.id);
      assert.equal(old.replacedBy, rotated.id);
      assert.ok(Date.parse(old.expiresAt!) - Date.now() <= 2000);
      await sleep(Math.max(0, Date.parse(old.expiresAt!) - Date.now()) + 50);
      const expired = await onB(created.key);
      assert.equal(expired.status, 401);
      assert.equal(expired.body.code, 'key_expired');
      await assert.rejects(new SiteHealth({ apiKey: created.key, baseUrl: a.url, maxRetries: 0 }).deploys.list({ workspace_id: boot.workspaceId }), (e: unknown) => e instanceof AuthenticationError && e.code === 'key_expired');
      assert.equal((await onB(rotated.key)).status, 200);

      await sdkA.apiKeys.delete(rotated.id);
      const refused = await onB(rotated.key);
      assert.equal(refused.status, 401, 'revoked on A, refused on B at the very next request');
      assert.equal(refused.body.code, 'unauthorized');

      // The SDK's typed error for an escalation.
      await assert.rejects(
        new SiteHealth({ apiKey: boot.apiKey, baseUrl: b.url }).apiKeys.create({ name: 'x', scopes: ['search'], expiresAt: '2020-01-01T00:00:00Z' }),
        (e: unknown) => e instanceof Error && (e as { status?: number }).status === 400,
      );
      const narrow = await sdkA.apiKeys.create({ name: 'narrow', scopes: ['keys'] });
      await assert.rejects(
        new SiteHealth({ apiKey: narrow.key, baseUrl: b.url }).apiKeys.create({ name: 'wide', scopes: ['webhooks'] }),
        (e: unknown) => e instanceof PermissionError && e.code === 'scope_escalation',
      );

      const actions = [];
      for await (const row of sdkA.activity.iterate({ kind: 'security' })) if (row.target?.type === 'api_key') actions.push(row.action);
      for (const a of ['api_key.created', 'api_key.rotated', 'api_key.expired', 'api_key.revoked']) assert.ok(actions.includes(a), `${a} in ${actions.join(', ')}`);
    });
  });
}
