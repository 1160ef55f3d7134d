// Passkeys (spec/passkeys.tsp) through the HTTP API with a software WebAuthn authenticator
// (test/support/webauthn.ts): registering several from a session, listing and removing them,
// passwordless sign-in, the session it starts, the audit rows, and the refusals (another
// challenge, a replay, an expired challenge, another origin, a bad signature, a cloned
// authenticator, an unverified user, a second registration), each of which changes nothing; and a
// passkey signs in alone where two-step verification is on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi, type TestSession } from './support/api.ts';
import { SoftAuthenticator } from './support/webauthn.ts';
import { setClockOffset } from '../core/platform/index.ts';
import { CHALLENGE_TTL_MS } from '../core/access/index.ts';

after(dropCreatedDatabases);

const ORIGIN = 'https://sitehealth.example';

for (const engine of engines()) {
  describe(`passkeys (${engine})`, () => {
    let api: TestApi;
    let o: Awaited<ReturnType<TestApi['owner']>>;
    let session: TestSession;
    const phone = new SoftAuthenticator();
    const laptop = new SoftAuthenticator();
    const ids: Record<string, string> = {};

    before(async () => {
      api = await TestApi.start(engine, { env: { PUBLIC_URL: ORIGIN } });
      o = await api.owner();
      session = await api.session(o.userId);
    });
    after(() => api.stop());

    /** Registers an authenticator for the session's user and returns the answer. */
    async function register(s: TestSession, authenticator: SoftAuthenticator, name: string, tweak: Parameters<SoftAuthenticator['register']>[1] = {}, challengeId?: string) {
      const opts = await api.call('POST', '/v1/passkey-registration/options', { session: s });
      assert.equal(opts.status, 200, opts.text);
      const response = authenticator.register(opts.body.publicKey, tweak);
      return api.call('POST', '/v1/passkeys', { session: s, body: { challengeId: challengeId ?? opts.body.challengeId, name, response } });
    }

    async function signInOptions() {
      const res = await api.call('POST', '/v1/passkey-sign-in/options');
      assert.equal(res.status, 200, res.text);
      return res.body as { challengeId: string; publicKey: { challenge: string; rpId: string } };
    }

    async function signIn(authenticator: SoftAuthenticator, tweak: Parameters<SoftAuthenticator['authenticate']>[1] = {}) {
      const opts = await signInOptions();
      const body = { challengeId: opts.challengeId, response: authenticator.authenticate(opts.publicKey, tweak) };
      return { body, res: await api.call('POST', '/v1/passkey-sign-in', { body, headers: { 'user-agent': 'passkey-browser/1.0' } }) };
    }

    /** What a refusal must leave as it was. */
    const state = async () => ({
      passkeys: await api.db('passkeys').orderBy('id').select('id', 'counter', 'last_used_at'),
      sessions: Number((await api.db('sessions').count({ n: '*' }))[0].n),
      activity: Number((await api.db('activity').count({ n: '*' }))[0].n),
    });

    it('registers two passkeys from a session, lists them, signs in with one; the session works on /v1 and every step is audited', async () => {
      const first = await api.call('POST', '/v1/passkey-registration/options', { session });
      assert.equal(first.status, 200, first.text);
      const pk = first.body.publicKey;
      assert.deepEqual(pk.rp, { name: 'sitehealth', id: 'sitehealth.example' }, 'the RP ID is the host of PUBLIC_URL');
      assert.equal(pk.attestation, 'none');
      assert.deepEqual(pk.authenticatorSelection, { residentKey: 'required', requireResidentKey: true, userVerification: 'required' });
      assert.equal(pk.user.id, Buffer.from(o.userId.replace(/-/g, ''), 'hex').toString('base64url'), 'the user handle is the user id, no email');
      assert.deepEqual(pk.excludeCredentials, []);

      const a = await api.call('POST', '/v1/passkeys', { session, body: { challengeId: first.body.challengeId, name: 'Phone', response: phone.register(pk) } });
      assert.equal(a.status, 201, a.text);
      ids.phone = a.body.id;
      assert.deepEqual({ ...a.body, id: undefined, createdAt: undefined }, { id: undefined, createdAt: undefined, name: 'Phone', deviceType: 'singleDevice', backedUp: false, transports: ['internal', 'hybrid'], lastUsedAt: null });

      const second = await api.call('POST', '/v1/passkey-registration/options', { session });
      assert.deepEqual(second.body.publicKey.excludeCredentials, [{ id: phone.id, type: 'public-key', transports: ['internal', 'hybrid'] }], 'the registered ones are excluded');
      const b = await api.call('POST', '/v1/passkeys', { session, body: { challengeId: second.body.challengeId, name: 'Laptop', response: laptop.register(second.body.publicKey) } });
      assert.equal(b.status, 201, b.text);
      ids.laptop = b.body.id;

      const listed = await api.call('GET', '/v1/passkeys', { session });
      assert.equal(listed.status, 200);
      assert.deepEqual(listed.body.data.map((p: { name: string }) => p.name), ['Phone', 'Laptop']);
      const stored = await api.db('passkeys').where({ id: ids.laptop }).first();
      assert.equal(stored.credential_id, laptop.id);
      assert.equal(Number(stored.counter), 0);
      assert.ok(stored.public_key.length > 40);
      assert.ok(!listed.text.includes(stored.public_key) && !listed.text.includes(laptop.id), 'neither key nor credential id is shown');

      const { res } = await signIn(laptop);
      assert.equal(res.status, 200, res.text);
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith('sitehealth_session='))!;
      assert.match(cookie, /HttpOnly; SameSite=Lax/);
      assert.match(cookie, /Secure/);
      assert.equal(res.body.status, 'signed_in');
      assert.equal(res.body.me.id, o.userId);
      assert.equal(res.body.me.session.method, 'passkey');
      assert.equal(res.body.me.session.userAgent, 'passkey-browser/1.0');
      const browser: TestSession = { id: res.body.me.session.id, token: /^sitehealth_session=([^;]+)/.exec(cookie)![1], csrfToken: res.body.me.csrfToken };

      // The passkey alone signed in: the session reads and writes on /v1 like any other.
      assert.equal((await api.call('GET', `/v1/workspaces/${o.workspaceId}`, { session: browser })).status, 200);
      const renamed = await api.call('PUT', `/v1/workspaces/${o.workspaceId}`, { session: browser, body: { description: 'signed in with a passkey' } });
      assert.equal(renamed.status, 200, renamed.text);
      const after = (await api.call('GET', '/v1/passkeys', { session: browser })).body.data;
      assert.ok(after.find((p: { id: string }) => p.id === ids.laptop).lastUsedAt, 'the sign-in is recorded on the passkey');
      assert.equal(Number((await api.db('passkeys').where({ id: ids.laptop }).first()).counter), 1, 'the signature counter is stored');

      const rows = (await api.call('GET', '/v1/activity', { session: browser, query: { kind: 'security', limit: 100 } })).body.data as Array<{ action: string; actor: { id: string }; target: { id: string }; details: Record<string, unknown> }>;
      const added = rows.filter((r) => r.action === 'passkey.added');
      assert.deepEqual(added.map((r) => r.details.name).sort(), ['Laptop', 'Phone']);
      assert.ok(added.every((r) => r.actor.id === session.id && r.target.id === o.userId), 'made by the registering session, about the user');
      const signedIn = rows.find((r) => r.action === 'session.signed_in' && r.actor.id === browser.id)!;
      assert.equal(signedIn.details.method, 'passkey');
      const text = JSON.stringify(rows);
      assert.ok(!text.includes(stored.public_key) && !text.includes(laptop.id) && !text.includes(phone.id), 'no key material in the audit trail');
    });

    it('a removed passkey no longer signs in; the other one still does; another user cannot see or remove them', async () => {
      const stranger = await api.session((await api.user()).userId);
      assert.deepEqual((await api.call('GET', '/v1/passkeys', { session: stranger })).body.data, []);
      assert.equal((await api.call('DELETE', `/v1/passkeys/${ids.laptop}`, { session: stranger })).status, 404);

      const removed = await api.call('DELETE', `/v1/passkeys/${ids.phone}`, { session });
      assert.equal(removed.status, 204, removed.text);
      assert.equal((await api.call('DELETE', `/v1/passkeys/${ids.phone}`, { session })).status, 404);
      assert.deepEqual((await api.call('GET', '/v1/passkeys', { session })).body.data.map((p: { name: string }) => p.name), ['Laptop']);

      const before = await state();
      const { res } = await signIn(phone);
      assert.equal(res.status, 401, res.text);
      assert.equal(res.body.code, 'passkey_rejected');
      assert.equal(res.headers.get('set-cookie'), null);
      assert.deepEqual(await state(), before, 'a refusal starts no session and writes nothing');
      assert.equal((await signIn(laptop)).res.status, 200);

      const row = await api.db('activity').where({ action: 'passkey.removed', target_id: o.userId }).first();
      assert.equal(row.actor_id, session.id);
      assert.match(typeof row.details === 'string' ? row.details : JSON.stringify(row.details), /"name":"Phone"/);
    });

    it('an answer for another challenge, a replayed answer and an expired challenge are refused and change nothing', async () => {
      const mine = await signInOptions();
      const other = await signInOptions();
      let before = await state();
      const crossed = await api.call('POST', '/v1/passkey-sign-in', { body: { challengeId: mine.challengeId, response: laptop.authenticate(other.publicKey) } });
      assert.equal(crossed.status, 400);
      assert.equal(crossed.body.code, 'passkey_challenge_invalid');
      assert.match(crossed.body.detail, /another challenge/);
      assert.deepEqual(await state(), before);

      const { body, res } = await signIn(laptop);
      assert.equal(res.status, 200, res.text);
      before = await state();
      const replayed = await api.call('POST', '/v1/passkey-sign-in', { body });
      assert.equal(replayed.status, 400);
      assert.equal(replayed.body.code, 'passkey_challenge_invalid');
      assert.match(replayed.body.detail, /answered already/);
      assert.deepEqual(await state(), before, 'a replay starts no session');

      const late = await signInOptions();
      setClockOffset(CHALLENGE_TTL_MS + 1000);
      try {
        const expired = await api.call('POST', '/v1/passkey-sign-in', { body: { challengeId: late.challengeId, response: laptop.authenticate(late.publicKey) } });
        assert.equal(expired.status, 400);
        assert.equal(expired.body.code, 'passkey_challenge_invalid');
        assert.match(expired.body.detail, /expired/);
      } finally {
        setClockOffset(0);
      }
      const unknown = await api.call('POST', '/v1/passkey-sign-in', { body: { challengeId: '01900000-0000-7000-8000-0000000000ff', response: laptop.authenticate(late.publicKey) } });
      assert.equal(unknown.body.code, 'passkey_challenge_invalid');
      assert.deepEqual(await state(), before);
    });

    it('another origin or RP, a bad signature, no user verification and a cloned authenticator are refused at sign-in', async () => {
      const before = await state();
      for (const [label, tweak] of [
        ['another origin', { origin: 'https://evil.example' }],
        ['another RP ID', { rpId: 'evil.example' }],
        ['no user verification', { userVerified: false }],
      ] as const) {
        const { res } = await signIn(laptop, tweak);
        assert.equal(res.status, 401, `${label}: ${res.text}`);
        assert.equal(res.body.code, 'passkey_rejected', label);
      }
      const opts = await signInOptions();
      const answer = laptop.authenticate(opts.publicKey);
      const sig = Buffer.from(answer.response.signature, 'base64url');
      sig[sig.length - 1] ^= 0x01;
      const forged = await api.call('POST', '/v1/passkey-sign-in', { body: { challengeId: opts.challengeId, response: { ...answer, response: { ...answer.response, signature: sig.toString('base64url') } } } });
      assert.equal(forged.status, 401);
      assert.equal(forged.body.code, 'passkey_rejected');

      // A clone of the authenticator replays an old counter value: refused, the stored one stays.
      const stored = Number((await api.db('passkeys').where({ id: ids.laptop }).first()).counter);
      laptop.counter = stored - 2;
      const { res } = await signIn(laptop);
      assert.equal(res.status, 401);
      assert.match(res.body.detail, /counter/);
      assert.deepEqual(await state(), before);
      laptop.counter = stored + 5;
      assert.equal((await signIn(laptop)).res.status, 200, 'the real authenticator goes on');

      // A passkey is both factors: with two-step verification on (its setup is test/sign-in.test.ts's),
      // the passkey still signs in alone, where the password would answer two_step_required.
      await api.db('users').where({ id: o.userId }).update({ two_step_enabled_at: Date.now() });
      const { res: withTwoStep } = await signIn(laptop);
      assert.equal(withTwoStep.status, 200, withTwoStep.text);
      assert.equal(withTwoStep.body.status, 'signed_in');
      assert.equal(withTwoStep.body.me.twoStep.enabled, true);
    });

    it('registration refuses another challenge, another user\'s challenge, a replay, no user verification, another origin and a second registration', async () => {
      const other = await api.session((await api.user()).userId);
      const key = new SoftAuthenticator();
      const before = await state();
      const mine = await api.call('POST', '/v1/passkey-registration/options', { session });
      const theirs = await api.call('POST', '/v1/passkey-registration/options', { session: other });
      const crossed = await api.call('POST', '/v1/passkeys', { session, body: { challengeId: mine.body.challengeId, name: 'Key', response: key.register(theirs.body.publicKey) } });
      assert.equal(crossed.status, 400);
      assert.equal(crossed.body.code, 'passkey_challenge_invalid');
      const stolen = await api.call('POST', '/v1/passkeys', { session, body: { challengeId: theirs.body.challengeId, name: 'Key', response: key.register(theirs.body.publicKey) } });
      assert.equal(stolen.status, 400, "another user's challenge is unknown to this user");
      assert.equal(stolen.body.code, 'passkey_challenge_invalid');

      for (const [label, tweak] of [['no user verification', { userVerified: false }], ['another origin', { origin: 'https://evil.example' }]] as const) {
        const res = await register(session, key, 'Key', tweak);
        assert.equal(res.status, 400, `${label}: ${res.text}`);
        assert.equal(res.body.code, 'passkey_invalid', label);
      }
      const afterRefusals = await state();
      assert.deepEqual({ ...afterRefusals, activity: 0 }, { ...before, activity: 0 });
      assert.equal(afterRefusals.activity, before.activity, 'no audit row for a refusal');

      const opts = await api.call('POST', '/v1/passkey-registration/options', { session });
      const body = { challengeId: opts.body.challengeId, name: 'Key', response: key.register(opts.body.publicKey) };
      assert.equal((await api.call('POST', '/v1/passkeys', { session, body })).status, 201);
      const replayed = await api.call('POST', '/v1/passkeys', { session, body });
      assert.equal(replayed.status, 400);
      assert.equal(replayed.body.code, 'passkey_challenge_invalid');
      const again = await register(session, key, 'Key again');
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'passkey_exists');

      const viaKey = await api.call('GET', '/v1/passkeys', { key: o.apiKey });
      assert.equal(viaKey.status, 403);
      assert.equal(viaKey.body.code, 'session_required');
    });
  });
}
