// The SDK (sdk/src) through its public surface: against the real server on every engine, against
// small local HTTP servers for retries and pagination, and on its own for webhook signatures and
// the deploy helper.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { problem, scriptedServer, type Answer } from './support/scripted-server.ts';
import {
  SiteHealth,
  createClient,
  SiteHealthError,
  ValidationError,
  AuthenticationError,
  WorkspaceLimitError,
  PermissionError,
  NotFoundError,
  MethodNotAllowedError,
  RequestTimeoutError,
  ConflictError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  RateLimitError,
  HeadersTooLargeError,
  UnprocessableError,
  ApiError,
  InternalServerError,
  ServiceUnavailableError,
  ConnectionError,
  WebhookVerificationError,
  ERROR_CLASS_BY_CODE,
  verifyWebhook,
  verifyBodySignature,
  signWebhook,
  MAX_CHANGES,
  MAX_MESSAGE_LENGTH,
  VERSION,
  type ChangeCategory,
  type ProblemCode,
  type WebhookVerificationReason,
} from '@sitehealth/sdk';
import { changesFromPaths, recordDeploy } from '@sitehealth/cli';
import { MAX_FILES_PER_DEPLOY, MAX_SIGNALS_PER_FILE } from '@sitehealth/sdk/signals';

after(dropCreatedDatabases);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sdkDir = path.join(root, 'sdk');

