import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi, ALL_SCOPES, type ApiResponse } from './support/api.ts';
import { PENDING_OPERATIONS, document, responseViolations } from './support/contract.ts';
import { generateKey } from '../core/access/index.ts';
import type { OperationId } from '../core/contract/index.ts';
import { loadConfig, createLogger } from '../core/platform/index.ts';
import { createDb } from '../core/db/index.ts';
import { startServer, type RunningServer } from '../server/server.ts';

after(dropCreatedDatabases);

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

type Schema = Record<string, any>;

function resolve(schema: Schema): Schema {
  let s = schema;
  while (s && typeof s.$ref === 'string') s = document.components.schemas[s.$ref.replace('#/components/schemas/', '')] as Schema;
  return s;
}

/** A value the schema accepts, for required query parameters (a fresh UUID for ids). */
function minimalValue(schema: Schema): string {
  const s = resolve(schema);
  if (s.format === 'uuid') return crypto.randomUUID();
  if (Array.isArray(s.enum)) return String(s.enum[0]);
  if (s.type === 'integer' || s.type === 'number') return String(s.minimum ?? 1);
  if (s.format === 'date') return '2026-01-01';
  if (s.format === 'date-time') return '2026-01-01T00:00:00.000Z';
  return 'x';
}

interface DocOp {
  id: string;
  method: string;
  route: string;
  scope: string | undefined;
  /** Authenticated by a delivery's signature (`x-signature`) instead of a key. */
  signed: boolean;
  /** For the person signed in only (`x-credential: session`): no scope, and keys are refused. */
  sessionOnly: boolean;
  /** A concrete URL: random UUIDs for path parameters, minimal values for required query parameters. */
  url(): string;
}

const operations: DocOp[] = [];
for (const [route, item] of Object.entries(document.paths)) {
  for (const m of HTTP_METHODS) {
    const op = item[m];
    if (!op) continue;
    // Keyless by declaration: inbound hooks (`x-signature`, authenticated by their signature) and
    // accepting an invitation (`x-public`, the token in the body is the credential). Their own
    // tests cover them (connections, members).
    if (op['x-signature'] || op['x-public']) continue;
    const params = op.parameters ?? [];
    operations.push({
      id: op.operationId,
      method: m.toUpperCase(),
      route,
      scope: op['x-scope'],
      signed: op['x-signature'] !== undefined,
      sessionOnly: op['x-credential'] === 'session',
      url() {
        const path = route.replace(/\{([^}]+)\}/g, () => crypto.randomUUID());
        const q = new URLSearchParams();
        for (const p of params) if ('in' in p && p.in === 'query' && p.required) q.set(p.name, minimalValue(p.schema));
        const qs = q.toString();
        return qs ? `${path}?${qs}` : path;
      },
    });
  }
}

const isInsufficientScope = (r: ApiResponse) => r.status === 403 && r.body?.code === 'insufficient_scope';

