// Hostile bytes, driven by the document: NUL, unpaired surrogates, C0 controls, 1 MiB strings
// and deep nesting in every string field of every request body and in every query parameter of
// every operation, on both engines. Never a 5xx; a refusal names the field; what is accepted is
// read back exactly as sent.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi, type TestSession } from './support/api.ts';
import { document } from './support/contract.ts';
import { setPassword } from '../core/access/index.ts';
import { operatorActor } from '../core/activity/index.ts';

after(dropCreatedDatabases);

type Schema = Record<string, any>;

const resolve = (s: Schema): Schema => {
  let out = s;
  while (out.$ref) out = { ...document.components.schemas[out.$ref.replace('#/components/schemas/', '')], ...Object.fromEntries(Object.entries(out).filter(([k]) => k !== '$ref')) };
  if (out.allOf) out = Object.assign({}, ...out.allOf.map(resolve), { ...out, allOf: undefined, properties: Object.assign({}, ...out.allOf.map((p: Schema) => resolve(p).properties ?? {}), out.properties ?? {}) });
  const branches = out.anyOf ?? out.oneOf;
  if (branches) {
    const nonNull = branches.filter((b: Schema) => resolve(b).type !== 'null');
    if (nonNull.length === 1) out = { ...resolve(nonNull[0]) };
  }
  return out;
};

/** JSON pointers of every free-text string field (no enum, no format) reachable in a body schema. */
function stringFields(schema: Schema, pointer = '', depth = 0): string[] {
  if (depth > 6) return [];
  const s = resolve(schema);
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  if (type === 'string') return s.enum || s.format ? [] : [pointer];
  if (type === 'array' && s.items) return stringFields(s.items, `${pointer}/0`, depth + 1);
  if (s.properties) return Object.entries(s.properties).flatMap(([k, v]) => stringFields(v as Schema, `${pointer}/${k}`, depth + 1));
  return [];
}

function setAt(target: any, pointer: string, value: unknown): void {
  const parts = pointer.split('/').slice(1);
  let cur = target;
  for (const p of parts.slice(0, -1)) cur = cur[p];
  cur[parts[parts.length - 1]] = value;
}

function getAt(target: any, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce((cur, p) => (cur == null ? undefined : cur[p]), target);
}

/** Spliced into the JSON text: 5,000 levels, deeper than JSON.stringify would go by itself. */
const DEEP = Symbol('deep nesting');
const DEEP_JSON = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;

const REFUSED: Array<[string, unknown]> = [
  ['NUL', 'a\u0000b'],
  ['a lone high surrogate', 'a\ud800b'],
  ['a lone low surrogate', 'a\udc00b'],
  ['a string of 1 MiB', 'x'.repeat(1024 * 1024 - 200)],
  ['deep nesting', DEEP],
];
/** Control characters other than NUL are text: stored and given back unchanged. */
const C0 = 'c0:\u0001\u0002\u0007\u0008\t\u000b\u000c\u001b\u001f.';

const PASSWORD = 'correct horse battery';

const SAMPLE_URL_FIELDS = new Set(['/website', '/url', '/logo']);