describe('sdk package', () => {
  it('bundles an exact copy of generated/types.ts (run `npm run sync-types` in sdk/ after `npm run generate`)', async () => {
    const copy = fs.readFileSync(path.join(sdkDir, 'src/generated/types.ts'), 'utf8');
    const source = fs.readFileSync(path.join(root, 'generated/types.ts'), 'utf8');
    assert.ok(copy === source, 'sdk/src/generated/types.ts differs from generated/types.ts');
  });

  it('bundles the limits of generated/openapi.json as scripts/sync-types.mjs writes them (src/generated/values.ts)', async () => {
    const sync = spawnSync(process.execPath, [path.join(sdkDir, 'scripts/sync-types.mjs'), '--check'], { encoding: 'utf8' });
    assert.equal(sync.status, 0, `run \`npm run sync-types\` in sdk/:\n${sync.stderr}`);
    const schemas = JSON.parse(fs.readFileSync(path.join(root, 'generated/openapi.json'), 'utf8')).components.schemas;
    assert.equal(MAX_CHANGES, schemas.DeployCreate.properties.changes.maxItems);
    assert.equal(MAX_MESSAGE_LENGTH, schemas.DeployCreate.properties.message.maxLength);
    assert.equal(MAX_FILES_PER_DEPLOY, MAX_CHANGES);
    assert.equal(MAX_SIGNALS_PER_FILE, schemas.Change.properties.signals.maxItems);
  });

  it('declares its own dependency, version and entry points', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(sdkDir, 'package.json'), 'utf8'));
    assert.equal(pkg.name, '@sitehealth/sdk');
    assert.equal(pkg.type, 'module');
    assert.equal(pkg.version, VERSION, 'src/version.ts follows package.json');
    assert.deepEqual(Object.keys(pkg.dependencies), ['openapi-fetch'], 'one runtime dependency');
    for (const [entry, base] of [['.', 'index'], ['./webhooks', 'webhooks'], ['./signals', 'signals/index']]) {
      assert.deepEqual(pkg.exports[entry], {
        import: { types: `./dist/esm/${base}.d.ts`, default: `./dist/esm/${base}.js` },
        require: { types: `./dist/cjs/${base}.d.ts`, default: `./dist/cjs/${base}.js` },
      }, entry);
    }
  });

  it('never imports outside its own folder, nor anything but openapi-fetch', async () => {
    const files = fs.readdirSync(path.join(sdkDir, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    assert.ok(files.length > 5);
    for (const f of files) {
      const file = path.join(sdkDir, 'src', f);
      const text = fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
      for (const m of text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/gm)) {
        const spec = m[1] ?? m[2];
        if (spec.startsWith('.')) {
          const target = path.resolve(path.dirname(file), spec);
          assert.ok(target.startsWith(path.join(sdkDir, 'src') + path.sep), `${f} imports ${spec}`);
          assert.ok(spec.endsWith('.js'), `${f}: relative import ${spec} must name the emitted .js file`);
        } else {
          // openapi-fetch alone, and no Node built-in: the package runs in browsers and edge runtimes.
          assert.equal(spec, 'openapi-fetch', `${f} imports ${spec}`);
        }
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------

const WS = '01900000-0000-7000-8000-000000000001';
const WORKSPACE = {
  id: WS, name: 'Acme', slug: 'acme', type: 'PERSONAL', logo: null, website: 'https://acme.example', timezone: 'UTC',
  country: null, description: null, language: 'en', created_at: '2026-11-21T10:00:00.000Z', updated_at: '2026-11-21T10:00:00.000Z',
};

describe('sdk transport', () => {
  it('sends the key and the user agent', async () => {
    const srv = await scriptedServer([{ status: 200, body: { data: [] } }]);
    try {
      const client = new SiteHealth({ apiKey: 'sh_test', baseUrl: srv.url, userAgent: 'deployer/1.0' });
      assert.deepEqual(await client.workspaces.list(), { data: [] });
      assert.equal(srv.seen[0].headers['x-api-key'], 'sh_test');
      assert.equal(srv.seen[0].headers['user-agent'], `sitehealth-sdk/${VERSION} deployer/1.0`);
      assert.equal(srv.seen[0].url, '/v1/workspaces');
    } finally {
      await srv.close();
    }
  });

  it('retries a GET after 503 twice, with backoff, and returns the third answer', async () => {
    const srv = await scriptedServer([
      { status: 503, body: problem(503, 'unavailable') },
      { status: 503, body: problem(503, 'unavailable') },
      { status: 200, body: { data: WORKSPACE } },
    ]);
    try {
      const client = new SiteHealth({ apiKey: 'sh_test', baseUrl: srv.url });
      const started = Date.now();
      const ws = await client.workspaces.get(WS);
      assert.deepEqual(ws, WORKSPACE, 'the {data} envelope is unwrapped');
      assert.equal(srv.seen.length, 3);
      assert.ok(Date.now() - started >= 700, 'backed off between attempts (0.25-0.5 s, then 0.5-1 s)');
      assert.ok(srv.seen.every((s) => s.method === 'GET' && s.url === `/v1/workspaces/${WS}`));
    } finally {
      await srv.close();
    }
  });

  it('gives up after maxRetries and throws the last 5xx as ApiError', async () => {
    const srv = await scriptedServer([{ status: 502, body: '<html>bad gateway</html>', headers: { 'retry-after': '0' } }]);
    try {
      const client = new SiteHealth({ apiKey: 'sh_test', baseUrl: srv.url, maxRetries: 1 });
      const err = await client.deploys.get(WS).catch((e) => e);
      assert.ok(err instanceof ApiError);
      assert.equal(err.status, 502);
      assert.equal(err.code, 'http_error', 'a body that is not a problem document still makes a typed error');
      assert.equal(err.detail, '<html>bad gateway</html>');
      assert.equal(err.requestId, 'req-2');
      assert.equal(srv.seen.length, 2);
    } finally {
      await srv.close();
    }
  });

  it('retries POST /v1/workspaces with one Idempotency-Key for every attempt, a UUID of its own unless the caller sent one', async () => {
    const srv = await scriptedServer([{ status: 503, body: problem(503, 'unavailable'), headers: { 'retry-after': '0' } }, { status: 201, body: { data: { id: WS } } }]);
    try {
      const client = new SiteHealth({ apiKey: 'sh_test', baseUrl: srv.url });
      await client.workspaces.create({ name: 'Acme', website: 'https://acme.example' });
      assert.equal(srv.seen.length, 2, 'retried: the API answers a repeat with the first answer');
      const keys = srv.seen.map((s) => s.headers['idempotency-key']);
      assert.match(String(keys[0]), /^[0-9a-f-]{36}$/);
      assert.equal(keys[1], keys[0], 'the same key on every attempt');
      assert.deepEqual(JSON.parse(srv.seen[1].body), { name: 'Acme', website: 'https://acme.example' });
      await client.workspaces.create({ name: 'Acme', website: 'https://acme.example' });
      assert.notEqual(srv.seen[2].headers['idempotency-key'], keys[0], 'a new call, a new key');
    } finally {
      await srv.close();
    }
  });

  it('waits out 409 idempotency_key_in_use (the first attempt still running) and retries', async () => {
    const srv = await scriptedServer([{ status: 409, body: problem(409, 'idempotency_key_in_use') }, { status: 201, body: { data: { id: WS } } }]);
    try {
      const client = new SiteHealth({ apiKey: 'sh_test', baseUrl: srv.url });
      await client.workspaces.create({ name: 'Acme', website: 'https://acme.example' });
      assert.equal(srv.seen.length, 2);
      const reused = await scriptedServer([{ status: 409, body: problem(409, 'idempotency_key_reused') }]);
      try {
        const err = await new SiteHealth({ apiKey: 'sh_test', baseUrl: reused.url }).workspaces.create({ name: 'Acme', website: 'https://acme.example' }).catch((e) => e);
        assert.equal(err.code, 'idempotency_key_reused');
        assert.equal(reused.seen.length, 1, 'another 409 is an answer');
      } finally {
        await reused.close();
      }
    } finally {
      await srv.close();
    }
  });

  it('retries POST /v1/deploys (idempotent by contract) on 503, 502, also under a base path', async () => {
    const deploy = { id: WS, commitSha: 'abc1234' };
    const srv = await scriptedServer([
      { status: 503, body: problem(503, 'service_unavailable'), headers: { 'retry-after': '0' } },
      { status: 502, body: '<html>bad gateway</html>' },
      { status: 201, body: deploy },
    ]);
    try {
      const client = new SiteHealth({ apiKey: 'sh_test', baseUrl: `${srv.url}/api/` });
      const res = await client.deploys.create({ workspaceId: WS, commitSha: 'abc1234' });
      assert.deepEqual(res, deploy);
      assert.equal(srv.seen.length, 3);
      assert.ok(srv.seen.every((s) => s.method === 'POST' && s.url === '/api/v1/deploys'));
      assert.ok(srv.seen.every((s) => JSON.parse(s.body).commitSha === 'abc1234'), 'the body is sent again on every attempt');
    } finally {
      await srv.close();
    }
  });

  it('503 then 200: a GET succeeds on its second attempt, honouring Retry-After', async () => {
    const srv = await scriptedServer([
      { status: 503, body: problem(503, 'service_unavailable'), headers: { 'retry-after': '1' } },
      { status: 200, body: { data: [] } },
    ]);
    try {
      const client = createClient({ apiKey: 'sh_test', baseUrl: srv.url });
      const started = Date.now();
      assert.deepEqual(await client.webhooks.list(), { data: [] });
      assert.equal(srv.seen.length, 2);
      assert.ok(Date.now() - started >= 950, `waited the 1 s Retry-After (${Date.now() - started} ms)`);
    } finally {
      await srv.close();
    }
  });

  it('429 with Retry-After: waits that long and tries again; a Retry-After past 60 s is not waited for', async () => {
    const srv = await scriptedServer((s, n): Answer =>
      s.url.startsWith('/v1/activity')
        ? { status: 429, body: problem(429, 'rate_limited'), headers: { 'retry-after': '120', 'ratelimit-limit': '100', 'ratelimit-remaining': '0', 'ratelimit-reset': '120' } }
        : n === 0
          ? { status: 429, body: problem(429, 'rate_limited'), headers: { 'retry-after': '2' } }
          : { status: 200, body: { data: [] } });
    try {
      const client = createClient({ apiKey: 'sh_test', baseUrl: srv.url });
      const started = Date.now();
      assert.deepEqual(await client.workspaces.list(), { data: [] });
      const waited = Date.now() - started;
      assert.equal(srv.seen.length, 2);
      assert.ok(waited >= 1950 && waited < 4000, `waited the 2 s Retry-After (${waited} ms), not a backoff of its own`);

      const t0 = Date.now();
      const err = await client.activity.list().catch((e) => e);
      assert.ok(err instanceof RateLimitError);
      assert.equal(err.retryAfter, 120);
      assert.deepEqual(err.rateLimit, { limit: 100, remaining: 0, reset: 120 });
      assert.equal(srv.seen.length, 3, 'asked to wait 2 minutes: the error comes back at once');
      assert.ok(Date.now() - t0 < 1000);
    } finally {
      await srv.close();
    }
  });

  it('never retries PUT and DELETE; nor a 500 or 408', async () => {
    const srv = await scriptedServer((s) =>
      s.url.startsWith('/v1/logs') ? { status: 500, body: problem(500, 'internal_error') }
        : s.url.startsWith('/v1/activity') ? { status: 408, body: problem(408, 'request_timeout') }
          : { status: 503, body: problem(503, 'service_unavailable'), headers: { 'retry-after': '0' } });
    try {
      const client = createClient({ apiKey: 'sh_test', baseUrl: srv.url, maxRetries: 3 });
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['PUT /v1/workspaces/{id}', () => client.workspaces.update(WS, { name: 'Acme 2' })],
        ['DELETE /v1/workspaces/{id}', () => client.workspaces.delete(WS)],
        ['PUT /v1/webhooks/{id}', () => client.webhooks.update(WS, { secret: 'a-new-secret-of-16+' })],
        ['DELETE /v1/webhooks/{id}', () => client.webhooks.delete(WS)],
        ['GET /v1/logs (500)', () => client.logs.list({ workspace_id: WS })],
        ['GET /v1/activity (408)', () => client.activity.list()],
      ];
      for (const [what, call] of calls) {
        const before = srv.seen.length;
        const err = await call().catch((e) => e);
        assert.ok(err instanceof SiteHealthError, what);
        assert.equal(srv.seen.length - before, 1, `${what} is sent once`);
      }
    } finally {
      await srv.close();
    }
  });

  it('retries network errors for safe methods and POSTs only and reports them as ConnectionError', async () => {
    let calls = 0;
    const flaky = async (input: Request, init?: RequestInit) => {
      calls += 1;
      if (calls <= 2) throw new TypeError('fetch failed', { cause: new Error('ECONNRESET') });
      return fetch(input, init);
    };
    const srv = await scriptedServer([{ status: 200, body: { data: [] } }]);
    try {
      const client = new SiteHealth({ apiKey: 'sh_test', baseUrl: srv.url, fetch: flaky });
      assert.deepEqual(await client.webhooks.list(), { data: [] });
      assert.equal(calls, 3);
      calls = 0;
      const err = await client.webhooks.update(WS, { name: 'Hooks' }).catch((e) => e);
      assert.ok(err instanceof ConnectionError);
      assert.ok(err instanceof SiteHealthError);
      assert.equal(err.status, 0);
      assert.equal(err.code, 'connection_error');
      assert.match(err.message, /ECONNRESET/);
      assert.equal(calls, 1, 'PUT /v1/webhooks/{id} is not retried');
    } finally {
      await srv.close();
    }
  });

  it('throws ConnectionError when nothing listens, and on a timeout', async () => {
    const gone = await scriptedServer([{ status: 200 }]);
    await gone.close();
    const refused = await new SiteHealth({ apiKey: 'sh_test', baseUrl: gone.url, maxRetries: 0 }).workspaces.list().catch((e) => e);
    assert.ok(refused instanceof ConnectionError);
    assert.equal(refused.code, 'connection_error');

    const hang = await scriptedServer([{ status: 200, hang: true }]);
    try {
      const client = new SiteHealth({ apiKey: 'sh_test', baseUrl: hang.url, maxRetries: 1, timeoutMs: 150 });
      const err = await client.workspaces.list().catch((e) => e);
      assert.ok(err instanceof ConnectionError);
      assert.equal(err.code, 'timeout');
      assert.equal(hang.seen.length, 2, 'a timed-out GET is retried');
    } finally {
      await hang.close();
    }
  });

  it('per-call options: headers, idempotencyKey, maxRetries, timeoutMs and signal apply to that call only; results carry lastResponse', async () => {
    const srv = await scriptedServer([
      { status: 201, body: { data: { id: WS } }, headers: { 'x-request-id': 'req_1', 'ratelimit-limit': '6000', 'ratelimit-remaining': '5999', 'ratelimit-reset': '42' } },
      { status: 503, body: problem(503, 'unavailable'), headers: { 'retry-after': '0' } },
      { status: 503, body: problem(503, 'unavailable'), headers: { 'retry-after': '0' } },
      { status: 200, body: { data: [] } },
      { status: 200, hang: true },
      { status: 200, body: { data: [] } },
      { status: 200, hang: true },
      { status: 204 },
    ]);
    try {
      const client = new SiteHealth({ apiKey: 'sh_test', baseUrl: srv.url, maxRetries: 2, timeoutMs: 10_000 });
      const ws = await client.workspaces.create({ name: 'Acme', website: 'https://acme.example' }, { idempotencyKey: 'order-42', headers: { 'X-Trace': 't1' } });
      assert.equal(srv.seen[0].headers['idempotency-key'], 'order-42');
      assert.equal(srv.seen[0].headers['x-trace'], 't1');
      assert.equal(srv.seen[0].headers['x-api-key'], 'sh_test', 'the client headers stay');
      assert.deepEqual(ws, { id: WS }, 'lastResponse is not enumerable');
      assert.equal(ws.lastResponse.status, 201);
      assert.equal(ws.lastResponse.requestId, 'req_1');
      assert.deepEqual(ws.lastResponse.rateLimit, { limit: 6000, remaining: 5999, reset: 42 });
      assert.equal(JSON.stringify(ws), JSON.stringify({ id: WS }));

      const noRetry = await client.workspaces.list({ maxRetries: 0 }).catch((e) => e);
      assert.ok(noRetry instanceof ServiceUnavailableError, 'maxRetries: 0 for this call');
      assert.equal(srv.seen.length, 2);
      const retried = await client.workspaces.list();
      assert.deepEqual(retried, { data: [] }, 'the next call retries again (client default)');
      assert.equal(srv.seen.length, 4);

      const timedOut = await client.workspaces.list({ timeoutMs: 100, maxRetries: 0 }).catch((e) => e);
      assert.ok(timedOut instanceof ConnectionError);
      assert.equal(timedOut.code, 'timeout');
      assert.equal(srv.seen.length, 5);
      assert.deepEqual(await client.workspaces.list(), { data: [] });

      const controller = new AbortController();
      const pending = client.workspaces.list({ signal: controller.signal }).catch((e) => e);
      await new Promise((r) => setTimeout(r, 100));
      controller.abort(new Error('cancelled by the caller'));
      const cancelled = await pending;
      assert.equal(cancelled.message, 'cancelled by the caller', 'the signal\'s reason, not retried');
      assert.equal(srv.seen.length, 7);

      const deleted = await client.webhooks.delete(WS);
      assert.deepEqual(deleted, { id: WS, deleted: true });
      assert.equal(deleted.lastResponse.status, 204);
      await assert.rejects(client.workspaces.list({ timeoutMs: 0 }), TypeError);
      await assert.rejects(client.deploys.get(WS, { maxRetries: 1.5 }), TypeError);
    } finally {
      await srv.close();
    }
  });

  it('rejects bad options', async () => {
    assert.throws(() => new SiteHealth({ apiKey: '' }), TypeError);
    assert.throws(() => new SiteHealth({ apiKey: 'sh_x', maxRetries: -1 }), TypeError);
    assert.throws(() => createClient({ apiKey: 'sh_x', baseUrl: 'ftp://example.com' }), TypeError);
  });

  it('createClient returns the client, with the typed openapi-fetch client as .raw', async () => {
    const srv = await scriptedServer([{ status: 404, body: problem(404, 'not_found') }]);
    try {
      const client = createClient({ apiKey: 'sh_test', baseUrl: srv.url });
      assert.ok(client instanceof SiteHealth);
      const { data, error, response } = await client.raw.GET('/v1/deploys/{id}', { params: { path: { id: WS } } });
      assert.equal(data, undefined);
      assert.equal(response.status, 404);
      assert.equal((error as { code: string }).code, 'not_found');
      assert.equal(srv.seen[0].headers['x-api-key'], 'sh_test', 'auth applies to raw calls too');
    } finally {
      await srv.close();
    }
  });
});

describe('sdk pagination', () => {
  const row = (i: number) => ({ id: `01900000-0000-7000-8000-${String(i).padStart(12, '0')}` });

  it('logs.iterate follows the `before` cursor while meta.has_more', async () => {
    const rows = [5, 4, 3, 2, 1].map(row);
    const srv = await scriptedServer((s) => {
      const u = new URL(s.url, 'http://x');
      const before = u.searchParams.get('before');
      const limit = Number(u.searchParams.get('limit'));
      const start = before ? rows.findIndex((r) => r.id === before) + 1 : 0;
      const data = rows.slice(start, start + limit);
      return { status: 200, body: { data, meta: { total: 5, errors: 0, buckets: [], has_more: start + limit < rows.length } } };
    });
    try {
      const client = new SiteHealth({ apiKey: 'sh_test', baseUrl: srv.url });
      const got = [];
      for await (const r of client.logs.iterate({ workspace_id: WS, limit: 2, status: 'failed' })) got.push(r.id);
      assert.deepEqual(got, rows.map((r) => r.id));
      assert.equal(srv.seen.length, 3);
      const queries = srv.seen.map((s) => Object.fromEntries(new URL(s.url, 'http://x').searchParams));
      assert.deepEqual(queries[0], { workspace_id: WS, limit: '2', status: 'failed' });
      assert.deepEqual(queries[2], { workspace_id: WS, limit: '2', status: 'failed', before: rows[3].id });
    } finally {
      await srv.close();
    }
  });

  it('activity.iterate follows meta.next_cursor and stops on null', async () => {
    const pages: Record<string, { data: unknown[]; next: string | null }> = {
      '': { data: [row(3), row(2)], next: 'c1' },
      c1: { data: [row(1)], next: null },
    };
    const srv = await scriptedServer((s) => {
      const p = pages[new URL(s.url, 'http://x').searchParams.get('cursor') ?? ''];
      return { status: 200, body: { data: p.data, meta: { next_cursor: p.next } } };
    });
    try {
      const client = new SiteHealth({ apiKey: 'sh_test', baseUrl: srv.url });
      const got = [];
      for await (const r of client.activity.iterate({ kind: 'security' })) got.push(r.id);
      assert.deepEqual(got, [row(3).id, row(2).id, row(1).id]);
      assert.deepEqual(srv.seen.map((s) => s.url), ['/v1/activity?kind=security', '/v1/activity?kind=security&cursor=c1']);
    } finally {
      await srv.close();
    }
  });

  it('webhooks.iterateDeliveries follows meta.next_cursor with the status and event filters', async () => {
    const pages: Record<string, { data: unknown[]; next: string | null }> = {
      '': { data: [row(5), row(4)], next: 'd1' },
      d1: { data: [row(3), row(2)], next: 'd2' },
      d2: { data: [row(1)], next: null },
    };
    const srv = await scriptedServer((s) => {
      const p = pages[new URL(s.url, 'http://x').searchParams.get('cursor') ?? ''];
      return { status: 200, body: { data: p.data, meta: { next_cursor: p.next } } };
    });
    try {
      const client = createClient({ apiKey: 'sh_test', baseUrl: srv.url });
      const got = [];
      for await (const a of client.webhooks.iterateDeliveries(WS, { status: 'failed', event: 'deploy.recorded', limit: 2 })) got.push(a.id);
      assert.deepEqual(got, [5, 4, 3, 2, 1].map((i) => row(i).id));
      assert.deepEqual(srv.seen.map((s) => s.url), [
        `/v1/webhooks/${WS}/deliveries?status=failed&event=deploy.recorded&limit=2`,
        `/v1/webhooks/${WS}/deliveries?status=failed&event=deploy.recorded&limit=2&cursor=d1`,
        `/v1/webhooks/${WS}/deliveries?status=failed&event=deploy.recorded&limit=2&cursor=d2`,
      ]);
      // Breaking out early fetches no further page.
      for await (const _ of client.webhooks.iterateDeliveries(WS)) break;
      assert.equal(srv.seen.length, 4);
    } finally {
      await srv.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('sdk typed errors', () => {
  /** Every problem code of docs/api.md#error-codes the SDK types, its status and the class it must give. */
  const CODES: Array<[ProblemCode, number, abstract new (...args: never[]) => SiteHealthError]> = [
    ['validation_failed', 400, ValidationError],
    ['invalid_json', 400, ValidationError],
    ['bad_request', 400, ValidationError],
    ['unauthorized', 401, AuthenticationError],
    ['workspace_limit', 402, WorkspaceLimitError],
    ['insufficient_scope', 403, PermissionError],
    ['forbidden', 403, PermissionError],
    ['not_found', 404, NotFoundError],
    ['method_not_allowed', 405, MethodNotAllowedError],
    ['request_timeout', 408, RequestTimeoutError],
    ['slug_taken', 409, ConflictError],
    ['idempotency_key_reused', 409, ConflictError],
    ['idempotency_key_in_use', 409, ConflictError],
    ['webhook_paused', 409, ConflictError],
    ['connection_exists', 409, ConflictError],
    ['repository_unreachable', 422, UnprocessableError],
    ['bad_signature', 401, AuthenticationError],
    ['secrets_unconfigured', 503, ServiceUnavailableError],
    ['payload_too_large', 413, PayloadTooLargeError],
    ['unsupported_media_type', 415, UnsupportedMediaTypeError],
    ['rate_limited', 429, RateLimitError],
    ['headers_too_large', 431, HeadersTooLargeError],
    ['internal_error', 500, InternalServerError],
    ['service_unavailable', 503, ServiceUnavailableError],
    ['key_expired', 401, AuthenticationError],
    ['scope_escalation', 403, PermissionError],
    ['workspace_escalation', 403, PermissionError],
    ['role_escalation', 403, PermissionError],
    ['expiry_escalation', 403, PermissionError],
    ['key_inactive', 409, ConflictError],
    ['last_owner', 409, ConflictError],
    ['member_exists', 409, ConflictError],
    ['invitation_used', 409, ConflictError],
    ['token_used', 409, ConflictError],
    ['invitation_expired', 409, ConflictError],
    ['password_exists', 409, ConflictError],
    ['invalid_credentials', 401, AuthenticationError],
    ['session_required', 403, PermissionError],
    ['csrf_failed', 403, PermissionError],
    ['link_invalid', 400, ValidationError],
    ['sign_in_throttled', 429, RateLimitError],
    ['passkey_challenge_invalid', 400, ValidationError],
    ['passkey_invalid', 400, ValidationError],
    ['passkey_rejected', 401, AuthenticationError],
    ['passkey_exists', 409, ConflictError],
    ['sso_required', 403, PermissionError],
    ['sso_not_configured', 404, NotFoundError],
    ['sso_state_invalid', 400, ValidationError],
    ['sso_expired', 400, ValidationError],
    ['sso_provider_error', 400, ValidationError],
    ['sso_token_invalid', 400, ValidationError],
    ['sso_user_unknown', 403, PermissionError],
    ['invalid_two_step_code', 401, AuthenticationError],
    ['two_step_expired', 401, AuthenticationError],
    ['two_step_enabled', 409, ConflictError],
    ['two_step_not_started', 409, ConflictError],
    ['search_console_unconfigured', 503, ServiceUnavailableError],
    ['search_console_refused', 422, UnprocessableError],
    ['search_console_not_connected', 409, ConflictError],
  ];

  it('lists every problem code', async () => {
    assert.deepEqual(CODES.map(([c]) => c).sort(), Object.keys(ERROR_CLASS_BY_CODE).sort());
  });

  it('types every code the server documents, with its status: docs/api.md#error-codes and generated/openapi.json', async () => {
    const typed = new Map<string, number>(CODES.map(([c, s]) => [c, s]));
    // docs/api.md's table (`| 400 | \`validation_failed\` | ... |`) is the complete list: exactly the SDK's.
    const md = fs.readFileSync(path.join(root, 'docs/api.md'), 'utf8');
    const section = md.slice(md.indexOf('### Error codes'));
    const table = section.slice(0, section.indexOf('\n#', 1));
    const rows = [...table.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((m) => [m[2], Number(m[1])] as const);
    assert.ok(rows.length >= 18, 'the Error codes table of docs/api.md was not found');
    assert.deepEqual(rows.map(([c]) => c).sort(), Object.keys(ERROR_CLASS_BY_CODE).sort(), 'docs/api.md#error-codes and ERROR_CLASS_BY_CODE differ');
    for (const [code, status] of rows) assert.equal(typed.get(code), status, `${code}: status in docs/api.md`);
    // The document names codes in its error responses' descriptions (`code`: ..., `a` or `b`, ...) and
    // in prose as `405 method_not_allowed`; every one must be typed, with that status.
    const doc = JSON.parse(fs.readFileSync(path.join(root, 'generated/openapi.json'), 'utf8')) as {
      paths: Record<string, Record<string, { responses?: Record<string, { description?: string }> }>>;
    };
    const named = new Map<string, number>();
    for (const op of Object.values(doc.paths).flatMap((methods) => Object.values(methods))) {
      for (const [status, res] of Object.entries(op.responses ?? {})) {
        if (Number(status) < 400) continue;
        for (const m of (res.description ?? '').matchAll(/`([a-z]+(?:_[a-z]+)*)`(?=:| or |,)/g)) named.set(m[1], Number(status));
      }
    }
    for (const m of JSON.stringify(doc).matchAll(/`(\d{3}) ([a-z]+(?:_[a-z]+)*)`/g)) named.set(m[2], Number(m[1]));
    assert.ok(named.size >= 15, `too few codes found in generated/openapi.json: ${[...named.keys()]}`);
    for (const [code, status] of named) {
      assert.ok(Object.hasOwn(ERROR_CLASS_BY_CODE, code), `${code} (${status}), named by generated/openapi.json, is not in ERROR_CLASS_BY_CODE`);
      assert.equal(typed.get(code), status, `${code}: status in generated/openapi.json`);
    }
  });

  it('each problem code gives its typed error with status, code, title, detail, field errors and request id', async () => {
    const fieldErrors = [{ in: 'body', path: '/commitSha', message: 'must match pattern' }];
    const srv = await scriptedServer((s) => {
      const code = new URL(s.url, 'http://x').searchParams.get('workspace_id')!;
      const [, status] = CODES.find(([c]) => c === code)!;
      const headers: Record<string, string> = status === 429 ? { 'retry-after': '7', ratelimit: 'limit=10, remaining=0, reset=7' } : status === 503 ? { 'retry-after': '3' } : {};
      return { status, headers, body: problem(status, code, code === 'validation_failed' ? { errors: fieldErrors } : {}) };
    });
    try {
      const client = createClient({ apiKey: 'sh_test', baseUrl: srv.url, maxRetries: 0 });
      for (const [code, status, Class] of CODES) {
        const err = await client.deploys.list({ workspace_id: code }).catch((e) => e);
        assert.ok(err instanceof Class, `${code}: ${err?.constructor?.name}`);
        assert.ok(err instanceof SiteHealthError);
        assert.equal(err.name, Class.name);
        assert.equal(err.status, status);
        assert.equal(err.code, code);
        assert.equal(err.title, code);
        assert.equal(err.detail, `${code} detail`);
        assert.equal(err.type, `/problems/${code}`);
        assert.deepEqual(err.errors, code === 'validation_failed' ? fieldErrors : []);
        assert.match(err.requestId!, /^req-\d+$/);
        assert.match(err.message, new RegExp(`${status} ${code}`));
        if (status === 429) {
          assert.equal(err.retryAfter, 7);
          assert.deepEqual((err as RateLimitError).rateLimit, { limit: 10, remaining: 0, reset: 7 });
        }
        if (status === 503) assert.equal(err.retryAfter, 3);
        if (status >= 500) assert.ok(err instanceof ApiError);
      }
    } finally {
      await srv.close();
    }
  });

  it('an answer that is not a problem document is typed by its status, with code http_error', async () => {
    const srv = await scriptedServer((s) => ({ status: Number(new URL(s.url, 'http://x').searchParams.get('workspace_id')), body: '<html>proxy</html>' }));
    try {
      const client = createClient({ apiKey: 'sh_test', baseUrl: srv.url, maxRetries: 0 });
      for (const [status, Class] of [[404, NotFoundError], [503, ServiceUnavailableError], [504, ApiError], [418, SiteHealthError]] as const) {
        const err = await client.deploys.list({ workspace_id: String(status) }).catch((e) => e);
        assert.equal(err.constructor, Class, String(status));
        assert.equal(err.code, 'http_error');
        assert.equal(err.detail, '<html>proxy</html>');
      }
    } finally {
      await srv.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('sdk coverage of the API document', () => {
  const doc = JSON.parse(fs.readFileSync(path.join(root, 'generated/openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, { operationId?: string; 'x-signature'?: unknown }>>;
  };
  // Inbound hooks (`x-signature`) are called by repository hosts, not by API clients: no SDK method.
  const operations = Object.entries(doc.paths).flatMap(([p, methods]) =>
    Object.entries(methods).filter(([, op]) => op?.operationId && !op['x-signature']).map(([m, op]) => ({ id: op.operationId!, method: m.toUpperCase(), path: p })));
  /** `Webhooks_listDeliveries` -> client.webhooks.listDeliveries. */
  const methodOf = (client: SiteHealth, id: string) => {
    const [tag, name] = id.split('_');
    const resource = (client as unknown as Record<string, Record<string, unknown>>)[tag[0].toLowerCase() + tag.slice(1)];
    return resource && typeof resource[name] === 'function' ? (resource[name] as (...a: unknown[]) => Promise<unknown>).bind(resource) : null;
  };
  /** How to call each operation's method; an operation of the document missing here fails the test. */
  const CALLS: Record<string, (c: SiteHealth) => Promise<unknown>> = {
    Activity_list: (c) => c.activity.list(),
    Deploys_create: (c) => c.deploys.create({ commitSha: 'abc1234' }),
    Deploys_list: (c) => c.deploys.list({ workspace_id: WS }),
    Deploys_get: (c) => c.deploys.get(WS),
    Logs_list: (c) => c.logs.list({ workspace_id: WS }),
    SiteChecks_latest: (c) => c.siteChecks.latest(WS),
    SiteChecks_create: (c) => c.siteChecks.create(WS),
    SiteChecks_list: (c) => c.siteChecks.list({ workspace_id: WS }),
    SiteChecks_get: (c) => c.siteChecks.get(WS),
    SiteCrawls_create: (c) => c.siteCrawls.create(WS),
    SiteCrawls_list: (c) => c.siteCrawls.list({ workspace_id: WS }),
    SiteCrawls_get: (c) => c.siteCrawls.get(WS),
    SiteCrawls_latest: (c) => c.siteCrawls.latest(WS),
    Connections_list: (c) => c.connections.list(WS),
    Connections_create: (c) => c.connections.create(WS, { provider: 'github', repository: 'acme/site', token: 'github_pat_x', branches: { main: 'production' } }),
    Connections_update: (c) => c.connections.update(WS, WS, { failOn: 'high' }),
    Connections_delete: (c) => c.connections.delete(WS, WS),
    Webhooks_list: (c) => c.webhooks.list(),
    Webhooks_create: (c) => c.webhooks.create({ workspaceId: WS, url: 'https://hooks.example.com', events: ['deploy.recorded'] }),
    Webhooks_get: (c) => c.webhooks.get(WS),
    Webhooks_update: (c) => c.webhooks.update(WS, { name: 'x' }),
    Webhooks_delete: (c) => c.webhooks.delete(WS),
    Webhooks_listDeliveries: (c) => c.webhooks.listDeliveries(WS),
    Webhooks_getDelivery: (c) => c.webhooks.getDelivery(WS, WS),
    Webhooks_redeliver: (c) => c.webhooks.redeliver(WS, WS),
    Webhooks_test: (c) => c.webhooks.test(WS),
    Workspaces_list: (c) => c.workspaces.list(),
    Workspaces_create: (c) => c.workspaces.create({ name: 'Acme', website: 'https://acme.example' }),
    Workspaces_get: (c) => c.workspaces.get(WS),
    Workspaces_update: (c) => c.workspaces.update(WS, { name: 'x' }),
    Workspaces_delete: (c) => c.workspaces.delete(WS),
    ApiKeys_list: (c) => c.apiKeys.list(),
    ApiKeys_create: (c) => c.apiKeys.create({ name: 'ci', scopes: ['deploys'] }),
    ApiKeys_get: (c) => c.apiKeys.get(WS),
    ApiKeys_delete: (c) => c.apiKeys.delete(WS),
    ApiKeys_rotate: (c) => c.apiKeys.rotate(WS, { overlapSeconds: 60 }),
    Members_list: (c) => c.members.list(WS),
    Members_update: (c) => c.members.update(WS, WS, 'admin'),
    Members_delete: (c) => c.members.delete(WS, WS),
    Invitations_list: (c) => c.invitations.list(WS),
    Invitations_create: (c) => c.invitations.create(WS, { email: 'dana@acme.example', role: 'member' }),
    Invitations_delete: (c) => c.invitations.delete(WS, WS),
    InvitationAcceptance_accept: (c) => c.invitationAcceptance.accept('shinv_token'),
    Notifications_get: (c) => c.notifications.get(WS),
    Notifications_update: (c) => c.notifications.update(WS, { digest: 'daily' }),
    Reports_get: (c) => c.reports.get(WS, { from: '2026-11-16', to: '2026-11-22' }),
    Unsubscribe_page: (c) => c.unsubscribe.page('shu_token'),
    Unsubscribe_unsubscribe: (c) => c.unsubscribe.unsubscribe('shu_token'),
    Sessions_create: (c) => c.sessions.create({ email: 'dana@acme.example', password: 'correct horse battery' }),
    Sessions_list: (c) => c.sessions.list(),
    Sessions_delete: (c) => c.sessions.delete(WS),
    CurrentUser_get: (c) => c.currentUser.get(),
    CurrentUser_changePassword: (c) => c.currentUser.changePassword({ currentPassword: 'old password', newPassword: 'a new password' }),
    CurrentUser_sendVerification: (c) => c.currentUser.sendVerification(),
    CurrentUser_signOutOthers: (c) => c.currentUser.signOutOthers(),
    PasswordReset_request: (c) => c.passwordReset.request('dana@acme.example'),
    PasswordReset_complete: (c) => c.passwordReset.complete('shrst_token', 'a new password'),
    EmailVerification_complete: (c) => c.emailVerification.complete('shver_token'),
    Passkeys_registrationOptions: (c) => c.passkeys.registrationOptions(),
    Passkeys_create: (c) => c.passkeys.create({ challengeId: WS, name: 'Laptop', response: { id: 'AQID', rawId: 'AQID', type: 'public-key', clientExtensionResults: {}, response: { clientDataJSON: 'e30', attestationObject: 'oA' } } }),
    Passkeys_list: (c) => c.passkeys.list(),
    Passkeys_delete: (c) => c.passkeys.delete(WS),
    PasskeySignIn_options: (c) => c.passkeySignIn.options(),
    PasskeySignIn_create: (c) => c.passkeySignIn.create({ challengeId: WS, response: { id: 'AQID', rawId: 'AQID', type: 'public-key', clientExtensionResults: {}, response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' } } }),
    SingleSignOn_get: (c) => c.singleSignOn.get(),
    SingleSignOn_configure: (c) => c.singleSignOn.configure({ issuer: 'https://login.acme.example', clientId: 'sitehealth', clientSecret: 'secret' }),
    SingleSignOn_remove: (c) => c.singleSignOn.remove(),
    SsoSignIn_start: (c) => c.ssoSignIn.start({ email: 'dana@acme.example' }),
    SsoSignIn_callback: (c) => c.ssoSignIn.callback({ code: 'code', state: 'state' }, 'binding'),
    TwoStepSignIn_complete: (c) => c.twoStepSignIn.complete({ challenge: 'sh2s_x', code: '123456' }),
    CurrentUser_startTwoStep: (c) => c.currentUser.startTwoStep(),
    CurrentUser_confirmTwoStep: (c) => c.currentUser.confirmTwoStep('123456'),
    CurrentUser_disableTwoStep: (c) => c.currentUser.disableTwoStep('the password'),
    CurrentUser_regenerateRecoveryCodes: (c) => c.currentUser.regenerateRecoveryCodes('the password'),
    SearchConsole_get: (c) => c.searchConsole.get(WS),
    SearchConsole_connect: (c) => c.searchConsole.connect(WS, { siteUrl: 'https://www.example.com/' }),
    SearchConsole_disconnect: (c) => c.searchConsole.disconnect(WS),
    SearchConsole_sync: (c) => c.searchConsole.sync(WS),
    SearchConsoleCallback_complete: (c) => c.searchConsoleCallback.complete({ state: 'x', code: 'y' }),
    SearchPerformance_get: (c) => c.searchPerformance.get({ workspace_id: WS, from: '2026-10-01', to: '2026-10-28', dimension: 'query', compare: 'previous' }),
  };

  it('has a resource method for every operationId, and each sends that operation', async () => {
    assert.ok(operations.length >= 20);
    const srv = await scriptedServer([{ status: 418, body: problem(418, 'teapot') }]);
    try {
      const client = createClient({ apiKey: 'sh_test', baseUrl: srv.url, maxRetries: 0 });
      const missing = operations.filter((op) => !methodOf(client, op.id)).map((op) => op.id);
      assert.deepEqual(missing, [], 'operations without a resource method (Tag_name -> client.tag.name)');
      for (const op of operations) {
        const call = CALLS[op.id];
        assert.ok(call, `no call for ${op.id} in this test: add one`);
        const before = srv.seen.length;
        await assert.rejects(call(client), SiteHealthError);
        const sent = srv.seen[before];
        const pattern = new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/?]+')}(\\?.*)?$`);
        assert.equal(sent.method, op.method, op.id);
        assert.match(sent.url, pattern, op.id);
      }
    } finally {
      await srv.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('sdk webhook verification', () => {
  const key = crypto.createHash('sha256').update('sitehealth sdk test').digest();
  const whsec = `whsec_${key.toString('base64')}`;
  const plain = 'a-plain-secret-of-some-length';
  const hmac = (k: Buffer | string, content: string) => crypto.createHmac('sha256', k).update(content).digest('base64');
  const now = () => Math.floor(Date.now() / 1000);
  const event = { id: '01900000-0000-7000-8000-0000000000ee', type: 'deploy.recorded', createdAt: '2026-11-21T10:00:00.000Z', workspaceId: WS, data: { deployId: WS } };
  const body = JSON.stringify(event);
  const signed = (k: Buffer | string, opts: { id?: string; ts?: number; body?: string } = {}) => {
    const id = opts.id ?? 'dk_0001';
    const ts = String(opts.ts ?? now());
    return { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': `v1,${hmac(k, `${id}.${ts}.${opts.body ?? body}`)}` };
  };
  const rejects = (fn: () => Promise<unknown>, reason: WebhookVerificationReason, re?: RegExp) =>
    assert.rejects(fn, (e: unknown) => e instanceof WebhookVerificationError && e.reason === reason && (!re || re.test(e.message)));

  it('matches the Standard Webhooks reference vector', async () => {
    const headers = {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    const opts = { body: '{"test": 2432232314}', headers, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };
    // The signature matches (the body is checked after it, and is not an event) ...
    await rejects(() => verifyWebhook({ ...opts, toleranceSeconds: 1e10 }), 'invalid_body', /not a webhook event/);
    // ... one changed byte does not, and with the default tolerance the 2021 timestamp is stale.
    await rejects(() => verifyWebhook({ ...opts, body: '{"test": 2432232315}', toleranceSeconds: 1e10 }), 'invalid_signature');
    await rejects(() => verifyWebhook(opts), 'timestamp_too_old');
  });

  it('verifies a whsec_ secret with the decoded key and returns the event', async () => {
    const headers = signed(key);
    assert.deepEqual(await verifyWebhook({ body, headers, secret: whsec }), event);
    assert.deepEqual(await verifyWebhook({ body: Buffer.from(body), headers: new Headers(headers), secret: whsec }), event, 'bytes and Headers work too');
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    assert.deepEqual(await verifyWebhook({ body, headers: upper, secret: whsec }), event, 'header names in any case');
    await rejects(() => verifyWebhook({ body, headers: signed(whsec), secret: whsec }), 'invalid_signature');
  });

  it('verifies a plain secret with its UTF-8 bytes', async () => {
    assert.deepEqual(await verifyWebhook({ body, headers: signed(plain), secret: plain }), event);
    await rejects(() => verifyWebhook({ body, headers: signed(plain), secret: `${plain}x` }), 'invalid_signature');
  });

  it('rejects a tampered body, id or timestamp', async () => {
    const headers = signed(key);
    await rejects(() => verifyWebhook({ body: body.replace('deploy.recorded', 'site_check.regression'), headers, secret: whsec }), 'invalid_signature');
    await rejects(() => verifyWebhook({ body, headers: { ...headers, 'webhook-id': 'dk_0002' }, secret: whsec }), 'invalid_signature');
    await rejects(() => verifyWebhook({ body, headers: { ...headers, 'webhook-timestamp': String(now() - 1) }, secret: whsec }), 'invalid_signature');
  });

  it('rejects stale and future timestamps, honouring toleranceSeconds', async () => {
    const stale = signed(key, { ts: now() - 301 });
    await rejects(() => verifyWebhook({ body, headers: stale, secret: whsec }), 'timestamp_too_old');
    assert.deepEqual(await verifyWebhook({ body, headers: stale, secret: whsec, toleranceSeconds: 600 }), event);
    await rejects(() => verifyWebhook({ body, headers: signed(key, { ts: now() + 400 }), secret: whsec }), 'timestamp_too_new');
    await rejects(() => verifyWebhook({ body, headers: { ...stale, 'webhook-timestamp': 'yesterday' }, secret: whsec }), 'invalid_timestamp');
  });

  it('accepts a header with several signatures when one matches', async () => {
    const good = signed(key);
    const other = `v1,${hmac('another-secret-entirely', `dk_0001.${good['webhook-timestamp']}.${body}`)}`;
    const several = { ...good, 'webhook-signature': `${other} v1a,Zm9v ${good['webhook-signature']}` };
    assert.deepEqual(await verifyWebhook({ body, headers: several, secret: whsec }), event);
    await rejects(() => verifyWebhook({ body, headers: { ...good, 'webhook-signature': `${other} v2,${good['webhook-signature'].slice(3)}` }, secret: whsec }), 'invalid_signature');
  });

  it('rejects missing headers, a parsed body and a body that is not an event', async () => {
    const headers = signed(key);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [name]: _gone, ...rest } = headers;
      await rejects(() => verifyWebhook({ body, headers: rest, secret: whsec }), 'missing_header', new RegExp(`missing ${name}`));
    }
    await rejects(() => verifyWebhook({ body: event as unknown as string, headers, secret: whsec }), 'invalid_body', /raw request body/);
    await rejects(() => verifyWebhook({ body: 'null', headers: signed(key, { body: 'null' }), secret: whsec }), 'invalid_body', /not a webhook event/);
    await rejects(() => verifyWebhook({ body, headers, secret: '' }), 'invalid_secret');
  });

  it('checks webhook-body-signature when present, and requires it on request', async () => {
    const headers = { ...signed(key), 'webhook-body-signature': `v1,${hmac(key, body)}` };
    assert.deepEqual(await verifyWebhook({ body, headers, secret: whsec, requireBodySignature: true }), event);
    await rejects(() => verifyWebhook({ body, headers: { ...headers, 'webhook-body-signature': `v1,${hmac(key, `${body} `)}` }, secret: whsec }), 'invalid_body_signature');
    await rejects(() => verifyWebhook({ body, headers: signed(key), secret: whsec, requireBodySignature: true }), 'missing_header', /webhook-body-signature/);
  });

  it('verifyBodySignature checks webhook-body-signature over the body alone', async () => {
    const headers = { 'webhook-body-signature': `v1,${hmac(key, body)}` };
    assert.deepEqual(await verifyBodySignature({ body, headers, secret: whsec }), event);
    await rejects(() => verifyBodySignature({ body: `${body} `, headers, secret: whsec }), 'invalid_body_signature');
    await rejects(() => verifyBodySignature({ body, headers: {}, secret: whsec }), 'missing_header', /missing webhook-body-signature/);
  });

  it('signWebhook produces the headers the service sends, one signature per secret', async () => {
    const h = await signWebhook({ id: 'dk_0009', body, secret: plain, timestamp: 1_800_000_000 });
    assert.equal(h['webhook-signature'], `v1,${hmac(plain, `dk_0009.1800000000.${body}`)}`);
    assert.equal(h['webhook-body-signature'], `v1,${hmac(plain, body)}`);
    assert.deepEqual(await verifyWebhook({ body, headers: await signWebhook({ id: 'x', body, secret: whsec }), secret: whsec }), event);
    const two = await signWebhook({ id: 'x', body, secret: [whsec, plain] });
    assert.equal(two['webhook-signature'].split(' ').length, 2);
    assert.deepEqual(await verifyWebhook({ body, headers: two, secret: plain }), event);
  });
});

// ---------------------------------------------------------------------------------------------

describe('sdk deploy helper', () => {
  it('maps paths to categories', async () => {
    const cases: Array<[string, ChangeCategory]> = [
      ['public/robots.txt', 'robots'],
      ['app/robots.ts', 'robots'],
      ['public/sitemap.xml', 'sitemap'],
      ['public/sitemap-posts.xml', 'sitemap'],
      ['public/_redirects', 'redirects'],
      ['redirects.json', 'redirects'],
      ['public/_headers', 'headers'],
      ['package.json', 'dependencies'],
      ['pnpm-lock.yaml', 'dependencies'],
      ['src/components/Nav.test.tsx', 'test'],
      ['src/__tests__/seo.ts', 'test'],
      ['.github/workflows/deploy.yml', 'build'],
      ['Dockerfile', 'build'],
      ['next.config.mjs', 'config'],
      ['.env.production', 'config'],
      ['tsconfig.json', 'config'],
      ['src/styles/site.css', 'style'],
      ['src/components/Button.module.scss', 'style'],
      ['public/images/hero.webp', 'asset'],
      ['public/fonts/Inter.woff2', 'asset'],
      ['docs/setup.md', 'docs'],
      ['README.md', 'docs'],
      ['src/pages/api/search.ts', 'server'],
      ['app/api/items/route.ts', 'server'],
      ['server/index.js', 'server'],
      ['src/middleware.ts', 'routing'],
      ['src/layouts/Base.astro', 'template'],
      ['app/blog/layout.tsx', 'template'],
      ['pages/_app.tsx', 'template'],
      ['src/pages/blog/[slug].tsx', 'page'],
      ['app/blog/[slug]/page.tsx', 'page'],
      ['src/routes/about/+page.svelte', 'page'],
      ['index.html', 'page'],
      ['src/components/Header.tsx', 'component'],
      ['content/blog/launch.md', 'content'],
      ['src/locales/de.json', 'content'],
      ['notes.md', 'docs'],
      ['src/lib/seo.ts', 'script'],
      ['src/Widget.vue', 'component'],
      ['LICENSE', 'docs'],
      ['bin/tool', 'other'],
    ];
    const got = changesFromPaths(cases.map(([p]) => p));
    assert.deepEqual(got.map((c) => [c.path, c.category]), cases);
    assert.deepEqual(Object.keys(got[0]), ['path', 'category']);
  });

  it('normalizes, drops blanks and duplicates, and caps at 500 keeping the telling files', async () => {
    assert.deepEqual(changesFromPaths(['./src\\pages\\a.tsx', '', '  ', 'src/pages/a.tsx', 'ROBOTS.TXT']), [
      { path: 'src/pages/a.tsx', category: 'page' },
      { path: 'ROBOTS.TXT', category: 'robots' },
    ]);
    const many = Array.from({ length: 600 }, (_, i) => `test/case-${i}.test.ts`);
    many.splice(550, 0, 'public/robots.txt');
    const capped = changesFromPaths(many);
    assert.equal(capped.length, MAX_CHANGES);
    assert.ok(capped.some((c) => c.path === 'public/robots.txt'), 'robots.txt survives the cap');
    assert.equal(capped[0].path, 'test/case-0.test.ts', 'input order is kept');
  });
});

// ---------------------------------------------------------------------------------------------

/** Runs an operation that may still answer 501 `not_implemented`; any other error fails. */
for (const engine of engines()) {
  describe(`sdk against the server (${engine})`, () => {
    let api: TestApi;
    let o: Awaited<ReturnType<TestApi['owner']>>;
    let client: SiteHealth;
    let n = 0;
    const uniqueName = () => `SDK Site ${++n} ${process.pid} ${Date.now()}`;

    before(async () => {
      api = await TestApi.start(engine);
      o = await api.owner();
      await api.setLimit(o.accountId, 1000);
      client = new SiteHealth({ apiKey: o.apiKey, baseUrl: api.url });
    });
    after(async () => {
      await api.stop();
    });

    it('workspaces: list, create, get, update, delete', async () => {
      const list = await client.workspaces.list();
      assert.equal(list.data[0].id, o.workspaceId);
      const name = uniqueName();
      const ws = await client.workspaces.create({ name, website: 'https://sdk.example' });
      assert.equal(ws.name, name);
      assert.equal(ws.type, 'PERSONAL');
      assert.equal(ws.timezone, 'UTC');
      assert.deepEqual(await client.workspaces.get(ws.id), ws);
      const updated = await client.workspaces.update(ws.id, { country: 'de', description: 'SDK test' });
      assert.equal(updated.country, 'DE');
      assert.equal(updated.description, 'SDK test');
      assert.equal((await client.workspaces.update(ws.id, { description: null })).description, null);
      assert.deepEqual(await client.workspaces.delete(ws.id), { id: ws.id, deleted: true });
      await assert.rejects(client.workspaces.get(ws.id), NotFoundError);
    });

    it('deploys: create (upsert), list, get, and the recordDeploy helper', async () => {
      const sha = crypto.randomBytes(20).toString('hex');
      const changes = changesFromPaths(['src/pages/blog.tsx', 'public/robots.txt']);
      const d = await client.deploys.create({ workspaceId: o.workspaceId, commitSha: sha, environment: 'staging', ref: 'main', changes });
      assert.equal(d.commitSha, sha);
      assert.equal(d.source, 'cli');
      assert.deepEqual(d.changes, [
        { path: 'src/pages/blog.tsx', category: 'page', signals: [] },
        { path: 'public/robots.txt', category: 'robots', signals: [] },
      ]);
      const again = await client.deploys.create({ workspaceId: o.workspaceId, commitSha: sha.toUpperCase(), environment: 'staging', message: 'again' });
      assert.equal(again.id, d.id, 'same environment and commit update the same deploy');
      assert.equal(again.message, 'again');
      assert.equal(again.ref, 'main', 'omitted fields keep their values');

      const sha2 = crypto.randomBytes(4).toString('hex');
      const notARepo = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-sdk-'));
      const result = await recordDeploy({
        client,
        env: {}, // not in CI: nothing is detected, everything comes from the options
        cwd: notARepo,
        workspaceId: o.workspaceId,
        commit: ` ${sha2}\n`,
        ref: 'release',
        message: 'm'.repeat(2500),
        deployedAt: new Date(Date.now() - 60_000),
        changedPaths: ['app/layout.tsx', 'app/layout.tsx', 'styles/site.css'],
        changes: [{ path: 'app/page.tsx', category: 'page', signals: [{ kind: 'canonical', change: 'removed' }] }],
      });
      fs.rmSync(notARepo, { recursive: true, force: true });
      assert.equal(result.outcome, 'recorded');
      const recorded = result.deploy!;
      assert.equal(recorded.commitSha, sha2);
      assert.equal(recorded.environment, 'production');
      assert.equal(recorded.message!.length, 2000);
      assert.deepEqual(recorded.changes.map((c) => [c.path, c.category, c.signals?.length]), [
        ['app/page.tsx', 'page', 1],
        ['app/layout.tsx', 'template', 0],
        ['styles/site.css', 'style', 0],
      ]);

      const list = await client.deploys.list({ workspace_id: o.workspaceId, limit: 10 });
      assert.deepEqual(list.data.map((x) => x.id), [d.id, recorded.id], 'newest deployedAt first');
      assert.equal(list.data[0].siteCheck, null, 'staging triggers no check');
      assert.equal(list.data[1].siteCheck?.state, 'queued', 'a production deploy queues a check');
      const detail = await client.deploys.get(d.id);
      assert.equal(detail.id, d.id);
      assert.deepEqual(detail.findings, []);
      assert.equal(detail.siteCheck, null);

      const latest = await client.siteChecks.latest(o.workspaceId);
      assert.deepEqual(Object.keys(latest).sort(), ['baseline', 'check', 'findings', 'issues', 'latest']);
    });

    it('typed errors: 400 with field errors, 401, 402, 403, 404, 409, 413', async () => {
      const e400 = await client.deploys.create({ workspaceId: o.workspaceId, commitSha: 'not-a-sha' }).catch((e) => e);
      assert.ok(e400 instanceof ValidationError);
      assert.equal(e400.status, 400);
      assert.equal(e400.code, 'validation_failed');
      assert.ok(e400.errors.some((f: { in: string; path: string }) => f.in === 'body' && f.path === '/commitSha'), JSON.stringify(e400.errors));
      assert.ok(e400.requestId);
      assert.match(e400.message, /\/commitSha/);

      const bad = new SiteHealth({ apiKey: 'sh_not_a_real_key', baseUrl: api.url });
      const e401 = await bad.workspaces.list().catch((e) => e);
      assert.ok(e401 instanceof AuthenticationError);
      assert.equal(e401.code, 'unauthorized');

      const viewer = await api.user({ accountId: o.accountId });
      await api.member(o.workspaceId, viewer.userId, 'viewer');
      const asViewer = new SiteHealth({ apiKey: (await api.key(viewer.userId)).apiKey, baseUrl: api.url });
      const e403 = await asViewer.deploys.create({ workspaceId: o.workspaceId, commitSha: 'abcdef1' }).catch((e) => e);
      assert.ok(e403 instanceof PermissionError);
      assert.equal(e403.code, 'forbidden');
      const deployOnly = new SiteHealth({ apiKey: (await api.key(o.userId, { scopes: ['deploys'] })).apiKey, baseUrl: api.url });
      const scope = await deployOnly.workspaces.list().catch((e) => e);
      assert.ok(scope instanceof PermissionError);
      assert.equal(scope.code, 'insufficient_scope');

      const e404 = await client.deploys.get(crypto.randomUUID()).catch((e) => e);
      assert.ok(e404 instanceof NotFoundError);
      assert.equal(e404.code, 'not_found');

      const name = uniqueName();
      await client.workspaces.create({ name, website: 'https://sdk.example' });
      const e409 = await client.workspaces.create({ name, website: 'https://sdk.example' }).catch((e) => e);
      assert.ok(e409 instanceof ConflictError);
      assert.equal(e409.code, 'slug_taken');

      const full = await api.user();
      await api.setLimit(full.accountId, 1);
      await api.workspace(full);
      const asFull = new SiteHealth({ apiKey: (await api.key(full.userId)).apiKey, baseUrl: api.url });
      const e402 = await asFull.workspaces.create({ name: uniqueName(), website: 'https://sdk.example' }).catch((e) => e);
      assert.equal(e402.constructor, WorkspaceLimitError);
      assert.equal(e402.status, 402);
      assert.equal(e402.code, 'workspace_limit');

      const e413 = await client.deploys.create({ workspaceId: o.workspaceId, commitSha: 'abcdef1', message: 'x'.repeat(1_100_000) }).catch((e) => e);
      assert.ok(e413 instanceof PayloadTooLargeError, String(e413));
      assert.equal(e413.code, 'payload_too_large');
      assert.ok(e413.requestId);
    });

    it('logs: list and iterate agree', async () => {
      await client.workspaces.get(o.workspaceId);
      await client.deploys.get(crypto.randomUUID()).catch(() => undefined);
      await api.flushLogs();
      const all = await client.logs.list({ workspace_id: o.workspaceId, limit: 200 });
      assert.ok(all.data.length >= 2);
      assert.equal(typeof all.meta.has_more, 'boolean');
      const paged = [];
      for await (const r of client.logs.iterate({ workspace_id: o.workspaceId, limit: 2 })) paged.push(r.id);
      assert.deepEqual(paged, all.data.map((r) => r.id));
    });

    it('activity: list and iterate agree', async () => {
      const all = await client.activity.list({ limit: 100 });
      assert.ok(all.data.length >= 1);
      assert.ok('next_cursor' in all.meta);
      const paged = [];
      for await (const r of client.activity.iterate({ limit: 1 })) paged.push(r.id);
      assert.deepEqual(paged, all.data.map((r) => r.id));
    });

    it('deploys: for await reads 250 deploys of one day in order, with no duplicates, while new ones arrive; windows take date-times', async () => {
      const ws = await api.workspace(o);
      const day = '2026-11-20';
      const start = Date.parse(`${day}T00:00:00.000Z`);
      // Two deploys a minute, so pages also break between deploys of the same time (then by id).
      const times = Array.from({ length: 250 }, (_, i) => start + Math.floor(i / 2) * 60_000);
      for (let i = 0; i < times.length; i += 25) {
        await Promise.all(times.slice(i, i + 25).map((t) => client.deploys.create({ workspaceId: ws, commitSha: crypto.randomBytes(20).toString('hex'), environment: 'staging', deployedAt: new Date(t).toISOString() })));
      }
      // One the day before and one the day after: outside the window.
      for (const t of [start - 1, start + 86_400_000]) await client.deploys.create({ workspaceId: ws, commitSha: crypto.randomBytes(20).toString('hex'), environment: 'staging', deployedAt: new Date(t).toISOString() });

      const seen: Array<{ id: string; deployedAt: string }> = [];
      for await (const d of client.deploys.iterate({ workspace_id: ws, from: day, to: day, limit: 40 })) {
        seen.push(d);
        // Deploys recorded mid-read, newer than the page read so far: never a repeat or a gap.
        if (seen.length === 100) await client.deploys.create({ workspaceId: ws, commitSha: crypto.randomBytes(20).toString('hex'), environment: 'staging', deployedAt: `${day}T23:00:00.000Z` });
      }
      assert.equal(seen.length, 250);
      assert.equal(new Set(seen.map((d) => d.id)).size, 250, 'no deploy twice');
      for (let i = 1; i < seen.length; i++) {
        const [a, b] = [seen[i - 1], seen[i]];
        assert.ok(a.deployedAt > b.deployedAt || (a.deployedAt === b.deployedAt && a.id > b.id), `newest first at ${i}`);
      }
      assert.deepEqual([...seen.map((d) => Date.parse(d.deployedAt))].sort((x, y) => x - y), times);

      // A window by date-time, inclusive at both ends: 01:00 to 01:30 holds 31 minutes of two deploys.
      const hour = await client.deploys.list({ workspace_id: ws, from: `${day}T01:00:00Z`, to: `${day}T02:30:00+01:00`, limit: 100 });
      assert.equal(hour.data.length, 62);
      assert.equal(hour.meta.next_cursor, null);
      const bad = await client.deploys.list({ workspace_id: ws, cursor: 'not-a-cursor' }).catch((e) => e);
      assert.equal(bad.status, 400);
      assert.match(bad.message, /cursor/);
    });

    it('webhooks: every operation', async () => {
      const hook = await client.webhooks.create({ workspaceId: o.workspaceId, url: 'https://hooks.example.com/sitehealth', events: ['deploy.recorded'], name: 'SDK', headers: { 'X-Token': 'abc' } });
      assert.match(hook.secret, /^whsec_/);
      assert.deepEqual(hook.headerNames, ['X-Token']);
      assert.equal(hook.active, true);
      assert.deepEqual((await client.webhooks.get(hook.id)).id, hook.id);
      assert.ok((await client.webhooks.list({ workspace_id: o.workspaceId })).data.some((w) => w.id === hook.id));
      assert.equal((await client.webhooks.update(hook.id, { name: 'SDK 2' })).name, 'SDK 2');
      assert.deepEqual((await client.webhooks.listDeliveries(hook.id)).data, []);
      await assert.rejects(client.webhooks.getDelivery(hook.id, crypto.randomUUID()), NotFoundError);
      await assert.rejects(client.webhooks.redeliver(hook.id, crypto.randomUUID()), NotFoundError);
      assert.deepEqual(await client.webhooks.delete(hook.id), { id: hook.id, deleted: true });
      await assert.rejects(client.webhooks.get(hook.id), NotFoundError);
    });
  });
}
