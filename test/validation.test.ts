import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi, type ApiResponse, type CallOptions } from './support/api.ts';

after(dropCreatedDatabases);

const MIB = 1024 * 1024;
const STACK = /\bat\s+\S+\s+\(?[^)\s]*:\d+:\d+|node_modules|\.ts:\d+|\.js:\d+/;

interface FieldError {
  in: string;
  path: string;
  message: string;
}

/** A JSON body of exactly `bytes` bytes: `{"name":"xxx…"}`. */
function jsonOfSize(bytes: number): string {
  const shell = '{"name":""}';
  return `{"name":"${'x'.repeat(bytes - shell.length)}"}`;
}

for (const engine of engines()) {
  describe(`validation errors (${engine})`, () => {
    let api: TestApi;
    let key: string;
    const texts: string[] = [];

    const call = async (method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse> => {
      const res = await api.call(method, path, { key, ...opts });
      texts.push(res.text);
      return res;
    };

    const assertProblem = (res: ApiResponse, status: number, code: string) => {
      assert.equal(res.status, status, res.text.slice(0, 300));
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(res.body.status, status);
      assert.equal(res.body.code, code);
      for (const f of ['type', 'title', 'detail']) assert.equal(typeof res.body[f], 'string', `problem has ${f}`);
    };

    before(async () => {
      api = await TestApi.start(engine);
      key = (await api.owner()).apiKey;
    });
    after(async () => {
      await api.stop();
      for (const t of texts) assert.doesNotMatch(t, STACK, 'no stack trace in a response body');
    });

    it('lists every offending body field with in, path and message', async () => {
      const res = await call('POST', '/v1/workspaces', { body: { name: '', website: 'ftp://x', type: 'NOPE', extra: 1 } });
      assertProblem(res, 400, 'validation_failed');
      const errors = res.body.errors as FieldError[];
      assert.ok(Array.isArray(errors));
      for (const e of errors) {
        assert.equal(e.in, 'body');
        assert.equal(typeof e.message, 'string');
        assert.ok(e.message.length > 0);
      }
      assert.deepEqual([...new Set(errors.map((e) => e.path))].sort(), ['/extra', '/name', '/type', '/website']);
      // One entry per field, not one per failed keyword or anyOf branch.
      assert.equal(errors.length, 4);
      // Messages a person can act on, not ajv's internals ("must NOT be valid").
      assert.equal(errors.find((e) => e.path === '/extra')!.message, 'is not allowed');
      assert.match(errors.find((e) => e.path === '/type')!.message, /^must be one of: PERSONAL, TEAM/);
    });

    it('points at nested fields with a JSON pointer', async () => {
      const res = await call('POST', '/v1/deploys', {
        body: { commitSha: 'abc1234', workspaceId: '0193a4e2-7c1f-7b3a-9a52-3f0c1d2e4b5a', changes: [{ path: 'a', category: 'page' }, { path: 'b', category: 'nope', x: 1 }] },
      });
      assertProblem(res, 400, 'validation_failed');
      const paths = (res.body.errors as FieldError[]).map((e) => e.path).sort();
      assert.deepEqual(paths, ['/changes/1/category', '/changes/1/x']);
    });

    it('names a missing required field by its pointer', async () => {
      const res = await call('POST', '/v1/workspaces', { body: { name: 'Only a name' } });
      assertProblem(res, 400, 'validation_failed');
      assert.deepEqual(res.body.errors, [{ in: 'body', path: '/website', message: 'is required' }]);
    });

    it('reports query errors with in: "query"', async () => {
      const res = await call('GET', '/v1/deploys', { query: { workspace_id: '0193a4e2-7c1f-7b3a-9a52-3f0c1d2e4b5a', limit: 0 } });
      assertProblem(res, 400, 'validation_failed');
      assert.equal(res.body.errors.length, 1);
      assert.equal(res.body.errors[0].in, 'query');
      assert.equal(res.body.errors[0].path, '/limit');
      assert.equal(typeof res.body.errors[0].message, 'string');
    });

    it('reports unknown and missing query parameters', async () => {
      const res = await call('GET', '/v1/deploys', { query: { bogus: 'x' } });
      assertProblem(res, 400, 'validation_failed');
      const errors = res.body.errors as FieldError[];
      assert.ok(errors.every((e) => e.in === 'query'));
      assert.deepEqual(errors.map((e) => e.path).sort(), ['/bogus', '/workspace_id']);
    });

    it('reports query and body errors of one request together', async () => {
      const res = await call('POST', '/v1/workspaces', { query: { x: '1' }, body: { name: 'n', website: 'https://ok.example', extra: true } });
      assertProblem(res, 400, 'validation_failed');
      const got = (res.body.errors as FieldError[]).map((e) => `${e.in}:${e.path}`).sort();
      assert.deepEqual(got, ['body:/extra', 'query:/x']);
    });

    it('a malformed id in a query or body field is 400, including forms a lax uuid format accepts', async () => {
      const id = '0193a4e2-7c1f-7b3a-9a52-3f0c1d2e4b5a';
      for (const bad of ['not-a-uuid', `urn:uuid:${id}`, `{${id}}`, id.replace(/-/g, ''), `${id} `]) {
        const q = await call('GET', '/v1/deploys', { query: { workspace_id: bad } });
        assertProblem(q, 400, 'validation_failed');
        assert.deepEqual(q.body.errors.map((e: FieldError) => `${e.in}:${e.path}`), ['query:/workspace_id']);
        const b = await call('POST', '/v1/deploys', { body: { commitSha: 'abc1234', workspaceId: bad } });
        assertProblem(b, 400, 'validation_failed');
        assert.deepEqual(b.body.errors.map((e: FieldError) => `${e.in}:${e.path}`), ['body:/workspaceId']);
      }
    });

    it('rejects a date-time the service cannot represent (leap second)', async () => {
      const o = await api.owner();
      const res = await call('POST', '/v1/deploys', { key: o.apiKey, body: { commitSha: 'abc1234', workspaceId: o.workspaceId, deployedAt: '2026-12-31T23:59:60Z' } });
      assertProblem(res, 400, 'validation_failed');
      assert.deepEqual(res.body.errors.map((e: FieldError) => e.path), ['/deployedAt']);
      const q = await call('GET', '/v1/activity', { query: { from: '2026-06-30T23:59:60Z' } });
      assertProblem(q, 400, 'validation_failed');
      assert.equal(q.body.errors[0].path, '/from');
    });

    it('escapes property names in error pointers (RFC 6901)', async () => {
      const res = await call('POST', '/v1/workspaces', { body: { name: 'n', website: 'https://ok.example', 'a/b': 1, 'c~d': 2 } });
      assertProblem(res, 400, 'validation_failed');
      assert.deepEqual(res.body.errors.map((e: FieldError) => e.path).sort(), ['/a~1b', '/c~0d']);
      const q = await call('GET', '/v1/workspaces', { query: { 'a/b': '1', 'c~d': '2' } });
      assertProblem(q, 400, 'validation_failed');
      assert.deepEqual(q.body.errors.map((e: FieldError) => `${e.in}:${e.path}`).sort(), ['query:/a~1b', 'query:/c~0d']);
    });

    it('answers 415 for a body that is not JSON', async () => {
      const res = await call('POST', '/v1/workspaces', {
        rawBody: JSON.stringify({ name: 'n', website: 'https://ok.example' }),
        headers: { 'content-type': 'text/plain' },
      });
      assertProblem(res, 415, 'unsupported_media_type');
      const none = await call('POST', '/v1/workspaces', { rawBody: Buffer.from('{"name":"n","website":"https://ok.example"}') });
      assertProblem(none, 415, 'unsupported_media_type');
    });

    it('answers 413 past 1 MiB and validates a body of exactly 1 MiB', async () => {
      const exact = await call('POST', '/v1/workspaces', { rawBody: jsonOfSize(MIB), headers: { 'content-type': 'application/json' } });
      assertProblem(exact, 400, 'validation_failed');
      const over = await call('POST', '/v1/workspaces', { rawBody: jsonOfSize(MIB + 1), headers: { 'content-type': 'application/json' } });
      assertProblem(over, 413, 'payload_too_large');
    });

    it('answers 413 for a chunked body past 1 MiB (no content-length)', async () => {
      const data = Buffer.from(jsonOfSize(MIB + 1));
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < data.length; i += 64 * 1024) c.enqueue(data.subarray(i, i + 64 * 1024));
          c.close();
        },
      });
      const res = await fetch(new URL('/v1/workspaces', api.url), {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      const text = await res.text();
      texts.push(text);
      assert.equal(res.status, 413, text);
      assert.equal(JSON.parse(text).code, 'payload_too_large');
    });

    it('keeps a keep-alive connection usable after refusing a chunked body past 1 MiB', async () => {
      // One socket for everything: the next request must travel the connection the 413 used.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const url = new URL(api.url);
      const request = (method: string, path: string, chunks: Buffer[] | null) =>
        new Promise<{ status: number; text: string; socket: unknown }>((resolve, reject) => {
          const req = http.request(
            { host: url.hostname, port: url.port, method, path, agent, headers: { 'x-api-key': key, ...(chunks ? { 'content-type': 'application/json' } : {}) } },
            (res) => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (d) => (text += d));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, text, socket: req.socket }));
            },
          );
          req.setTimeout(3000, () => req.destroy(new Error(`${method} ${path} timed out`)));
          req.on('error', reject);
          for (const c of chunks ?? []) req.write(c);
          req.end();
        });
      try {
        const data = Buffer.from(jsonOfSize(2 * MIB));
        const chunks = Array.from({ length: Math.ceil(data.length / (64 * 1024)) }, (_, i) => data.subarray(i * 64 * 1024, (i + 1) * 64 * 1024));
        for (let i = 0; i < 3; i++) {
          const big = await request('POST', '/v1/workspaces', chunks);
          texts.push(big.text);
          assert.equal(big.status, 413, big.text);
          const next = await request('GET', '/v1/workspaces', null);
          assert.equal(next.status, 200, next.text);
          assert.equal(next.socket, big.socket, 'the same connection was reused');
        }
      } finally {
        agent.destroy();
      }
    });

    it('answers 400 invalid_json for a body that does not parse', async () => {
      for (const raw of ['{', '{"name":', '{"name":"a",}', "{'name':'a'}", 'nul', '\u0000']) {
        const res = await call('POST', '/v1/workspaces', { rawBody: raw, headers: { 'content-type': 'application/json' } });
        assertProblem(res, 400, 'invalid_json');
        assert.equal(res.body.errors, undefined);
      }
    });

    it('answers 400 validation_failed for an empty or missing body on an operation that needs one', async () => {
      const empty = await call('POST', '/v1/workspaces', { rawBody: '', headers: { 'content-type': 'application/json' } });
      assertProblem(empty, 400, 'validation_failed');
      assert.deepEqual(empty.body.errors, [{ in: 'body', path: '', message: 'is required' }]);
      const none = await call('POST', '/v1/workspaces');
      assertProblem(none, 400, 'validation_failed');
    });

    it('answers 400 validation_failed for JSON that is not an object', async () => {
      for (const raw of ['null', '[]', '"text"', '42', 'true']) {
        const res = await call('POST', '/v1/workspaces', { rawBody: raw, headers: { 'content-type': 'application/json' } });
        assertProblem(res, 400, 'validation_failed');
        assert.equal(res.body.errors[0].in, 'body');
        assert.equal(res.body.errors[0].path, '');
      }
    });

    it('accepts application/json with a charset parameter', async () => {
      const res = await call('POST', '/v1/workspaces', {
        rawBody: JSON.stringify({ name: 'Charset site', website: 'https://charset.example' }),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      assert.equal(res.status, 201, res.text);
    });
  });
}