function assertProblem(res: ApiResponse, status: number, code: string, what = ''): void {
  assert.equal(res.status, status, `${what} ${res.text.slice(0, 300)}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, what);
  assert.equal(res.body.code, code, what);
  assert.equal(res.body.status, status, what);
}

async function rawGet(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(new URL(path, base), { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

for (const engine of engines()) {
  describe(`auth and access (${engine})`, () => {
    let api: TestApi;
    before(async () => {
      api = await TestApi.start(engine);
    });
    after(async () => {
      await api.stop();
    });

    describe('scopes', () => {
      it('every /v1 operation declares exactly one known x-scope, or is a signed hook or a session-only operation with none', () => {
        assert.ok(operations.length > 0);
        for (const op of operations) {
          assert.ok(op.route.startsWith('/v1/'), `${op.id} lives under /v1`);
          if (op.signed) assert.equal(op.scope, undefined, `${op.id} is signed and has no x-scope`);
          else if (op.sessionOnly) assert.equal(op.scope, undefined, `${op.id} is for a person signed in and has no x-scope`);
          else assert.ok(op.scope && (ALL_SCOPES as readonly string[]).includes(op.scope), `${op.id} has x-scope ${op.scope}`);
        }
      });

      it('a key lacking the operation scope gets 403 insufficient_scope; a key with only that scope passes the scope check', async () => {
        const owner = await api.user();
        const keys = new Map<string, string>();
        const keyFor = async (scopes: string[]): Promise<string> => {
          const name = scopes.join(',');
          if (!keys.has(name)) keys.set(name, (await api.key(owner.userId, { scopes })).apiKey);
          return keys.get(name)!;
        };
        // Signed hooks take no key; their signature checks are in test/connections-e2e.test.ts.
        // Session-only operations refuse every key, whatever its scopes.
        for (const op of operations.filter((o) => o.sessionOnly)) {
          assertProblem(await api.call(op.method, op.url(), { key: await keyFor([...ALL_SCOPES]) }), 403, 'session_required', `${op.id} with a key:`);
        }
        for (const op of operations.filter((o) => !o.signed && !o.sessionOnly)) {
          const others = ALL_SCOPES.filter((s) => s !== op.scope);
          const without = await api.call(op.method, op.url(), { key: await keyFor(others) });
          assertProblem(without, 403, 'insufficient_scope', `${op.id} with ${others.join(',')}:`);
          assert.match(without.body.detail, new RegExp(op.scope!), `${op.id}: detail names the scope`);

          // Unchecked so that a 501 of a pending operation is judged here, against the pending list.
          const url = op.url();
          const only = await api.call(op.method, url, { key: await keyFor([op.scope!]), unchecked: true });
          const contentType = only.headers.get('content-type') ?? '';
          assert.deepEqual(responseViolations(op.method, url.split('?')[0], only.status, contentType, only.body), [], `${op.id}: ${only.text}`);
          assert.ok(only.status < 500 || (only.status === 501 && PENDING_OPERATIONS.has(op.id as OperationId)), `${op.id} with only ${op.scope}: ${only.text}`);
          assert.notEqual(only.status, 401, `${op.id} with only ${op.scope}: ${only.text}`);
          assert.ok(!isInsufficientScope(only), `${op.id} with only ${op.scope}: ${only.text}`);
        }
      });
    });

    describe('unauthorized', () => {
      it('answers a missing, malformed, unknown or revoked key with one identical 401 body', async () => {
        const o = await api.owner();
        const revoked = await api.key(o.userId);
        await api.revoke(revoked.id);
        const real = generateKey();
        const badChecksum = real.slice(0, -1) + (real.endsWith('A') ? 'B' : 'A');
        const cases: Array<[string, string | null]> = [
          ['missing', null],
          ['empty', ''],
          ['malformed', 'not-a-key'],
          ['bad checksum', badChecksum],
          ['well-formed but unknown', generateKey()],
          ['revoked', revoked.apiKey],
          ['real key with an extra character', `${o.apiKey}x`],
        ];
        const texts = new Set<string>();
        for (const [label, key] of cases) {
          for (const [method, path] of [
            ['GET', '/v1/workspaces'],
            ['POST', '/v1/deploys'],
            ['GET', `/v1/workspaces/${o.workspaceId}`],
          ] as const) {
            const res = await api.call(method, path, { key, headers: key === '' ? { 'x-api-key': '' } : {} });
            assertProblem(res, 401, 'unauthorized', `${label} ${method} ${path}:`);
            texts.add(res.text);
          }
        }
        assert.equal(texts.size, 1, `401 bodies differ: ${[...texts].join('\n')}`);
        // And the real key still works.
        assert.equal((await api.call('GET', '/v1/workspaces', { key: o.apiKey })).status, 200);
      });

      it('a key sent as Authorization: Bearer gets a 401 that says where the key goes', async () => {
        const o = await api.owner();
        const res = await api.call('GET', '/v1/workspaces', { headers: { authorization: `Bearer ${o.apiKey}` } });
        assertProblem(res, 401, 'unauthorized');
        assert.match(res.body.detail, /X-API-Key header: the Authorization header is not read/);
        assert.ok(!res.text.includes(o.apiKey), 'the key is not echoed');
      });

      it('a revoked key is refused on its very next request, on every server instance', async () => {
        const o = await api.owner();
        // A second, independent instance (own connection pool) on the same database.
        const config = { ...loadConfig({ ...process.env, DATABASE_URL: api.dbUrl }), host: '127.0.0.1' };
        const db2 = createDb(api.dbUrl);
        let second: RunningServer | null = null;
        try {
          second = await startServer({ db: db2, config, log: createLogger('test-server-2', 'silent'), port: 0 });
          const bases = [api.url, second.url];
          const status = async (base: string) => (await rawGet(base, '/v1/workspaces', { 'x-api-key': o.apiKey })).status;
          for (const b of bases) assert.equal(await status(b), 200);
          await api.revoke(o.keyId);
          for (const b of bases) assert.equal(await status(b), 401, `${b} right after the revocation`);
        } finally {
          await second?.close();
          await db2.destroy();
        }
      });
    });

    describe('concurrent callers', () => {
      it('many keys at once (owners, strangers, revoked, unknown, bound) each get their own answer', async () => {
        // On PostgreSQL concurrent key lookups share one statement (core/db/batch.ts); nothing
        // of one caller's answer may reach another's.
        const a = await api.owner();
        const b = await api.owner();
        const revoked = await api.key(a.userId);
        await api.revoke(revoked.id);
        const bound = await api.key(a.userId, { workspaceId: a.workspaceId });
        const deploy = await api.call('POST', '/v1/deploys', { key: a.apiKey, body: { workspaceId: a.workspaceId, commitSha: crypto.randomBytes(20).toString('hex') } });
        assert.equal(deploy.status, 201);
        const cases: Array<[string, string, string, number]> = [
          ['owner A, own workspace', a.apiKey, `/v1/workspaces/${a.workspaceId}`, 200],
          ['owner B, own workspace', b.apiKey, `/v1/workspaces/${b.workspaceId}`, 200],
          ["owner B, A's workspace", b.apiKey, `/v1/workspaces/${a.workspaceId}`, 404],
          ["owner A, own deploy", a.apiKey, `/v1/deploys/${deploy.body.id}`, 200],
          ["owner B, A's deploy", b.apiKey, `/v1/deploys/${deploy.body.id}`, 404],
          ['bound to A, its workspace', bound.apiKey, `/v1/workspaces/${a.workspaceId}`, 200],
          ["bound to A, B's workspace", bound.apiKey, `/v1/workspaces/${b.workspaceId}`, 404],
          ['revoked', revoked.apiKey, '/v1/workspaces', 401],
          ['unknown', generateKey(), '/v1/workspaces', 401],
        ];
        const calls = Array.from({ length: 6 }, () => cases).flat();
        const results = await Promise.all(calls.map(([, key, path]) => api.call('GET', path, { key })));
        for (const [i, res] of results.entries()) {
          const [label, , path, status] = calls[i];
          assert.equal(res.status, status, `${label}: ${res.text.slice(0, 200)}`);
          if (status === 200 && path.startsWith('/v1/workspaces/')) assert.equal(res.body.data.id, path.split('/').pop(), label);
          if (status === 200 && path.startsWith('/v1/deploys/')) assert.equal(res.body.id, deploy.body.id, label);
        }
      });
    });

    describe('bound keys', () => {
      it('see only their workspace and cannot create workspaces', async () => {
        const o = await api.owner();
        const other = await api.workspace(o);
        const bound = await api.key(o.userId, { workspaceId: o.workspaceId });

        assertProblem(await api.call('GET', `/v1/workspaces/${other}`, { key: bound.apiKey }), 404, 'not_found');
        assertProblem(await api.call('PUT', `/v1/workspaces/${other}`, { key: bound.apiKey, body: { name: 'Renamed' } }), 404, 'not_found');
        assertProblem(await api.call('DELETE', `/v1/workspaces/${other}`, { key: bound.apiKey }), 404, 'not_found');
        assert.equal((await api.call('GET', `/v1/workspaces/${o.workspaceId}`, { key: bound.apiKey })).status, 200);

        const list = await api.call('GET', '/v1/workspaces', { key: bound.apiKey });
        assert.equal(list.status, 200);
        assert.deepEqual(list.body.data.map((w: { id: string }) => w.id), [o.workspaceId]);
        // The unbound key of the same user sees both.
        const all = await api.call('GET', '/v1/workspaces', { key: o.apiKey });
        assert.deepEqual(all.body.data.map((w: { id: string }) => w.id), [o.workspaceId, other]);

        const create = await api.call('POST', '/v1/workspaces', { key: bound.apiKey, body: { name: 'From a bound key', website: 'https://bound.example' } });
        assertProblem(create, 403, 'forbidden');
        const after = await api.call('GET', '/v1/workspaces', { key: o.apiKey });
        assert.equal(after.body.data.length, 2, 'nothing was created');
      });
    });

    describe('workspace roles', () => {
      it('viewer and member cannot update, admin can update but not delete, owner can delete', async () => {
        const o = await api.owner();
        const ws = o.workspaceId;
        const keyAs = async (role: 'viewer' | 'member' | 'admin') => {
          const u = await api.user({ accountId: o.accountId });
          await api.member(ws, u.userId, role);
          return (await api.key(u.userId)).apiKey;
        };
        const viewer = await keyAs('viewer');
        const member = await keyAs('member');
        const admin = await keyAs('admin');

        for (const [role, key] of [
          ['viewer', viewer],
          ['member', member],
        ] as const) {
          assert.equal((await api.call('GET', `/v1/workspaces/${ws}`, { key })).status, 200, `${role} reads`);
          assertProblem(await api.call('PUT', `/v1/workspaces/${ws}`, { key, body: { name: `By ${role}` } }), 403, 'forbidden', `${role} PUT:`);
          assertProblem(await api.call('DELETE', `/v1/workspaces/${ws}`, { key }), 403, 'forbidden', `${role} DELETE:`);
        }
        const upd = await api.call('PUT', `/v1/workspaces/${ws}`, { key: admin, body: { name: 'By admin' } });
        assert.equal(upd.status, 200, upd.text);
        assert.equal(upd.body.data.name, 'By admin');
        assertProblem(await api.call('DELETE', `/v1/workspaces/${ws}`, { key: admin }), 403, 'forbidden', 'admin DELETE:');

        const del = await api.call('DELETE', `/v1/workspaces/${ws}`, { key: o.apiKey });
        assert.equal(del.status, 204, del.text);
        assertProblem(await api.call('GET', `/v1/workspaces/${ws}`, { key: o.apiKey }), 404, 'not_found');
      });

      it('a non-member, or another account, gets 404 (never 403) with the same body as for a workspace that does not exist', async () => {
        const o = await api.owner();
        const ws = o.workspaceId;
        const sameAccount = await api.user({ accountId: o.accountId });
        const outsider = (await api.key(sameAccount.userId)).apiKey;
        const stranger = (await api.owner()).apiKey;
        const missing = crypto.randomUUID();

        for (const [who, key] of [
          ['non-member of the same account', outsider],
          ['another account', stranger],
        ] as const) {
          const requests = [
            ['GET', undefined],
            ['PUT', { name: 'Hijacked' }],
            ['DELETE', undefined],
          ] as const;
          for (const [method, body] of requests) {
            const hidden = await api.call(method, `/v1/workspaces/${ws}`, { key, body });
            assertProblem(hidden, 404, 'not_found', `${who} ${method}:`);
            const absent = await api.call(method, `/v1/workspaces/${missing}`, { key, body });
            assertProblem(absent, 404, 'not_found', `${who} ${method} missing:`);
            assert.equal(hidden.text, absent.text, 'a hidden workspace is indistinguishable from a missing one');
          }
          const list = await api.call('GET', '/v1/workspaces', { key });
          assert.ok(!list.body.data.some((w: { id: string }) => w.id === ws), `${who} does not list it`);
        }
        const still = await api.call('GET', `/v1/workspaces/${ws}`, { key: o.apiKey });
        assert.equal(still.status, 200);
        assert.notEqual(still.body.data.name, 'Hijacked');
      });
    });

    describe('routing', () => {
      it('an unknown path under /v1 is 404 not_found with or without a key', async () => {
        const o = await api.owner();
        for (const path of ['/v1', '/v1/', '/v1/nope', '/v1/workspaces/x/y', `/v1/workspaces/${o.workspaceId}/nope`, '/v1/deploys/latest/x', '/v2/workspaces']) {
          for (const key of [o.apiKey, null]) {
            for (const method of ['GET', 'POST']) {
              const res = await api.call(method, path, { key });
              assertProblem(res, 404, 'not_found', `${method} ${path} key=${!!key}:`);
            }
          }
        }
      });

      it('a malformed id in a path is 404 not_found', async () => {
        const o = await api.owner();
        const bad = ['not-a-uuid', '123', `${o.workspaceId}0`, o.workspaceId.replace(/-/g, ''), `urn:uuid:${o.workspaceId}`, `{${o.workspaceId}}`];
        for (const id of bad) {
          assertProblem(await api.call('GET', `/v1/workspaces/${encodeURIComponent(id)}`, { key: o.apiKey }), 404, 'not_found', `GET ${id}:`);
        }
        // Every operation with a path parameter, before its body is even looked at.
        const session = await api.session(o.userId);
        for (const op of operations) {
          if (!op.route.includes('{')) continue;
          const path = op.route.replace(/\{[^}]+\}/g, 'not-a-uuid');
          assertProblem(await api.call(op.method, path, op.sessionOnly ? { session } : { key: o.apiKey }), 404, 'not_found', `${op.id}:`);
        }
      });

      it('a known path with an unsupported method is 405 with an Allow header', async () => {
        const o = await api.owner();
        for (const [route, item] of Object.entries(document.paths)) {
          const documented = HTTP_METHODS.filter((m) => item[m]).map((m) => m.toUpperCase());
          const path = route.replace(/\{[^}]+\}/g, () => crypto.randomUUID());
          for (const method of HTTP_METHODS.map((m) => m.toUpperCase()).filter((m) => !documented.includes(m))) {
            for (const key of [o.apiKey, null]) {
              const res = await api.call(method, path, { key });
              assertProblem(res, 405, 'method_not_allowed', `${method} ${route}:`);
              const allow = (res.headers.get('allow') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
              for (const m of documented) assert.ok(allow.includes(m), `${method} ${route}: Allow "${allow}" has ${m}`);
              for (const m of allow) assert.ok(documented.includes(m) || (m === 'HEAD' && documented.includes('GET')), `${route}: Allow lists ${m}`);
            }
          }
        }
      });
    });

    describe('request ids', () => {
      it('echoes x-request-id when sent and generates one otherwise', async () => {
        const o = await api.owner();
        const sent = await api.call('GET', '/v1/workspaces', { key: o.apiKey, headers: { 'x-request-id': 'trace-123.abc:9' } });
        assert.equal(sent.headers.get('x-request-id'), 'trace-123.abc:9');
        const failed = await api.call('GET', '/v1/nope', { headers: { 'x-request-id': 'trace-404' } });
        assert.equal(failed.headers.get('x-request-id'), 'trace-404');
        const unauthorized = await api.call('GET', '/v1/workspaces', { headers: { 'x-request-id': 'trace-401' } });
        assert.equal(unauthorized.headers.get('x-request-id'), 'trace-401');

        const a = await api.call('GET', '/v1/workspaces', { key: o.apiKey });
        const b = await api.call('GET', '/v1/workspaces', { key: o.apiKey });
        const ida = a.headers.get('x-request-id');
        const idb = b.headers.get('x-request-id');
        assert.ok(ida && idb && ida !== idb, `generated ids are fresh: ${ida} ${idb}`);
        // A value that is not a sane id (too long, odd characters) is replaced, not echoed.
        for (const junk of ['x'.repeat(129), 'a b', 'a<script>']) {
          const r = await api.call('GET', '/v1/workspaces', { key: o.apiKey, headers: { 'x-request-id': junk } });
          const got = r.headers.get('x-request-id');
          assert.ok(got && got !== junk, `replaced ${JSON.stringify(junk)}`);
        }
      });
    });

    describe('unauthenticated endpoints', () => {
      it('/health and /ready answer 200 without a key', async () => {
        for (const path of ['/health', '/ready']) {
          const res = await rawGet(api.url, path);
          assert.equal(res.status, 200, `${path}: ${res.text}`);
          assert.equal(JSON.parse(res.text).status, 'ok');
        }
      });

      it('/openapi.json serves the document', async () => {
        const res = await rawGet(api.url, '/openapi.json');
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
        const doc = JSON.parse(res.text);
        assert.match(doc.openapi, /^3\.1\.\d+$/);
        assert.deepEqual(doc, document);
      });

      it('/docs is HTML whose every asset is served by us', async () => {
        const res = await rawGet(api.url, '/docs');
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
        const refs = [...res.text.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]);
        assert.ok(refs.length >= 2, `assets referenced: ${refs}`);
        const docUrls = new Set<string>();
        for (const ref of refs) {
          const url = new URL(ref, new URL('/docs', api.url));
          assert.equal(url.origin, new URL(api.url).origin, `${ref} is served by us, not a CDN`);
          const asset = await fetch(url);
          const body = Buffer.from(await asset.arrayBuffer());
          assert.equal(asset.status, 200, `${ref}`);
          assert.ok(body.length > 0, `${ref} is not empty`);
          // Small init scripts point the UI at the document: that must be ours too.
          if (body.length < 20000) for (const m of body.toString('utf8').matchAll(/\burl\s*:\s*["']([^"']+)["']/g)) docUrls.add(m[1]);
        }
        for (const u of docUrls) {
          const url = new URL(u, api.url);
          assert.equal(url.origin, new URL(api.url).origin, `${u} is ours`);
          assert.equal((await fetch(url)).status, 200, u);
        }
      });
    });
  });
}
