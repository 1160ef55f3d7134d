// Idempotency-Key on POSTs (spec/common/errors.tsp `IdempotencyKey`, docs/api.md#idempotent-requests),
// through the HTTP API on both engines: a repeat replays the first answer and creates nothing;
// the same key with another request, or while the first runs, is a 409; after an error the key
// runs again; keys belong to their API key; the kept answer is sealed, so the secret an answer
// shows once (a webhook's) is nowhere readable in the table, and a replay still answers the same.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { TestApi } from './support/api.ts';
import { dropCreatedDatabases, engines } from './support/databases.ts';

after(dropCreatedDatabases);

for (const engine of engines()) {
  describe(`Idempotency-Key (${engine})`, () => {
    let api: TestApi;
    let o: Awaited<ReturnType<TestApi['owner']>>;
    before(async () => {
      api = await TestApi.start(engine);
      o = await api.owner();
    });
    after(async () => {
      await api.stop();
    });

    const post = (path: string, body: unknown, key: string, apiKey = o.apiKey) => api.call('POST', path, { key: apiKey, body, headers: { 'idempotency-key': key } });
    const workspaces = async () => (await api.call('GET', '/v1/workspaces', { key: o.apiKey })).body.data.map((w: { id: string }) => w.id) as string[];

    it('a repeat gets the first answer again, marked as replayed, and creates nothing', async () => {
      const key = crypto.randomUUID();
      const body = { name: `Idem ${crypto.randomUUID()}`, website: 'https://idem.example' };
      const before = (await workspaces()).length;
      const first = await post('/v1/workspaces', body, key);
      assert.equal(first.status, 201);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const again = await post('/v1/workspaces', body, key);
      assert.equal(again.status, 201);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(again.body, first.body);
      assert.equal((await workspaces()).length, before + 1, 'one workspace');

      // The same key with another request: 409, nothing created.
      const other = await post('/v1/workspaces', { ...body, name: `${body.name} 2` }, key);
      assert.equal(other.status, 409);
      assert.equal(other.body.code, 'idempotency_key_reused');
      assert.equal((await workspaces()).length, before + 1);
    });

    it('concurrent repeats create one resource: the others replay it or are told it is still running', async () => {
      const key = crypto.randomUUID();
      const body = { commitSha: crypto.randomBytes(20).toString('hex'), workspaceId: o.workspaceId, environment: 'staging' };
      const answers = await Promise.all(Array.from({ length: 12 }, () => post('/v1/deploys', body, key)));
      const created = answers.filter((a) => a.status === 201);
      assert.ok(created.length >= 1);
      assert.equal(new Set(created.map((a) => a.body.id)).size, 1, 'one deploy');
      for (const a of answers.filter((x) => x.status !== 201)) {
        assert.equal(a.status, 409);
        assert.equal(a.body.code, 'idempotency_key_in_use');
      }
      const list = await api.call('GET', '/v1/deploys', { key: o.apiKey, query: { workspace_id: o.workspaceId } });
      assert.equal(list.body.data.filter((d: { commitSha: string }) => d.commitSha === body.commitSha).length, 1);
    });

    it('after an error the same key runs the request again', async () => {
      const name = `Taken ${crypto.randomUUID()}`;
      const taken = await api.call('POST', '/v1/workspaces', { key: o.apiKey, body: { name, website: 'https://taken.example' } });
      assert.equal(taken.status, 201);
      const key = crypto.randomUUID();
      const refused = await post('/v1/workspaces', { name, website: 'https://taken.example' }, key);
      assert.equal(refused.status, 409);
      assert.equal(refused.body.code, 'slug_taken');
      assert.equal((await api.call('DELETE', `/v1/workspaces/${taken.body.data.id}`, { key: o.apiKey })).status, 204);
      const retried = await post('/v1/workspaces', { name, website: 'https://taken.example' }, key);
      assert.equal(retried.status, 201, 'the error was not kept: the retry ran');
      assert.equal(retried.headers.get('idempotent-replayed'), null);
    });

    it('the kept answer is sealed: the stored row holds no secret of the answer or the request, and a replay answers the same', async () => {
      const chosen = `whsec_${crypto.randomBytes(32).toString('base64')}`;
      const headerValue = `Bearer ${crypto.randomBytes(16).toString('hex')}`;
      const bodies = [
        { workspaceId: o.workspaceId, url: 'https://hooks.example.com/idem', events: ['deploy.recorded'] },
        // A secret and a header value of the caller's choosing travel in the request itself.
        { workspaceId: o.workspaceId, url: 'https://hooks.example.com/idem', events: ['deploy.recorded'], secret: chosen, headers: { Authorization: headerValue } },
      ];
      for (const body of bodies) {
        const key = crypto.randomUUID();
        const first = await post('/v1/webhooks', body, key);
        assert.equal(first.status, 201, first.text);
        const secret: string = first.body.secret;
        assert.ok(secret.length > 0);

        const rows = await api.db('idempotency_keys').where({ idempotency_key: key });
        assert.equal(rows.length, 1);
        const row = rows[0];
        assert.equal(row.state, 'done');
        assert.match(row.response, /^v1\.[0-9a-f]{8}\./, 'sealed');
        const stored = JSON.stringify(row);
        for (const readable of [secret, chosen, headerValue, first.body.id, o.workspaceId, 'hooks.example.com']) {
          assert.ok(!stored.includes(readable), `the stored row holds ${readable}`);
        }
        // Nor can the fingerprint be matched against guesses of the request without the API key.
        const unkeyed = crypto.createHash('sha256').update(`Webhooks_create\n/v1/webhooks\n${JSON.stringify(body)}`).digest('hex');
        assert.notEqual(row.fingerprint, unkeyed);

        const again = await post('/v1/webhooks', body, key);
        assert.equal(again.status, 201);
        assert.equal(again.headers.get('idempotent-replayed'), 'true');
        assert.equal(again.text, first.text, 'the replay is the first answer, byte for byte');
      }
      const hooks = await api.call('GET', '/v1/webhooks', { key: o.apiKey, query: { workspace_id: o.workspaceId } });
      assert.equal(hooks.body.data.length, 2, 'the replays created nothing');
    });

    it('keys belong to their API key; a malformed key is a 400 that runs nothing', async () => {
      const key = crypto.randomUUID();
      const body = { commitSha: crypto.randomBytes(20).toString('hex'), workspaceId: o.workspaceId, environment: 'staging' };
      const mine = await post('/v1/deploys', body, key);
      const second = await api.key(o.userId);
      const theirs = await post('/v1/deploys', { ...body, message: 'another request' }, key, second.apiKey);
      assert.equal(mine.status, 201);
      assert.equal(theirs.status, 201, 'another API key has keys of its own');
      assert.equal(theirs.headers.get('idempotent-replayed'), null);

      for (const bad of ['x'.repeat(256), 'has space', 'ünïcode']) {
        let res;
        try {
          res = await api.call('POST', '/v1/deploys', { key: o.apiKey, body: { ...body, commitSha: crypto.randomBytes(20).toString('hex') }, headers: { 'idempotency-key': bad } });
        } catch {
          continue; // fetch refuses a non-ASCII header value before sending
        }
        assert.equal(res.status, 400, bad);
        assert.equal(res.body.code, 'validation_failed');
        assert.equal(res.body.errors[0].in, 'header');
      }
    });
  });
}
