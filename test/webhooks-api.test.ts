// Webhook endpoints: every bound at and past its limit, URL and header rules, secrets and header
// values, roles, bound keys and workspaces kept apart.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Webhook, createDb, type Db } from '../core/db/index.ts';
import { Keyring } from '../core/secrets/index.ts';
import { createWebhook } from '../core/webhooks/index.ts';
import { engines, dropCreatedDatabases, freshDatabaseUrl } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { checkedFetch } from './support/contract.ts';
import { killAll, runCli, startServerProcess, startWorkerProcess } from './support/processes.ts';
import { startReceiver, type Receiver } from './support/https-receiver.ts';

const receivers: Receiver[] = [];
const handles: Db[] = [];
after(async () => {
  await killAll();
  await Promise.all(receivers.map((r) => r.close()));
  await Promise.all(handles.map((h) => h.destroy()));
  await dropCreatedDatabases();
});

/** Standard Webhooks' body signature of `body` under `secret`, computed here, apart from the server's code. */
const bodySignature = (secret: string, body: string) => {
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
  return `v1,${crypto.createHmac('sha256', key).update(body, 'utf8').digest('base64')}`;
};

const URL_OK = 'https://hooks.example.com/sitehealth';

for (const engine of engines()) {
  describe(`webhook secrets without SECRETS_KEY (${engine})`, () => {
    it('create, rotate and a test delivery work with the secret stored as given; secrets reseal seals it once a key is set, and deliveries still verify', async () => {
      const url = await freshDatabaseUrl(engine);
      const boot = await runCli(url, ['bootstrap', '--email', `nokey-${engine}@example.com`, '--workspace-name', 'No key', '--website', 'https://www.example.com', '--json'], { SECRETS_KEY: '' });
      assert.equal(boot.code, 0, boot.stderr);
      const receiver = await startReceiver();
      receivers.push(receiver);
      const env = { ALLOW_PRIVATE_NETWORK: '1', NODE_EXTRA_CA_CERTS: receiver.certFile };
      const call = (server: { url: string }, method: string, path: string, body?: unknown) => checkedFetch(server.url, method, path, { key: boot.json.apiKey, body });
      const db = createDb(url);
      handles.push(db);
      const stored = async (id: string) => (await db('webhooks').where({ id }).select('secret', 'previous_secret').first()) as { secret: string; previous_secret: string | null };

      // An empty SECRETS_KEY is no key (README, Configuration): the server and a worker each say
      // so once at start.
      const plain = await startServerProcess(url, { ...env, SECRETS_KEY: '' });
      const worker = await startWorkerProcess(url, { SECRETS_KEY: '' });
      for (const p of [plain, worker]) {
        const warnings = p.lines.filter((l) => l.level === 40 && /SECRETS_KEY is not set/.test(String(l.msg)));
        assert.equal(warnings.length, 1, p.output.join('\n'));
        assert.match(String(warnings[0].msg), /webhook signing secrets are stored unsealed/);
      }
      await worker.stop();

      const created = await call(plain, 'POST', '/v1/webhooks', { workspaceId: boot.json.workspaceId, url: receiver.url('/nokey'), events: ['deploy.recorded'] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const first = created.body.secret as string;
      const rotated = await call(plain, 'PUT', `/v1/webhooks/${created.body.id}`, { secret: 'a-new-secret-of-enough-length' });
      assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
      assert.deepEqual(await stored(created.body.id), { secret: 'a-new-secret-of-enough-length', previous_secret: first }, 'stored as given');
      const sent = await call(plain, 'POST', `/v1/webhooks/${created.body.id}/test`);
      assert.equal(sent.body.status, 'success', JSON.stringify(sent.body));
      const [unsealedDelivery] = await receiver.waitFor('/nokey', 1);
      assert.deepEqual(unsealedDelivery.headers['webhook-body-signature'].split(' '), [bodySignature('a-new-secret-of-enough-length', unsealedDelivery.body), bodySignature(first, unsealedDelivery.body)]);

      // A secret sealed under a key this server does not have: nothing can be signed, so the
      // attempt fails unsent, and says why.
      const foreign = await createWebhook(db, { workspaceId: boot.json.workspaceId, url: receiver.url('/foreign'), events: ['deploy.recorded'] }, { allowPrivateNetwork: true, keyring: new Keyring([crypto.randomBytes(32)]) });
      const refused = await call(plain, 'POST', `/v1/webhooks/${foreign.id}/test`);
      assert.equal(refused.status, 200, JSON.stringify(refused.body));
      assert.deepEqual([refused.body.status, refused.body.responseStatus], ['failed', null]);
      const detail = await call(plain, 'GET', `/v1/webhooks/${foreign.id}/deliveries/${refused.body.id}`);
      assert.match(detail.body.responseBody, /signing secret is sealed, and this process has no SECRETS_KEY/);
      assert.equal(receiver.received.filter((r) => r.path === '/foreign').length, 0, 'nothing sent');
      await call(plain, 'DELETE', `/v1/webhooks/${foreign.id}`);
      await plain.stop();

      // A key is set: secrets reseal seals both secrets in place, and a server with the key signs
      // with the same two.
      const key = crypto.randomBytes(32).toString('base64');
      const resealed = await runCli(url, ['secrets', 'reseal', '--json'], { SECRETS_KEY: key });
      assert.equal(resealed.code, 0, resealed.stderr);
      assert.equal(resealed.json.webhookSecrets, 1);
      const sealed = await stored(created.body.id);
      for (const column of [sealed.secret, sealed.previous_secret!]) {
        assert.match(column, /^v1\.[0-9a-f]{8}\./);
        for (const secret of [first, first.slice(6), 'a-new-secret-of-enough-length']) assert.ok(!column.includes(secret), 'no plaintext left');
      }
      const keyed = await startServerProcess(url, { ...env, SECRETS_KEY: key });
      assert.equal(keyed.lines.filter((l) => /SECRETS_KEY is not set/.test(String(l.msg))).length, 0, 'no warning with a key');
      const again = await call(keyed, 'POST', `/v1/webhooks/${created.body.id}/test`);
      assert.equal(again.body.status, 'success', JSON.stringify(again.body));
      const [sealedDelivery] = (await receiver.waitFor('/nokey', 2)).slice(1);
      assert.deepEqual(sealedDelivery.headers['webhook-body-signature'].split(' '), [bodySignature('a-new-secret-of-enough-length', sealedDelivery.body), bodySignature(first, sealedDelivery.body)]);
      await keyed.stop();
    });
  });

  for (const allowPrivate of ['0', '1']) {
    describe(`webhook endpoints (${engine}, ALLOW_PRIVATE_NETWORK=${allowPrivate})`, () => {
      let api: TestApi;
      let o: Awaited<ReturnType<TestApi['owner']>>;
      const create = (body: Record<string, unknown>, key = o.apiKey) =>
        api.call('POST', '/v1/webhooks', { key, body: { workspaceId: o.workspaceId, url: URL_OK, events: ['deploy.recorded'], ...body } });
      const bad = async (body: Record<string, unknown>, path: string) => {
        const res = await create(body);
        assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 120)}: ${res.text}`);
        assert.equal(res.body.code, 'validation_failed');
        assert.ok(res.body.errors.some((e: { path: string }) => e.path.startsWith(path)), `${path} in ${JSON.stringify(res.body.errors)}`);
      };

      before(async () => {
        api = await TestApi.start(engine, { env: { ALLOW_PRIVATE_NETWORK: allowPrivate } });
        o = await api.owner();
      });
      after(async () => {
        await api.stop();
      });

      it('URLs in reserved ranges are 400 with or without ALLOW_PRIVATE_NETWORK; public IP literals pass', async () => {
        const reserved = [
          'https://[2002:c000:0204::1]/h', // 6to4
          'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/h', // Teredo
          'https://[64:ff9b::c000:204]/h', // NAT64
          'https://100.64.0.1/h', // CGNAT
          'https://198.18.0.1/h', // benchmarking
          'https://240.0.0.1/h', // class E
          'https://[2001:3::1]/h', // AMT
          'https://192.31.196.1/h', // AS112
          'https://169.254.169.254/latest/meta-data', // link-local, cloud metadata
          'https://0.0.0.0/h',
          'https://[::]/h',
          'https://224.0.0.1/h',
        ];
        for (const url of reserved) await bad({ url }, '/url');
        for (const url of ['https://8.8.8.8/hook', 'https://[2606:4700:4700::1111]/hook', URL_OK]) assert.equal((await create({ url })).status, 201, url);
        const local = ['https://127.0.0.1/h', 'https://localhost/h', 'https://10.1.2.3/h', 'https://printer.local/h', 'https://db.internal/h', 'https://intranet/h', 'https://[::1]/h'];
        for (const url of local) {
          if (allowPrivate === '1') assert.equal((await create({ url })).status, 201, url);
          else await bad({ url }, '/url');
        }
        await bad({ url: 'http://hooks.example.com/h' }, '/url');
        await bad({ url: 'ftp://hooks.example.com/h' }, '/url');
        // The rule in words, as the document states it, never a regular expression.
        const http = await create({ url: 'http://hooks.example.com/h' });
        assert.deepEqual(http.body.errors, [{ in: 'body', path: '/url', message: 'must be an https URL, such as https://hooks.example.com/sitehealth' }]);
        assert.equal(http.body.detail, 'body /url must be an https URL, such as https://hooks.example.com/sitehealth');
        const header = await create({ headers: { 'X Bad': 'v' } });
        assert.deepEqual(header.body.errors.map((e: { message: string }) => e.message), ['name must be 1 to 64 letters, digits or -']);
      });

      it('every bound at and just past its limit', async () => {
        assert.equal((await create({ name: 'n'.repeat(120) })).status, 201);
        await bad({ name: 'n'.repeat(121) }, '/name');
        assert.equal((await create({ url: `https://hooks.example.com/${'p'.repeat(2048 - 'https://hooks.example.com/'.length)}` })).status, 201);
        await bad({ url: `https://hooks.example.com/${'p'.repeat(2049 - 'https://hooks.example.com/'.length)}` }, '/url');
        assert.equal((await create({ secret: 's'.repeat(16) })).status, 201);
        assert.equal((await create({ secret: 's'.repeat(255) })).status, 201);
        await bad({ secret: 's'.repeat(15) }, '/secret');
        await bad({ secret: 's'.repeat(256) }, '/secret');
        const ten = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`X-H${i}`, 'v']));
        assert.equal((await create({ headers: ten })).status, 201);
        await bad({ headers: { ...ten, 'X-H10': 'v' } }, '/headers');
        assert.equal((await create({ headers: { 'X-Long': 'v'.repeat(1024) } })).status, 201);
        await bad({ headers: { 'X-Long': 'v'.repeat(1025) } }, '/headers/X-Long');
        await bad({ headers: { 'X_Under': 'v' } }, '/headers/X_Under');
        await bad({ headers: { 'X Space': 'v' } }, '/headers/X Space');
        await bad({ headers: { 'X-Line': 'a\r\nInjected: yes' } }, '/headers/X-Line');
        await bad({ headers: { 'X-A': '1', 'x-a': '2' } }, '/headers/x-a');
        await bad({ events: [] }, '/events');
        await bad({ events: ['webhook.test'] }, '/events');
        await bad({ events: ['nope'] }, '/events');
      });

      it('the signing headers, Content-Type, Content-Length and Host cannot be custom headers, in any letter case', async () => {
        for (const name of ['webhook-id', 'Webhook-Timestamp', 'WEBHOOK-SIGNATURE', 'webhook-Body-Signature', 'content-type', 'Content-Length', 'HOST', 'Host']) {
          await bad({ headers: { [name]: 'x' } }, `/headers/${name}`);
        }
      });

      it('the secret comes back only on create and on a rotating update; header values never', async () => {
        const res = await create({ headers: { 'X-Token': 'super-private-value', 'x-team': 'web' } });
        assert.equal(res.status, 201);
        const hook = res.body;
        assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
        assert.equal(Buffer.from(hook.secret.slice(6), 'base64').length, 32);
        assert.deepEqual(hook.headerNames, ['X-Token', 'x-team']);
        assert.equal(hook.active, true);
        assert.equal(hook.failureCount, 0);
        assert.equal(hook.lastTriggeredAt, null);
        const read = (await api.call('GET', `/v1/webhooks/${hook.id}`, { key: o.apiKey })).body;
        assert.equal('secret' in read, false);
        const listed = (await api.call('GET', '/v1/webhooks', { key: o.apiKey })).body.data.find((w: { id: string }) => w.id === hook.id);
        assert.equal('secret' in listed, false);
        const renamed = (await api.call('PUT', `/v1/webhooks/${hook.id}`, { key: o.apiKey, body: { name: 'Renamed' } })).body;
        assert.equal('secret' in renamed, false);
        const rotated = (await api.call('PUT', `/v1/webhooks/${hook.id}`, { key: o.apiKey, body: { secret: 'a-new-secret-of-enough-length' } })).body;
        assert.equal(rotated.secret, 'a-new-secret-of-enough-length');
        for (const body of [read, listed, renamed, rotated]) assert.doesNotMatch(JSON.stringify(body), /super-private-value/);
        // Sealed at rest (README, SECRETS_KEY): the columns, read as they are, hold neither secret.
        const [raw] = await api.db('webhooks').where({ id: hook.id }).select('secret', 'previous_secret');
        for (const column of [raw.secret, raw.previous_secret]) {
          assert.match(column, /^v1\.[0-9a-f]{8}\./, 'a sealed value');
          for (const plain of [hook.secret, hook.secret.slice(6), rotated.secret]) assert.ok(!column.includes(plain), 'no plaintext secret in the row');
        }
        assert.notEqual(raw.secret, raw.previous_secret);
      });

      it('headers replace the set; a null value keeps the stored one; headers: null clears them', async () => {
        const hook = (await create({ headers: { 'X-Keep': 'kept-value', 'X-Drop': 'dropped' } })).body;
        const put = (headers: unknown) => api.call('PUT', `/v1/webhooks/${hook.id}`, { key: o.apiKey, body: { headers } });
        assert.deepEqual((await put({ 'x-keep': null, 'X-New': 'n' })).body.headerNames, ['x-keep', 'X-New']);
        const stored = await Webhook.query(api.db).findById(hook.id);
        assert.deepEqual(stored!.headers, [
          ['x-keep', 'kept-value'],
          ['X-New', 'n'],
        ]);
        const unknown = await put({ 'X-Never-Set': null });
        assert.equal(unknown.status, 400);
        assert.equal(unknown.body.errors[0].path, '/headers/X-Never-Set');
        assert.deepEqual((await put(null)).body.headerNames, []);
      });

      it('roles: members and viewers read; only admins and owners change, test and redeliver; other workspaces are 404', async () => {
        const hook = (await create({})).body;
        for (const role of ['viewer', 'member', 'admin'] as const) {
          const u = await api.user({ accountId: o.accountId });
          await api.member(o.workspaceId, u.userId, role);
          const key = (await api.key(u.userId, { scopes: ['webhooks'] })).apiKey;
          assert.equal((await api.call('GET', `/v1/webhooks/${hook.id}`, { key })).status, 200);
          assert.equal((await api.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { key })).status, 200);
          const expected = role === 'admin' ? [201, 200, 204] : [403, 403, 403];
          const made = await create({}, key);
          assert.equal(made.status, expected[0], `${role} creates`);
          assert.equal((await api.call('PUT', `/v1/webhooks/${hook.id}`, { key, body: { name: role } })).status, expected[1], `${role} updates`);
          if (role !== 'admin') {
            assert.equal((await api.call('POST', `/v1/webhooks/${hook.id}/test`, { key })).status, 403, `${role} tests`);
            assert.equal((await api.call('DELETE', `/v1/webhooks/${hook.id}`, { key })).status, 403, `${role} deletes`);
          } else {
            assert.equal((await api.call('DELETE', `/v1/webhooks/${made.body.id}`, { key })).status, 204);
          }
        }
        const stranger = await api.owner();
        for (const [method, path] of [
          ['GET', `/v1/webhooks/${hook.id}`],
          ['PUT', `/v1/webhooks/${hook.id}`],
          ['DELETE', `/v1/webhooks/${hook.id}`],
          ['POST', `/v1/webhooks/${hook.id}/test`],
          ['GET', `/v1/webhooks/${hook.id}/deliveries`],
        ] as const) {
          const res = await api.call(method, path, { key: stranger.apiKey, body: method === 'PUT' ? { name: 'x' } : undefined });
          assert.equal(res.status, 404, `${method} ${path}`);
        }
        const other = await api.call('POST', '/v1/webhooks', { key: stranger.apiKey, body: { workspaceId: o.workspaceId, url: URL_OK, events: ['deploy.recorded'] } });
        assert.equal(other.status, 404);
        assert.equal((await api.call('GET', '/v1/webhooks', { key: stranger.apiKey })).body.data.length, 0);
      });

      it('a bound key sees only its workspace; the list is oldest first and filters by workspace', async () => {
        const second = await api.workspace(o);
        const a = (await create({ name: 'first' })).body;
        const b = (await api.call('POST', '/v1/webhooks', { key: o.apiKey, body: { workspaceId: second, url: URL_OK, events: ['deploy.recorded'] } })).body;
        const bound = (await api.key(o.userId, { scopes: ['webhooks'], workspaceId: second })).apiKey;
        assert.deepEqual((await api.call('GET', '/v1/webhooks', { key: bound })).body.data.map((w: { id: string }) => w.id), [b.id]);
        assert.equal((await api.call('GET', `/v1/webhooks/${a.id}`, { key: bound })).status, 404);
        const all = (await api.call('GET', '/v1/webhooks', { key: o.apiKey })).body.data.map((w: { id: string }) => w.id);
        assert.ok(all.indexOf(a.id) < all.indexOf(b.id));
        assert.deepEqual((await api.call('GET', '/v1/webhooks', { key: o.apiKey, query: { workspace_id: second } })).body.data.map((w: { id: string }) => w.id), [b.id]);
      });
    });
  }
}
