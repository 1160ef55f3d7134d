import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';

after(dropCreatedDatabases);

for (const engine of engines()) {
  describe(`workspaces (${engine})`, () => {
    let api: TestApi;
    before(async () => {
      api = await TestApi.start(engine);
    });
    after(async () => {
      await api.stop();
    });

    it('creates a workspace with defaults and makes the caller its owner', async () => {
      const o = await api.owner();
      const res = await api.call('POST', '/v1/workspaces', { key: o.apiKey, body: { name: 'Acme Shop', website: 'https://acme.example' } });
      assert.equal(res.status, 201);
      assert.equal(res.body.data.name, 'Acme Shop');
      assert.equal(res.body.data.slug, 'acme-shop');
      assert.equal(res.body.data.type, 'PERSONAL');
      assert.equal(res.body.data.timezone, 'UTC');
      assert.equal(res.body.data.language, 'en');
      assert.equal(res.body.data.logo, null);
      const list = await api.call('GET', '/v1/workspaces', { key: o.apiKey });
      assert.deepEqual(list.body.data.map((w: { id: string }) => w.id), [o.workspaceId, res.body.data.id]);
    });
  });
}
