// Single sign-on (spec/sso.tsp) against a real OpenID Connect provider (oidc-provider) started on
// 127.0.0.1: configuration by an owner of every workspace, the authorization-code flow with PKCE
// driven over HTTP, the session it starts, the refusals that change nothing (wrong state, wrong
// nonce, replay, expiry, unknown user, a provider error) and the switch that requires SSO.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi, uniqueEmail } from './support/api.ts';
import { loginAtProvider, startProvider, type LocalProvider } from './support/oidc-provider.ts';
import { addMember, configureSso, resealSsoSecrets, setPassword } from '../core/access/index.ts';
import { Keyring } from '../core/secrets/index.ts';
import { operatorActor } from '../core/activity/index.ts';
import { setClockOffset } from '../core/platform/index.ts';

after(dropCreatedDatabases);

const PUBLIC_URL = 'https://sitehealth.example';
const CALLBACK = `${PUBLIC_URL}/v1/sso/callback`;
const PASSWORD = 'correct horse battery';
const SECRETS_KEY = crypto.randomBytes(32);

for (const engine of engines()) {
  describe(`single sign-on (${engine})`, () => {
    let api: TestApi;
    let idp: LocalProvider;
    let o: Awaited<ReturnType<TestApi['owner']>>;

    before(async () => {
      idp = await startProvider(CALLBACK);
      api = await TestApi.start(engine, { env: { PUBLIC_URL, ALLOW_PRIVATE_NETWORK: '1', SECRETS_KEY: SECRETS_KEY.toString('base64') } });
      o = await api.owner();
    });
    after(async () => {
      await api.stop();
      await idp.close();
    });

    /** A user of the owner's account, a member of its workspace, known to the provider as `sub`. */
    async function person(opts: { verified?: boolean } = {}) {
      const email = uniqueEmail('sso');
      const u = await api.user({ accountId: o.accountId, email });
      await addMember(api.db, { workspaceId: o.workspaceId, userId: u.userId, role: 'member' });
      const sub = `sub-${u.userId}`;
      idp.accounts.set(sub, { email, emailVerified: opts.verified ?? true });
      return { ...u, email, sub };
    }

    const configure = (body: Record<string, unknown>, key = o.apiKey) => api.call('PUT', '/v1/sso/settings', { key, body });

    /** Starts an attempt as a browser: the authorization URL and the binding cookie. */
    async function start(body: Record<string, unknown>) {
      const res = await api.call('POST', '/v1/sso/start', { body });
      assert.equal(res.status, 200, res.text);
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith('sitehealth_sso='))!;
      assert.ok(cookie, 'the attempt is bound to the browser by a cookie');
      return { url: res.body.authorizationUrl as string, binding: /^sitehealth_sso=([^;]+)/.exec(cookie)![1], cookie };
    }

    const callback = (query: URLSearchParams | string, binding?: string) =>
      api.call('GET', `/v1/sso/callback?${query.toString()}`, { headers: binding ? { cookie: `sitehealth_sso=${binding}` } : {} });

    const sessionsOf = async (userId: string) => Number((await api.db('sessions').where({ user_id: userId }).count({ n: '*' }))[0].n);

    async function securityActions() {
      const res = await api.call('GET', '/v1/activity', { key: o.apiKey, query: { kind: 'security', limit: 100 } });
      assert.equal(res.status, 200, res.text);
      return res.body.data as Array<{ action: string; actor: { type: string; id: string | null }; target: { type: string; id: string } | null; details: Record<string, unknown> }>;
    }

    before(async () => {
      const res = await configure({ issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret });
      assert.equal(res.status, 200, res.text);
    });

    it('an owner configures it; the secret is sealed and never shown; a non-owner and a bound key may not', async () => {
      const p = await person();
      const memberKey = await api.key(p.userId);
      const refused = await configure({ issuer: idp.issuer, clientId: 'other', clientSecret: 'x' }, memberKey.apiKey);
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.body.code, 'forbidden');
      const bound = await api.key(o.userId, { workspaceId: o.workspaceId });
      assert.equal((await api.call('GET', '/v1/sso/settings', { key: bound.apiKey })).status, 403);

      const res = await api.call('GET', '/v1/sso/settings', { key: o.apiKey });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        { issuer: res.body.issuer, clientId: res.body.clientId, required: res.body.required, redirectUri: res.body.redirectUri, accountId: res.body.accountId },
        { issuer: idp.issuer, clientId: idp.clientId, required: false, redirectUri: CALLBACK, accountId: o.accountId },
      );
      assert.ok(!res.text.includes(idp.clientSecret));
      const row = await api.db('sso_settings').where({ account_id: o.accountId }).first();
      assert.ok(!JSON.stringify(row).includes(idp.clientSecret), 'sealed at rest');

      // The stored secret is kept when none is sent; an issuer that cannot be discovered changes nothing.
      assert.equal((await configure({ issuer: idp.issuer, clientId: idp.clientId })).status, 200);
      const unreachable = await configure({ issuer: 'http://127.0.0.1:9', clientId: 'nobody', clientSecret: 'x' });
      assert.equal(unreachable.status, 400, unreachable.text);
      assert.equal(unreachable.body.code, 'sso_provider_error');
      assert.equal((await api.call('GET', '/v1/sso/settings', { key: o.apiKey })).body.clientId, idp.clientId);
      const actions = (await securityActions()).map((r) => r.action);
      assert.equal(actions.filter((a) => a === 'sso.configured').length, 2);

      // Without ALLOW_PRIVATE_NETWORK an issuer on 127.0.0.1 is refused by the address guard before it is asked anything.
      const guarded = configureSso(api.db, { keyring: new Keyring([SECRETS_KEY]), allowPrivateNetwork: false, timeoutMs: 2000, publicUrl: PUBLIC_URL }, {
        auth: { userId: o.userId, workspaceId: null, credential: 'api_key', keyId: o.keyId, keyName: null, accountId: o.accountId, scopes: ['workspaces'], expiresAt: null },
        actor: { type: 'api_key', id: o.keyId, label: null },
        input: { issuer: idp.issuer.replace('http:', 'https:'), clientId: idp.clientId, clientSecret: idp.clientSecret },
      });
      await assert.rejects(guarded, (err: { code?: string; message?: string }) => err.code === 'sso_provider_error' && /not public/.test(err.message ?? ''));

      // A SECRETS_KEY rotation re-seals the client secret with the new first key (admin secrets reseal).
      const newKey = crypto.randomBytes(32);
      const rotated = new Keyring([newKey, SECRETS_KEY]);
      assert.equal(await resealSsoSecrets(api.db, rotated), 1);
      assert.equal(await resealSsoSecrets(api.db, rotated), 0);
      const resealed = await api.db('sso_settings').where({ account_id: o.accountId }).first();
      assert.equal(rotated.isStale(resealed.client_secret), false);
      assert.equal(rotated.open(resealed.client_secret, `sso_settings/${o.accountId}/client_secret`), idp.clientSecret);
      assert.equal(await resealSsoSecrets(api.db, new Keyring([SECRETS_KEY, newKey])), 1, 'and back, so this server opens it again');
    });

    it('a person signs in through the provider end to end: PKCE S256, session cookie, 302, audit rows', async () => {
      const p = await person();
      const attempt = await start({ email: p.email.toUpperCase() });
      assert.match(attempt.cookie, /HttpOnly/);
      assert.match(attempt.cookie, /SameSite=Lax/);
      assert.match(attempt.cookie, /Path=\/v1\/sso\/callback/);
      assert.match(attempt.cookie, /Secure/);
      const url = new URL(attempt.url);
      assert.equal(url.origin, idp.issuer);
      assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
      assert.equal(url.searchParams.get('redirect_uri'), CALLBACK);
      assert.ok(url.searchParams.get('state') && url.searchParams.get('nonce') && url.searchParams.get('code_challenge'));
      const stored = await api.db('sso_attempts').where({ account_id: o.accountId }).orderBy('created_at', 'desc').first();
      assert.ok(!JSON.stringify(stored).includes(url.searchParams.get('state')!), 'only a digest of the state is kept');

      const back = await loginAtProvider(attempt.url, p.sub, { until: CALLBACK });
      assert.ok(back.searchParams.get('code'));

      // Another browser (no binding cookie) cannot complete it: login CSRF.
      const foreign = await callback(back.searchParams);
      assert.equal(foreign.status, 400, foreign.text);
      assert.equal(foreign.body.code, 'sso_state_invalid');
      assert.equal(await sessionsOf(p.userId), 0);

      const done = await callback(back.searchParams, attempt.binding);
      assert.equal(done.status, 302, done.text);
      assert.equal(done.headers.get('location'), `${PUBLIC_URL}/`);
      const cookie = done.headers.getSetCookie().find((c) => c.startsWith('sitehealth_session='))!;
      assert.match(cookie, /HttpOnly/);
      const token = /^sitehealth_session=([^;]+)/.exec(cookie)![1];
      const me = await api.call('GET', '/v1/me', { headers: { cookie: `sitehealth_session=${token}` } });
      assert.equal(me.status, 200, me.text);
      assert.equal(me.body.email, p.email);
      assert.equal(me.body.session.method, 'sso');
      const workspaces = await api.call('GET', '/v1/workspaces', { headers: { cookie: `sitehealth_session=${token}` } });
      assert.deepEqual(workspaces.body.data.map((w: { id: string }) => w.id), [o.workspaceId]);

      // The same callback again: the attempt worked once.
      const replay = await callback(back.searchParams, attempt.binding);
      assert.equal(replay.status, 400, replay.text);
      assert.equal(replay.body.code, 'sso_state_invalid');

      // A second SSO sign-in is not a first one ...
      // ... and parameters some providers add (Google's scope, authuser, hd, prompt) are accepted and ignored.
      const again = await start({ accountId: o.accountId });
      const againBack = (await loginAtProvider(again.url, p.sub, { until: CALLBACK })).searchParams;
      againBack.set('scope', 'openid email');
      againBack.set('authuser', '0');
      assert.equal((await callback(againBack, again.binding)).status, 302);
      assert.equal(await sessionsOf(p.userId), 2);

      const rows = (await securityActions()).filter((r) => r.target?.id === p.userId);
      assert.equal(rows.filter((r) => r.action === 'sso.first_sign_in').length, 1);
      const signedIn = rows.filter((r) => r.action === 'session.signed_in');
      assert.equal(signedIn.length, 2);
      assert.ok(signedIn.every((r) => r.details.method === 'sso'));
      const first = rows.find((r) => r.action === 'sso.first_sign_in')!;
      assert.equal(first.details.subject, p.sub);
      assert.equal(first.actor.type, 'session');
    });

    it('refuses a wrong state, a wrong nonce, an expired attempt, an unknown user and a provider error, changing nothing', async () => {
      const p = await person();

      const unknownState = await start({ email: p.email });
      const back = await loginAtProvider(unknownState.url, p.sub, { until: CALLBACK });
      const tampered = new URLSearchParams(back.searchParams);
      tampered.set('state', crypto.randomBytes(32).toString('base64url'));
      const wrongState = await callback(tampered, unknownState.binding);
      assert.equal(wrongState.status, 400, wrongState.text);
      assert.equal(wrongState.body.code, 'sso_state_invalid');

      // A code issued for another nonce (an injected authorization response): the ID token's nonce is not the attempt's.
      const nonceAttempt = await start({ email: p.email });
      const otherNonce = new URL(nonceAttempt.url);
      otherNonce.searchParams.set('nonce', crypto.randomBytes(32).toString('base64url'));
      const wrongNonce = await callback((await loginAtProvider(otherNonce.href, p.sub, { until: CALLBACK })).searchParams, nonceAttempt.binding);
      assert.equal(wrongNonce.status, 400, wrongNonce.text);
      assert.equal(wrongNonce.body.code, 'sso_token_invalid');
      assert.match(wrongNonce.body.detail, /nonce/i);

      const late = await start({ email: p.email });
      const lateBack = await loginAtProvider(late.url, p.sub, { until: CALLBACK });
      setClockOffset(11 * 60_000);
      try {
        const expired = await callback(lateBack.searchParams, late.binding);
        assert.equal(expired.status, 400, expired.text);
        assert.equal(expired.body.code, 'sso_expired');
      } finally {
        setClockOffset(0);
      }

      const denied = await start({ email: p.email });
      const deniedState = new URL(denied.url).searchParams.get('state')!;
      const providerError = await callback(new URLSearchParams({ error: 'access_denied', error_description: 'End-User aborted interaction', state: deniedState, iss: idp.issuer }), denied.binding);
      assert.equal(providerError.status, 400, providerError.text);
      assert.equal(providerError.body.code, 'sso_provider_error');
      assert.match(providerError.body.detail, /access_denied/);

      // The provider vouches for an address no user of this account has.
      const stranger = `sub-stranger-${crypto.randomUUID()}`;
      idp.accounts.set(stranger, { email: uniqueEmail('stranger'), emailVerified: true });
      const strangerAttempt = await start({ accountId: o.accountId });
      const unknownUser = await callback((await loginAtProvider(strangerAttempt.url, stranger, { until: CALLBACK })).searchParams, strangerAttempt.binding);
      assert.equal(unknownUser.status, 403, unknownUser.text);
      assert.equal(unknownUser.body.code, 'sso_user_unknown');

      const unverified = await person({ verified: false });
      const unverifiedAttempt = await start({ email: unverified.email });
      const notVerified = await callback((await loginAtProvider(unverifiedAttempt.url, unverified.sub, { until: CALLBACK })).searchParams, unverifiedAttempt.binding);
      assert.equal(notVerified.status, 403, notVerified.text);
      assert.equal(notVerified.body.code, 'sso_user_unknown');

      assert.equal(await sessionsOf(p.userId), 0);
      assert.equal(await sessionsOf(unverified.userId), 0);
      assert.ok(!(await securityActions()).some((r) => r.target?.id === p.userId && r.action !== 'member.joined'));

      const nobody = await api.call('POST', '/v1/sso/start', { body: { email: uniqueEmail('nobody') } });
      assert.equal(nobody.status, 404, nobody.text);
      assert.equal(nobody.body.code, 'sso_not_configured');
      const both = await api.call('POST', '/v1/sso/start', { body: { email: p.email, accountId: o.accountId } });
      assert.equal(both.status, 400, both.text);
      assert.equal(both.body.code, 'validation_failed');
    });

    it('while required, password sign-in is refused 403 sso_required; keys keep working; removing it ends the requirement', async () => {
      const p = await person();
      await setPassword(api.db, { userId: p.userId, password: PASSWORD, action: 'password.set_by_operator', actor: operatorActor(), keepSession: null });
      const memberKey = await api.key(p.userId);
      const earlier = await api.session(p.userId);
      assert.equal((await api.call('GET', '/v1/me', { session: earlier })).status, 200);

      const on = await configure({ issuer: idp.issuer, clientId: idp.clientId, required: true });
      assert.equal(on.status, 200, on.text);
      assert.equal(on.body.required, true);
      assert.equal((await api.call('GET', '/v1/me', { session: earlier })).status, 401, 'a session signed in with a password ends when SSO becomes required');

      const refused = await api.call('POST', '/v1/sessions', { body: { email: p.email, password: PASSWORD } });
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.body.code, 'sso_required');
      assert.equal(await sessionsOf(p.userId), 1, 'no session was started (the one row is the ended earlier session)');
      assert.equal((await api.call('GET', '/v1/workspaces', { key: memberKey.apiKey })).status, 200, 'API keys are for programs and keep working');

      const viaSso = await start({ email: p.email });
      assert.equal((await callback((await loginAtProvider(viaSso.url, p.sub, { until: CALLBACK })).searchParams, viaSso.binding)).status, 302);

      const removed = await api.call('DELETE', '/v1/sso/settings', { key: o.apiKey });
      assert.equal(removed.status, 204, removed.text);
      assert.equal((await api.call('GET', '/v1/sso/settings', { key: o.apiKey })).status, 404);
      assert.equal((await api.call('POST', '/v1/sessions', { body: { email: p.email, password: PASSWORD } })).status, 200);

      const rows = await securityActions();
      const required = rows.filter((r) => r.action === 'sso.required');
      assert.deepEqual(required.map((r) => r.details.required), [true]);
      assert.ok(rows.some((r) => r.action === 'sso.removed' && r.actor.id === o.keyId));

      const configured = await configure({ issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret });
      assert.equal(configured.status, 200, configured.text);
    });
  });
}
