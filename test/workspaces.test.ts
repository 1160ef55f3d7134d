import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi, uniqueEmail } from './support/api.ts';

after(dropCreatedDatabases);

let n = 0;
const uniqueName = (base = 'Site') => `${base} ${++n} ${process.pid} ${Date.now()}`;

for (const engine of engines()) {
  describe(`workspaces (${engine})`, () => {
    let api: TestApi;
    let o: Awaited<ReturnType<TestApi['owner']>>;
    const create = (body: unknown, key = o.apiKey) => api.call('POST', '/v1/workspaces', { key, body });

    before(async () => {
      api = await TestApi.start(engine);
      o = await api.owner();
      await api.setLimit(o.accountId, 1000);
    });
    after(async () => {
      await api.stop();
    });

    it('creates a workspace with every default and makes the caller its owner', async () => {
      const res = await create({ name: 'Acme Shop', website: 'https://acme.example' });
      assert.equal(res.status, 201);
      const w = res.body.data;
      assert.equal(w.name, 'Acme Shop');
      assert.equal(w.slug, 'acme-shop');
      assert.equal(w.type, 'PERSONAL');
      assert.equal(w.timezone, 'UTC');
      assert.equal(w.language, 'en');
      assert.equal(w.logo, null);
      assert.equal(w.country, null);
      assert.equal(w.description, null);
      assert.equal(w.website, 'https://acme.example');
      assert.match(w.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(w.created_at, w.updated_at);
      const role = await api.db('memberships').where({ workspace_id: w.id, user_id: o.userId }).first('role');
      assert.equal(role.role, 'owner');
      const list = await api.call('GET', '/v1/workspaces', { key: o.apiKey });
      const ids = list.body.data.map((x: { id: string }) => x.id);
      assert.equal(ids[0], o.workspaceId, 'oldest first');
      assert.ok(ids.includes(w.id));
      const one = await api.call('GET', `/v1/workspaces/${w.id}`, { key: o.apiKey });
      assert.deepEqual(one.body.data, w);
    });

    it('takes every optional field', async () => {
      const res = await create({
        name: uniqueName(),
        website: 'http://example.org/path?x=1',
        type: 'AGENCY',
        timezone: 'Europe/Berlin',
        language: 'pt-BR',
        logo: 'https://cdn.example.org/logo.png',
        country: 'de',
        description: 'Our agency site',
      });
      assert.equal(res.status, 201, res.text);
      const w = res.body.data;
      assert.equal(w.type, 'AGENCY');
      assert.equal(w.timezone, 'Europe/Berlin');
      assert.equal(w.language, 'pt-BR');
      assert.equal(w.country, 'DE');
      assert.equal(w.logo, 'https://cdn.example.org/logo.png');
      assert.equal(w.description, 'Our agency site');
    });

    it('accepts every workspace type', async () => {
      for (const type of ['PERSONAL', 'TEAM', 'ORGANIZATION', 'CLIENT', 'PROJECT', 'DEPARTMENT', 'EVENT', 'TEMPORARY', 'COMMUNITY', 'BRAND', 'AGENCY']) {
        const res = await create({ name: uniqueName(type), website: 'https://x.example', type });
        assert.equal(res.status, 201, type);
        assert.equal(res.body.data.type, type);
      }
    });

    it('enforces every bound at and just past the limit', async () => {
      const bad = async (body: Record<string, unknown>, pointer: string) => {
        const r = await create({ name: uniqueName(), website: 'https://x.example', ...body });
        assert.equal(r.status, 400, `${pointer} ${r.text}`);
        assert.equal(r.body.code, 'validation_failed');
        assert.ok(r.body.errors.some((e: { in: string; path: string }) => e.in === 'body' && e.path === pointer), `${pointer}: ${JSON.stringify(r.body.errors)}`);
      };
      const long = (len: number, tag: string) => (tag + '-' + 'n'.repeat(len)).slice(0, len);
      assert.equal((await create({ name: long(255, `a${++n}`), website: 'https://x.example' })).status, 201);
      await bad({ name: long(256, `b${++n}`) }, '/name');
      await bad({ name: '' }, '/name');
      const site500 = 'https://x.example/' + 'p'.repeat(500 - 'https://x.example/'.length);
      assert.equal(site500.length, 500);
      assert.equal((await create({ name: uniqueName(), website: site500 })).status, 201);
      await bad({ website: site500 + 'p' }, '/website');
      await bad({ website: 'ftp://x.example' }, '/website');
      await bad({ website: 'x.example' }, '/website');
      await bad({ type: 'personal' }, '/type');
      await bad({ timezone: 'Mars/Olympus' }, '/timezone');
      await bad({ timezone: '' }, '/timezone');
      await bad({ language: 'not a tag!' }, '/language');
      await bad({ country: 'XX' }, '/country');
      await bad({ country: 'DEU' }, '/country');
      await bad({ description: 'd'.repeat(2001) }, '/description');
      await bad({ extra: 1 }, '/extra');
      const missing = await api.call('POST', '/v1/workspaces', { key: o.apiKey, body: {} });
      assert.deepEqual(new Set(missing.body.errors.map((e: { path: string }) => e.path)), new Set(['/name', '/website']));
    });

    it('a slug already in use is 409 slug_taken, across accounts too', async () => {
      const name = uniqueName('Taken');
      assert.equal((await create({ name, website: 'https://x.example' })).status, 201);
      const again = await create({ name: name.toUpperCase(), website: 'https://y.example' });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'slug_taken');
      const stranger = await api.owner();
      const other = await create({ name, website: 'https://z.example' }, stranger.apiKey);
      assert.equal(other.status, 409);
    });

    it('402 workspace_limit when the account is full, with a billing activity row', async () => {
      const u = await api.user();
      const k = await api.key(u.userId);
      await api.setLimit(u.accountId, 2);
      assert.equal((await create({ name: uniqueName(), website: 'https://x.example' }, k.apiKey)).status, 201);
      assert.equal((await create({ name: uniqueName(), website: 'https://x.example' }, k.apiKey)).status, 201);
      const full = await create({ name: uniqueName(), website: 'https://x.example' }, k.apiKey);
      assert.equal(full.status, 402);
      assert.equal(full.body.code, 'workspace_limit');
      const rows = await api.db('activity').where({ account_id: u.accountId, kind: 'billing', action: 'workspace_limit.reached' });
      assert.equal(rows.length, 1);
      assert.equal((await api.db('workspaces').where({ account_id: u.accountId })).length, 2);
    });

    it('updates any field; null clears logo, country and description; the slug never changes', async () => {
      const w = (await create({ name: uniqueName('Upd'), website: 'https://x.example', logo: 'https://l.example/a.png', country: 'FR', description: 'd' })).body.data;
      const put = (body: unknown) => api.call('PUT', `/v1/workspaces/${w.id}`, { key: o.apiKey, body });
      const res = await put({ name: 'Renamed', timezone: 'America/New_York', type: 'BRAND' });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.name, 'Renamed');
      assert.equal(res.body.data.slug, w.slug);
      assert.equal(res.body.data.timezone, 'America/New_York');
      assert.equal(res.body.data.logo, 'https://l.example/a.png');
      assert.ok(res.body.data.updated_at >= w.updated_at);
      const cleared = await put({ logo: null, country: null, description: null });
      assert.equal(cleared.body.data.logo, null);
      assert.equal(cleared.body.data.country, null);
      assert.equal(cleared.body.data.description, null);
      assert.equal(cleared.body.data.name, 'Renamed');
      for (const [body, pointer] of [
        [{ name: null }, '/name'],
        [{ website: null }, '/website'],
        [{ name: '' }, '/name'],
        [{ timezone: 'Nowhere/City' }, '/timezone'],
        [{ slug: 'new-slug' }, '/slug'],
        [{ type: 'NOPE' }, '/type'],
      ] as const) {
        const r = await put(body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.ok(r.body.errors.some((e: { path: string }) => e.path === pointer), JSON.stringify(r.body.errors));
      }
      const unchanged = await api.call('GET', `/v1/workspaces/${w.id}`, { key: o.apiKey });
      assert.equal(unchanged.body.data.name, 'Renamed');
    });

    it('deletes a workspace (204), after which it is 404; its security rows stay', async () => {
      const w = (await create({ name: uniqueName('Del'), website: 'https://x.example' })).body.data;
      const del = await api.call('DELETE', `/v1/workspaces/${w.id}`, { key: o.apiKey });
      assert.equal(del.status, 204);
      assert.equal(del.text, '');
      assert.equal((await api.call('GET', `/v1/workspaces/${w.id}`, { key: o.apiKey })).status, 404);
      assert.equal((await api.call('DELETE', `/v1/workspaces/${w.id}`, { key: o.apiKey })).status, 404);
      const security = await api.db('activity').where({ workspace_id: w.id, kind: 'security' });
      assert.ok(security.length >= 1);
    });

    it('roles: viewer and member cannot update, admin can update but not delete, owner can delete', async () => {
      const w = (await create({ name: uniqueName('Roles'), website: 'https://x.example' })).body.data;
      const keyFor = async (role: 'viewer' | 'member' | 'admin' | 'owner') => {
        const u = await api.user({ accountId: o.accountId, email: uniqueEmail(role) });
        await api.member(w.id, u.userId, role);
        return (await api.key(u.userId, { scopes: ['workspaces'] })).apiKey;
      };
      for (const role of ['viewer', 'member'] as const) {
        const k = await keyFor(role);
        assert.equal((await api.call('GET', `/v1/workspaces/${w.id}`, { key: k })).status, 200);
        const r = await api.call('PUT', `/v1/workspaces/${w.id}`, { key: k, body: { name: 'x' } });
        assert.equal(r.status, 403);
        assert.equal(r.body.code, 'forbidden');
        assert.equal((await api.call('DELETE', `/v1/workspaces/${w.id}`, { key: k })).status, 403);
      }
      const admin = await keyFor('admin');
      assert.equal((await api.call('PUT', `/v1/workspaces/${w.id}`, { key: admin, body: { description: 'by admin' } })).status, 200);
      assert.equal((await api.call('DELETE', `/v1/workspaces/${w.id}`, { key: admin })).status, 403);
      const owner = await keyFor('owner');
      assert.equal((await api.call('DELETE', `/v1/workspaces/${w.id}`, { key: owner })).status, 204);
    });

    it('a bound key sees only its workspace and cannot create workspaces', async () => {
      const bound = await api.key(o.userId, { scopes: ['workspaces'], workspaceId: o.workspaceId });
      const list = await api.call('GET', '/v1/workspaces', { key: bound.apiKey });
      assert.deepEqual(list.body.data.map((w: { id: string }) => w.id), [o.workspaceId]);
      const other = (await create({ name: uniqueName('Other'), website: 'https://x.example' })).body.data;
      assert.equal((await api.call('GET', `/v1/workspaces/${other.id}`, { key: bound.apiKey })).status, 404);
      assert.equal((await api.call('PUT', `/v1/workspaces/${other.id}`, { key: bound.apiKey, body: { name: 'x' } })).status, 404);
      const denied = await create({ name: uniqueName(), website: 'https://x.example' }, bound.apiKey);
      assert.equal(denied.status, 403);
      assert.equal(denied.body.code, 'forbidden');
    });

    it('another account\'s workspace is 404 for every operation', async () => {
      const stranger = await api.owner();
      for (const [method, body] of [['GET'], ['PUT', { name: 'x' }], ['DELETE']] as const) {
        const r = await api.call(method, `/v1/workspaces/${o.workspaceId}`, { key: stranger.apiKey, body });
        assert.equal(r.status, 404, method);
        assert.equal(r.body.code, 'not_found');
      }
    });
  });
}
