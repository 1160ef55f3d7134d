// Connected repositories, the resource: connect with one validating call to the host, tokens
// sealed at rest and never returned, the webhook secret shown once, roles, workspaces kept apart,
// activity rows, and every refusal.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { StubRepoHost } from './support/repo-hosts.ts';
import { SiteHealth, UnprocessableError } from '@sitehealth/sdk';
import { runCli } from './support/processes.ts';
import { Webhook } from '../core/db/index.ts';
import { Keyring } from '../core/secrets/index.ts';
import { openSecrets } from '../core/webhooks/index.ts';

after(dropCreatedDatabases);

const SECRETS_KEY = crypto.randomBytes(32).toString('base64');
const GH_TOKEN = 'ghp_stubTokenForTests0123456789';
const GL_TOKEN = 'glpat-stubTokenForTests012345';

for (const engine of engines()) {
  describe(`connections (${engine})`, () => {
    let api: TestApi;
    let o: Awaited<ReturnType<TestApi['owner']>>;
    let gh: StubRepoHost;
    let gl: StubRepoHost;
    const path = () => `/v1/workspaces/${o.workspaceId}/connections`;

    before(async () => {
      api = await TestApi.start(engine, { env: { ALLOW_PRIVATE_NETWORK: '1', SECRETS_KEY, PUBLIC_URL: 'https://sitehealth.example.com' } });
      o = await api.owner();
      gh = await StubRepoHost.start('github', 'acme/site', GH_TOKEN);
      gl = await StubRepoHost.start('gitlab', 'acme/web/site', GL_TOKEN);
    });
    after(async () => {
      await api.stop();
      await gh.close();
      await gl.close();
    });

    it('connects a GitHub and a GitLab repository after one call that reads each, and shows the secret once', async () => {
      const before = gh.requests.length;
      const res = await api.call('POST', path(), { key: o.apiKey, body: { provider: 'github', baseUrl: gh.baseUrl, repository: 'acme/site', token: GH_TOKEN, branches: { main: 'production', develop: 'staging' } } });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(gh.requests.slice(before).map((r) => `${r.method} ${r.path}`), ['GET /repos/acme/site']);
      assert.equal(gh.requests.at(-1)!.authorization, `token ${GH_TOKEN}`);
      const c = res.body;
      assert.equal(c.state, 'pending');
      assert.equal(c.trigger, 'push');
      assert.equal(c.failOn, 'high');
      assert.equal(c.webhookUrl, `https://sitehealth.example.com/v1/hooks/github/${c.id}`);
      assert.match(c.webhookSecret, /^[A-Za-z0-9_-]{43}$/);
      assert.ok(!res.text.includes(GH_TOKEN));

      const glRes = await api.call('POST', path(), { key: o.apiKey, body: { provider: 'gitlab', baseUrl: gl.baseUrl, repository: 'acme/web/site', token: GL_TOKEN, branches: { main: 'production' }, trigger: 'deployment', failOn: 'critical' } });
      assert.equal(glRes.status, 201, glRes.text);
      assert.equal(gl.requests.at(-1)!.path, '/api/v4/projects/acme/web/site');
      assert.equal(gl.requests.at(-1)!.authorization, `Bearer ${GL_TOKEN}`);

      const list = await api.call('GET', path(), { key: o.apiKey });
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.data.map((x: any) => x.repository), ['acme/site', 'acme/web/site']);
      assert.ok(list.body.data.every((x: any) => !('webhookSecret' in x) && !('token' in x)));
      assert.ok(!list.text.includes(GH_TOKEN) && !list.text.includes(c.webhookSecret));

      // At rest: sealed, never the plaintext.
      const rows = await api.db('repository_connections').select('token', 'webhook_secret');
      for (const r of rows) {
        assert.match(r.token, /^v1\.[0-9a-f]{8}\./);
        assert.ok(!r.token.includes(GH_TOKEN) && !r.token.includes(GL_TOKEN) && !r.webhook_secret.includes(c.webhookSecret));
      }
      const activity = await api.call('GET', '/v1/activity', { key: o.apiKey, query: { workspace_id: o.workspaceId, kind: 'security' } });
      const created = activity.body.data.filter((a: any) => a.action === 'connection.created');
      assert.equal(created.length, 2);
      assert.deepEqual(created.map((a: any) => a.target.type), ['connection', 'connection']);

      // The same repository twice is a conflict.
      const again = await api.call('POST', path(), { key: o.apiKey, body: { provider: 'github', baseUrl: gh.baseUrl, repository: 'acme/site', token: GH_TOKEN, branches: { main: 'production' } } });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'connection_exists');
    });

    it('a token or repository the host refuses is 422 repository_unreachable, and nothing is stored', async () => {
      const count = async () => (await api.db('repository_connections').count({ n: '*' }))[0].n;
      const n = Number(await count());
      const wrongToken = await api.call('POST', path(), { key: o.apiKey, body: { provider: 'github', baseUrl: gh.baseUrl, repository: 'acme/other', token: 'ghp_revokedToken0000', branches: { main: 'production' } } });
      assert.equal(wrongToken.status, 422, wrongToken.text);
      assert.equal(wrongToken.body.code, 'repository_unreachable');
      assert.match(wrongToken.body.detail, /refused the token/);
      assert.ok(!wrongToken.text.includes('ghp_revokedToken0000'));
      const wrongRepo = await api.call('POST', path(), { key: o.apiKey, body: { provider: 'github', baseUrl: gh.baseUrl, repository: 'acme/nothing', token: GH_TOKEN, branches: { main: 'production' } } });
      assert.equal(wrongRepo.status, 422);
      assert.match(wrongRepo.body.detail, /no repository acme\/nothing/);
      gl.failNext(/projects/, 503, 2); // both attempts of the validating call
      const down = await api.call('POST', path(), { key: o.apiKey, body: { provider: 'gitlab', baseUrl: gl.baseUrl, repository: 'acme/web/site2', token: GL_TOKEN, branches: { main: 'production' } } });
      assert.equal(down.status, 422);
      assert.match(down.body.detail, /could not be reached/);
      assert.equal(Number(await count()), n);
    });

    it('the SDK connects, lists, rotates and removes with per-request options last', async () => {
      const fresh = await api.owner();
      const sdk = new SiteHealth({ apiKey: fresh.apiKey, baseUrl: api.url });
      const refused = await sdk.connections.create(fresh.workspaceId, { provider: 'github', baseUrl: gh.baseUrl, repository: 'acme/site', token: 'ghp_wrongTokenForSdk', branches: { main: 'production' } }).catch((e: unknown) => e);
      assert.ok(refused instanceof UnprocessableError);
      assert.equal(refused.code, 'repository_unreachable');
      const created = await sdk.connections.create(fresh.workspaceId, { provider: 'gitlab', baseUrl: gl.baseUrl, repository: 'acme/web/site', token: GL_TOKEN, branches: { release: 'production' } }, { idempotencyKey: crypto.randomUUID() });
      assert.match(created.webhookSecret, /^[A-Za-z0-9_-]{43}$/);
      const { data } = await sdk.connections.list(fresh.workspaceId, { timeoutMs: 5000 });
      assert.deepEqual(data.map((c) => c.id), [created.id]);
      const gitlab = data[0];
      const rotated = await sdk.connections.update(fresh.workspaceId, gitlab.id, { rotateSecret: true });
      assert.ok('webhookSecret' in rotated);
      const deleted = await sdk.connections.delete(fresh.workspaceId, gitlab.id);
      assert.equal(deleted.id, gitlab.id);
    });

    it('with an Idempotency-Key the kept answer is sealed: neither the webhook secret nor the token is in the table, and a replay answers the same', async () => {
      const fresh = await api.owner();
      const key = crypto.randomUUID();
      const body = { provider: 'github', baseUrl: gh.baseUrl, repository: 'acme/site', token: GH_TOKEN, branches: { main: 'production' } };
      const send = () => api.call('POST', `/v1/workspaces/${fresh.workspaceId}/connections`, { key: fresh.apiKey, body, headers: { 'idempotency-key': key } });
      const first = await send();
      assert.equal(first.status, 201, first.text);
      const rows = await api.db('idempotency_keys').where({ idempotency_key: key });
      assert.equal(rows.length, 1);
      assert.match(rows[0].response, /^v1\.[0-9a-f]{8}\./);
      const stored = JSON.stringify(rows[0]);
      for (const readable of [first.body.webhookSecret, GH_TOKEN, first.body.id, first.body.webhookUrl]) assert.ok(!stored.includes(readable), `the stored row holds ${readable}`);

      const hostCalls = gh.requests.length;
      const again = await send();
      assert.equal(again.status, 201);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(again.text, first.text);
      assert.equal(gh.requests.length, hostCalls, 'a replay does not call the host');
      const list = await api.call('GET', `/v1/workspaces/${fresh.workspaceId}/connections`, { key: fresh.apiKey });
      assert.equal(list.body.data.length, 1);
    });

    it('rotation: secrets reseal moves every sealed value to the first key of SECRETS_KEY', async () => {
      // A webhook whose secret was rotated: both its secrets are sealed too.
      const hook = await api.call('POST', '/v1/webhooks', { key: o.apiKey, body: { workspaceId: o.workspaceId, url: 'https://hooks.example.com/reseal', events: ['deploy.recorded'] } });
      const rotated = await api.call('PUT', `/v1/webhooks/${hook.body.id}`, { key: o.apiKey, body: { secret: 'the rotated webhook secret' } });
      assert.equal(rotated.status, 200);
      const newKey = crypto.randomBytes(32).toString('base64');
      const keyId = (k: string) => crypto.createHash('sha256').update(Buffer.from(k, 'base64')).digest('hex').slice(0, 8);
      const res = await runCli(api.dbUrl, ['secrets', 'reseal', '--json'], { SECRETS_KEY: `${newKey},${SECRETS_KEY}` });
      assert.equal(res.code, 0, res.stderr);
      assert.ok(res.json.resealed >= 1);
      assert.equal(res.json.webhookSecrets, 1);
      const rows = await api.db('repository_connections').select('token', 'webhook_secret');
      for (const r of rows) for (const v of [r.token, r.webhook_secret]) assert.equal(v.split('.')[1], keyId(newKey));
      const [webhook] = await Webhook.query(api.db).where({ id: hook.body.id });
      for (const v of [webhook.secret, webhook.previous_secret!]) assert.equal(v.split('.')[1], keyId(newKey));
      // The new key alone opens them, to the same secrets.
      assert.deepEqual(openSecrets(webhook, new Keyring([Buffer.from(newKey, 'base64')]), Date.now()).signing, ['the rotated webhook secret', hook.body.secret]);
      const again = await runCli(api.dbUrl, ['secrets', 'reseal', '--json'], { SECRETS_KEY: `${newKey},${SECRETS_KEY}` });
      assert.equal(again.json.resealed, 0);
      assert.equal(again.json.webhookSecrets, 0);
    });

    it('refuses bad input with 400 naming the field', async () => {
      const bad = async (body: Record<string, unknown>, field: string) => {
        const res = await api.call('POST', path(), { key: o.apiKey, body: { provider: 'github', baseUrl: gh.baseUrl, repository: 'acme/x', token: GH_TOKEN, branches: { main: 'production' }, ...body } });
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
        assert.ok(res.body.errors.some((e: any) => e.path.startsWith(field)), `${field}: ${JSON.stringify(res.body.errors)}`);
      };
      await bad({ provider: 'bitbucket' }, '/provider');
      await bad({ repository: 'justone' }, '/repository');
      await bad({ repository: 'a/b/c' }, '/repository'); // GitHub is owner/name
      await bad({ branches: {} }, '/branches');
      await bad({ branches: { 'bad branch': 'production' } }, '/branches');
      await bad({ branches: { main: '' } }, '/branches/main');
      await bad({ token: 'short' }, '/token');
      await bad({ baseUrl: 'ftp://example.com' }, '/baseUrl');
      await bad({ signingToken: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }, '/signingToken'); // GitHub has none
      await bad({ trigger: 'tag' }, '/trigger');
      await bad({ failOn: 'huge' }, '/failOn');
    });

    it('updates: a new token is checked, rotateSecret shows a new secret once, and both are security rows', async () => {
      const list = await api.call('GET', path(), { key: o.apiKey });
      const c = list.body.data.find((x: any) => x.provider === 'github');
      const bad = await api.call('PUT', `${path()}/${c.id}`, { key: o.apiKey, body: { token: 'ghp_notAcceptedByHost' } });
      assert.equal(bad.status, 422);
      const rotated = await api.call('PUT', `${path()}/${c.id}`, { key: o.apiKey, body: { rotateSecret: true, branches: { main: 'production' }, failOn: 'medium' } });
      assert.equal(rotated.status, 200, rotated.text);
      assert.match(rotated.body.webhookSecret, /^[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(rotated.body.branches, { main: 'production' });
      assert.equal(rotated.body.failOn, 'medium');
      const plain = await api.call('PUT', `${path()}/${c.id}`, { key: o.apiKey, body: { trigger: 'push' } });
      assert.equal(plain.status, 200);
      assert.ok(!('webhookSecret' in plain.body));
      const activity = await api.call('GET', '/v1/activity', { key: o.apiKey, query: { workspace_id: o.workspaceId } });
      const updates = activity.body.data.filter((a: any) => a.action === 'connection.updated');
      assert.deepEqual(updates.map((a: any) => a.kind).sort(), ['connection', 'security']);
    });

    it('admins manage, members read, other workspaces see nothing; removing is a security row', async () => {
      const member = await api.user({ accountId: o.accountId });
      await api.member(o.workspaceId, member.userId, 'member');
      const memberKey = (await api.key(member.userId)).apiKey;
      const list = await api.call('GET', path(), { key: memberKey });
      assert.equal(list.status, 200);
      const c = list.body.data[0];
      const denied = await api.call('DELETE', `${path()}/${c.id}`, { key: memberKey });
      assert.equal(denied.status, 403);
      assert.equal(denied.body.requiredRole, 'admin');
      const createDenied = await api.call('POST', path(), { key: memberKey, body: { provider: 'github', baseUrl: gh.baseUrl, repository: 'acme/site', token: GH_TOKEN, branches: { main: 'production' } } });
      assert.equal(createDenied.status, 403);

      const stranger = await api.owner();
      assert.equal((await api.call('GET', path(), { key: stranger.apiKey })).status, 404);
      assert.equal((await api.call('DELETE', `/v1/workspaces/${stranger.workspaceId}/connections/${c.id}`, { key: stranger.apiKey })).status, 404);
      assert.equal((await api.call('PUT', `/v1/workspaces/${stranger.workspaceId}/connections/${c.id}`, { key: stranger.apiKey, body: { failOn: 'low' } })).status, 404);

      assert.equal((await api.call('DELETE', `${path()}/${c.id}`, { key: o.apiKey })).status, 204);
      assert.equal((await api.call('DELETE', `${path()}/${c.id}`, { key: o.apiKey })).status, 404);
      const activity = await api.call('GET', '/v1/activity', { key: o.apiKey, query: { workspace_id: o.workspaceId, kind: 'security' } });
      assert.ok(activity.body.data.some((a: any) => a.action === 'connection.removed' && a.target.id === c.id));
    });
  });

  describe(`connections without SECRETS_KEY or private networks (${engine})`, () => {
    it('without SECRETS_KEY nothing can be connected: 503 secrets_unconfigured, the host never called', async () => {
      const api = await TestApi.start(engine, { env: { ALLOW_PRIVATE_NETWORK: '1', SECRETS_KEY: '' } });
      const gh = await StubRepoHost.start('github', 'acme/site', GH_TOKEN);
      try {
        const o = await api.owner();
        const res = await api.call('POST', `/v1/workspaces/${o.workspaceId}/connections`, { key: o.apiKey, allow5xx: true, body: { provider: 'github', baseUrl: gh.baseUrl, repository: 'acme/site', token: GH_TOKEN, branches: { main: 'production' } } });
        assert.equal(res.status, 503);
        assert.equal(res.body.code, 'secrets_unconfigured');
        assert.equal(gh.requests.length, 0);
      } finally {
        await api.stop();
        await gh.close();
      }
    });

    it('without ALLOW_PRIVATE_NETWORK a loopback or plain-http baseUrl is refused before any call', async () => {
      const api = await TestApi.start(engine, { env: { ALLOW_PRIVATE_NETWORK: '0', SECRETS_KEY } });
      try {
        const o = await api.owner();
        for (const baseUrl of ['http://127.0.0.1:9/api', 'https://localhost/api', 'http://github.example.com/api/v3']) {
          const res = await api.call('POST', `/v1/workspaces/${o.workspaceId}/connections`, { key: o.apiKey, body: { provider: 'github', baseUrl, repository: 'acme/site', token: GH_TOKEN, branches: { main: 'production' } } });
          assert.equal(res.status, 400, baseUrl);
          assert.equal(res.body.errors[0].path, '/baseUrl');
        }
      } finally {
        await api.stop();
      }
    });
  });
}