for (const engine of engines()) {
  describe(`hostile input (${engine})`, () => {
    let api: TestApi;
    let o: Awaited<ReturnType<TestApi['owner']>>;
    let webhookId: string;
    let deployId: string;
    let session: TestSession;

    before(async () => {
      api = await TestApi.start(engine, { env: { ALLOW_PRIVATE_NETWORK: '0' } });
      o = await api.owner();
      await setPassword(api.db, { userId: o.userId, password: PASSWORD, action: 'password.set_by_operator', actor: operatorActor(), keepSession: null });
      session = await api.session(o.userId);
      await api.setLimit(o.accountId, 1000);
      webhookId = (await api.call('POST', '/v1/webhooks', { key: o.apiKey, body: { workspaceId: o.workspaceId, url: 'https://hooks.example.com/h', events: ['deploy.recorded'] } })).body.id;
      deployId = (await api.call('POST', '/v1/deploys', { key: o.apiKey, body: { workspaceId: o.workspaceId, commitSha: 'abcdef1' } })).body.id;
    });
    after(async () => {
      await api.stop();
    });

    /** Per operation with a body: a valid body, where to send it, and how to read the result back. */
    // Passwords and email-link tokens cannot be read back: those readers give back what was sent.
    const bodies: Record<string, () => { method: string; path: string; body: Record<string, any>; readBack: (res: any) => Promise<any>; session?: TestSession }> = {
      Deploys_create: () => ({
        method: 'POST',
        path: '/v1/deploys',
        body: { workspaceId: o.workspaceId, commitSha: Math.random().toString(16).slice(2, 12).padEnd(10, 'a'), environment: 'staging', ref: 'main', message: 'm', changes: [{ path: 'src/a.ts', category: 'page', signals: [] }] },
        readBack: async (res) => (await api.call('GET', `/v1/deploys/${res.body.id}`, { key: o.apiKey })).body,
      }),
      Workspaces_create: () => ({
        method: 'POST',
        path: '/v1/workspaces',
        body: { name: `Hostile ${Math.random()}`, website: 'https://www.example.com', logo: 'https://www.example.com/l.png', description: 'd' },
        readBack: async (res) => (await api.call('GET', `/v1/workspaces/${res.body.data.id}`, { key: o.apiKey })).body.data,
      }),
      Workspaces_update: () => ({
        method: 'PUT',
        path: `/v1/workspaces/${o.workspaceId}`,
        body: { name: `Renamed ${Math.random()}`, website: 'https://www.example.com', logo: 'https://www.example.com/l.png', description: 'd' },
        readBack: async () => (await api.call('GET', `/v1/workspaces/${o.workspaceId}`, { key: o.apiKey })).body.data,
      }),
      Webhooks_create: () => ({
        method: 'POST',
        path: '/v1/webhooks',
        body: { workspaceId: o.workspaceId, url: 'https://hooks.example.com/h', events: ['deploy.recorded'], name: 'n', secret: 'a-secret-of-sixteen', headers: { 'X-A': 'v' } },
        readBack: async (res) => (await api.call('GET', `/v1/webhooks/${res.body.id}`, { key: o.apiKey })).body,
      }),
      // No host is reachable from here (ALLOW_PRIVATE_NETWORK=0): a body that passes validation
      // ends in a 4xx from the host check, which is all these cases need.
      Connections_create: () => ({
        method: 'POST',
        path: `/v1/workspaces/${o.workspaceId}/connections`,
        body: { provider: 'github', baseUrl: 'https://127.0.0.1/api/v3', repository: 'acme/site', token: 'ghp_hostileToken0001', branches: { main: 'production' } },
        readBack: async () => null,
      }),
      Connections_update: () => ({
        method: 'PUT',
        path: `/v1/workspaces/${o.workspaceId}/connections/${crypto.randomUUID()}`,
        body: { token: 'ghp_hostileToken0001', branches: { main: 'production' } },
        readBack: async () => null,
      }),
      Webhooks_update: () => ({
        method: 'PUT',
        path: `/v1/webhooks/${webhookId}`,
        body: { name: 'n', url: 'https://hooks.example.com/h', secret: 'a-secret-of-sixteen', headers: { 'X-A': 'v' } },
        readBack: async () => (await api.call('GET', `/v1/webhooks/${webhookId}`, { key: o.apiKey })).body,
      }),
      ApiKeys_create: () => ({
        method: 'POST',
        path: '/v1/api-keys',
        body: { name: 'hostile', scopes: ['search'], workspaceId: o.workspaceId, expiresAt: '2099-01-01T00:00:00Z' },
        readBack: async (res) => (await api.call('GET', `/v1/api-keys/${res.body.id}`, { key: o.apiKey })).body,
      }),
      Invitations_create: () => ({
        method: 'POST',
        path: `/v1/workspaces/${o.workspaceId}/invitations`,
        body: { email: `hostile.${Math.random().toString(36).slice(2)}@example.com`, role: 'viewer' },
        readBack: async (res) => (await api.call('GET', `/v1/workspaces/${o.workspaceId}/invitations`, { key: o.apiKey })).body.data.find((i: { id: string }) => i.id === res.body.id),
      }),
      // This server has no Google OAuth client: a valid body is 503 search_console_unconfigured; hostile ones are 400 first.
      SearchConsole_connect: () => ({
        method: 'POST',
        path: `/v1/workspaces/${o.workspaceId}/search-console`,
        body: { siteUrl: 'sc-domain:example.com' },
        readBack: async () => null,
      }),
      InvitationAcceptance_accept: () => ({
        method: 'POST',
        path: '/v1/invitations/accept',
        body: { token: 'shinv_not-a-real-token', password: 'a password of twenty' },
        readBack: async () => null,
      }),
      Sessions_create: () => ({
        method: 'POST',
        path: '/v1/sessions',
        body: { email: `hostile.${Math.random().toString(36).slice(2)}@example.com`, password: PASSWORD },
        readBack: async () => null,
      }),
      CurrentUser_changePassword: () => ({
        method: 'PUT',
        path: '/v1/me/password',
        body: { currentPassword: 'not the current password', newPassword: 'a new password here' },
        readBack: async () => null,
        session,
      }),
      PasswordReset_request: () => ({
        method: 'POST',
        path: '/v1/password-reset',
        body: { email: `hostile.${Math.random().toString(36).slice(2)}@example.com` },
        readBack: async () => null,
      }),
      PasswordReset_complete: () => ({
        method: 'POST',
        path: '/v1/password-reset/complete',
        body: { token: 'shrst_not-a-real-token', password: 'a new password here' },
        readBack: async () => null,
      }),
      // The issuer is a private address on a server without ALLOW_PRIVATE_NETWORK: refused before anything is stored.
      SingleSignOn_configure: () => ({
        method: 'PUT',
        path: '/v1/sso/settings',
        body: { issuer: 'https://127.0.0.1', clientId: 'sitehealth', clientSecret: 'a client secret' },
        readBack: async () => null,
      }),
      SsoSignIn_start: () => ({
        method: 'POST',
        path: '/v1/sso/start',
        body: { email: `hostile.${Math.random().toString(36).slice(2)}@example.com` },
        readBack: async () => null,
      }),
      TwoStepSignIn_complete: () => ({
        method: 'POST',
        path: '/v1/two-step-sign-in',
        body: { challenge: 'sh2s_not-a-real-challenge', recoveryCode: 'ABCD-EFGH-JKLM' },
        readBack: async () => null,
      }),
      CurrentUser_confirmTwoStep: () => ({
        method: 'POST',
        path: '/v1/me/two-step/confirm',
        body: { code: '123456' },
        readBack: async () => null,
        session,
      }),
      CurrentUser_disableTwoStep: () => ({
        method: 'POST',
        path: '/v1/me/two-step/disable',
        body: { password: 'not the password' },
        readBack: async () => null,
        session,
      }),
      CurrentUser_regenerateRecoveryCodes: () => ({
        method: 'POST',
        path: '/v1/me/two-step/recovery-codes',
        body: { password: 'not the password' },
        readBack: async () => null,
        session,
      }),
      EmailVerification_complete: () => ({
        method: 'POST',
        path: '/v1/email-verification/complete',
        body: { token: 'shver_not-a-real-token' },
        readBack: async () => null,
      }),
      // No challenge of these ids exists: a body that passes validation is refused with a 400.
      Passkeys_create: () => ({
        method: 'POST',
        path: '/v1/passkeys',
        body: {
          challengeId: crypto.randomUUID(),
          name: 'Laptop',
          response: { id: 'AQID', rawId: 'AQID', type: 'public-key', authenticatorAttachment: 'platform', clientExtensionResults: {}, response: { clientDataJSON: 'e30', attestationObject: 'oA', authenticatorData: 'AA', transports: ['usb'], publicKey: 'AA' } },
        },
        readBack: async () => null,
        session,
      }),
      PasskeySignIn_create: () => ({
        method: 'POST',
        path: '/v1/passkey-sign-in',
        body: {
          challengeId: crypto.randomUUID(),
          response: { id: 'AQID', rawId: 'AQID', type: 'public-key', authenticatorAttachment: 'platform', clientExtensionResults: {}, response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA', userHandle: 'AA' } },
        },
        readBack: async () => null,
      }),
    };

    const operations = Object.entries(document.paths).flatMap(([route, item]) =>
      Object.entries(item as Record<string, any>).map(([method, def]) => ({ route, method: method.toUpperCase(), def })),
    );

    it('covers every operation that takes a body with free-text fields', () => {
      // Signed hooks refuse an unsigned body before reading it; their hostile bodies are sent
      // signed, against a real connection, in test/connections-e2e.test.ts. A body of ids and
      // enums only (POST /v1/site-checks: { workspaceId }) has no text to abuse. The one form body
      // (RFC 8058's one-click unsubscribe) is abused in test/digests.test.ts.
      const withBody = operations
        .filter((op) => op.def.requestBody?.content['application/json'] && !op.def['x-signature'] && stringFields(op.def.requestBody.content['application/json'].schema).length > 0)
        .map((op) => op.def.operationId);
      assert.deepEqual(withBody.sort(), Object.keys(bodies).sort());
    });

    for (const [id, make] of Object.entries(bodies)) {
      it(`${id}: every string field refuses NUL, unpaired surrogates, 1 MiB and nesting with a 400 naming it; keeps control characters`, async () => {
        const op = operations.find((x) => x.def.operationId === id)!;
        const fields = stringFields(op.def.requestBody.content['application/json'].schema);
        assert.ok(fields.length > 0, `${id} has string fields`);
        for (const field of fields) {
          for (const [label, value] of REFUSED) {
            const req = make();
            setAt(req.body, field, value === DEEP ? '__DEEP__' : value);
            const json = JSON.stringify(req.body).replace('"__DEEP__"', DEEP_JSON);
            const res = await api.call(req.method, req.path, { ...(req.session ? { session: req.session } : { key: o.apiKey }), rawBody: json, headers: { 'content-type': 'application/json' } });
            assert.ok(res.status >= 400 && res.status < 500, `${id} ${field} with ${label}: ${res.status} ${res.text.slice(0, 200)}`);
            if (res.status === 400 && res.body.code === 'validation_failed') {
              assert.ok(res.body.errors.some((e: { path: string }) => e.path === field || e.path.startsWith(`${field}/`)), `${id} ${field} with ${label}: ${JSON.stringify(res.body.errors).slice(0, 300)}`);
            }
          }
          // Control characters: accepted where the field's own rules allow them, and read back unchanged.
          if (SAMPLE_URL_FIELDS.has(field)) continue;
          const req = make();
          setAt(req.body, field, C0);
          const res = await api.call(req.method, req.path, { ...(req.session ? { session: req.session } : { key: o.apiKey }), body: req.body });
          assert.ok(res.status < 500, `${id} ${field} with C0: ${res.status}`);
          if (res.status < 300 && !field.startsWith('/headers') && !field.startsWith('/secret') && !/password|token/i.test(field)) {
            assert.equal(getAt(await req.readBack(res), field), C0, `${id} ${field} read back`);
          }
        }
      });
    }

    it('every query parameter of every operation: hostile values are 4xx, never 5xx', async () => {
      for (const op of operations) {
        const params = (op.def.parameters ?? []).filter((p: { in: string }) => p.in === 'query');
        const path = op.route.replace('{id}', op.route.startsWith('/v1/webhooks') ? webhookId : op.route.startsWith('/v1/deploys') ? deployId : o.workspaceId).replace('{deliveryId}', deployId);
        for (const p of params) {
          for (const value of ['a\u0000b', '\ud800', 'x'.repeat(10_000), '\u0001\u001f']) {
            const res = await api.call(op.method, path, { key: o.apiKey, query: { ...(p.name === 'workspace_id' ? {} : op.route === '/v1/deploys' || op.route === '/v1/logs' || op.route.startsWith('/v1/site-checks') ? { workspace_id: o.workspaceId } : {}), [p.name]: value }, body: op.method === 'POST' || op.method === 'PUT' ? undefined : undefined, allow5xx: false });
            assert.ok(res.status < 500, `${op.def.operationId} ?${p.name}=${JSON.stringify(value).slice(0, 20)}: ${res.status}`);
          }
        }
      }
      // The ones the issue named.
      for (const q of ['q', 'route']) {
        const res = await api.call('GET', '/v1/logs', { key: o.apiKey, query: { workspace_id: o.workspaceId, [q]: '\u0000' } });
        assert.equal(res.status, 400);
        assert.equal(res.body.errors[0].path, `/${q}`);
      }
    });
  });
}
