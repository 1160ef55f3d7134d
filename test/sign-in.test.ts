// People signing in (spec/sign-in.tsp): an invitation mailed over real SMTP and accepted with a
// password, password sign-in, the session as a credential on /v1 with CSRF, devices, password
// change and reset, email verification, brute-force throttling, and the audit rows of each.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi, uniqueEmail } from './support/api.ts';
import { startSmtp } from './support/smtp.ts';
import crypto from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { main as admin } from '../admin/admin.ts';

after(dropCreatedDatabases);

const PASSWORD = 'correct horse battery';

for (const engine of engines()) {
  describe(`people sign in (${engine})`, () => {
    let api: TestApi;
    let smtp: Awaited<ReturnType<typeof startSmtp>>;
    let o: Awaited<ReturnType<TestApi['owner']>>;

    before(async () => {
      smtp = await startSmtp();
      api = await TestApi.start(engine, { env: { SMTP_URL: smtp.url, PUBLIC_URL: 'https://sitehealth.example', SECRETS_KEY: crypto.randomBytes(32).toString('base64') } });
      o = await api.owner();
    });
    after(async () => {
      await api.stop();
      await smtp.close();
    });

    const lastMailTo = (email: string) => smtp.received.filter((m) => m.envelope.to.includes(email)).at(-1);
    const tokenIn = (text: string, prefix: string) => new RegExp(`${prefix}[A-Za-z0-9_-]{43}`).exec(text)?.[0];

    /** A signed-in browser: its cookie and CSRF token, and calls made with them. */
    async function signIn(email: string, password = PASSWORD, userAgent = 'test-browser/1.0') {
      const res = await api.call('POST', '/v1/sessions', { body: { email, password }, headers: { 'user-agent': userAgent } });
      assert.equal(res.status, 200, res.text);
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith('sitehealth_session='))!;
      assert.match(cookie, /HttpOnly/);
      assert.match(cookie, /SameSite=Lax/);
      assert.match(cookie, /Secure/, 'Secure outside loopback');
      const token = /^sitehealth_session=([^;]+)/.exec(cookie)![1];
      const csrf = res.body.me.csrfToken as string;
      const call = (method: string, path: string, opts: { body?: unknown; query?: Record<string, string | number>; csrf?: boolean; headers?: Record<string, string> } = {}) =>
        api.call(method, path, { body: opts.body, query: opts.query, headers: { cookie: `sitehealth_session=${token}`, 'user-agent': userAgent, ...(opts.csrf === false ? {} : { 'x-csrf-token': csrf }), ...opts.headers } });
      return { token, csrf, me: res.body.me, call };
    }

    /** A user invited over SMTP who accepted with a password. */
    async function invitee(role: 'admin' | 'member' | 'viewer' = 'member') {
      const email = uniqueEmail('person');
      const sent = await api.call('POST', `/v1/workspaces/${o.workspaceId}/invitations`, { key: o.apiKey, body: { email, role } });
      assert.equal(sent.status, 201, sent.text);
      const token = tokenIn(String(lastMailTo(email)!.mail.text), 'shinv_')!;
      const accepted = await api.call('POST', '/v1/invitations/accept', { body: { token, password: PASSWORD } });
      assert.equal(accepted.status, 200, accepted.text);
      assert.equal(accepted.body.passwordSet, true);
      return { email, userId: accepted.body.userId as string };
    }

    const securityRows = async (browser: Awaited<ReturnType<typeof signIn>>) => {
      const res = await browser.call('GET', '/v1/activity', { query: { kind: 'security', limit: 100 } });
      assert.equal(res.status, 200, res.text);
      return res.body.data as Array<{ action: string; actor: { type: string; id: string | null; label: string | null }; target: { type: string; id: string } | null; details: Record<string, unknown> }>;
    };

    it('an invited person sets a password on accepting, signs in, and the session works on /v1 with CSRF', async () => {
      const p = await invitee('member');
      const browser = await signIn(p.email.toUpperCase());
      assert.equal(browser.me.email, p.email);
      assert.equal(browser.me.emailVerified, true, 'accepting a mailed invitation proves the address');
      assert.equal(browser.me.session.current, true);
      assert.equal(browser.me.session.method, 'password');
      assert.equal(browser.me.session.userAgent, 'test-browser/1.0');

      const stored = await api.db('sessions').where({ id: browser.me.session.id }).first();
      assert.notEqual(stored.token_hash, browser.token, 'only a digest is stored');
      assert.ok(!JSON.stringify(stored).includes(browser.token));
      const user = await api.db('users').where({ id: p.userId }).first();
      assert.match(user.password_hash, /^scrypt\$32768\$8\$1\$/);

      // Reads with the cookie: the member's workspace, with the member's role.
      const ws = await browser.call('GET', `/v1/workspaces/${o.workspaceId}`, { csrf: false });
      assert.equal(ws.status, 200, ws.text);
      const me = await browser.call('GET', '/v1/me', { csrf: false });
      assert.equal(me.body.csrfToken, browser.csrf);

      // A state-changing request without the CSRF token changes nothing; a cross-site form post neither.
      const before = (await api.call('GET', '/v1/api-keys', { key: o.apiKey })).body.data.length;
      const noCsrf = await browser.call('POST', '/v1/api-keys', { body: { name: 'ci', scopes: ['deploys'] }, csrf: false });
      assert.equal(noCsrf.status, 403);
      assert.equal(noCsrf.body.code, 'csrf_failed');
      const form = await api.call('POST', '/v1/deploys', {
        rawBody: 'commitSha=abc1234',
        headers: { cookie: `sitehealth_session=${browser.token}`, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      });
      assert.equal(form.status, 403);
      assert.equal(form.body.code, 'csrf_failed');
      const wrong = await browser.call('POST', '/v1/api-keys', { body: { name: 'ci', scopes: ['deploys'] }, headers: { 'x-csrf-token': browser.csrf.slice(0, -1) + 'x' } });
      assert.equal(wrong.status, 403);
      assert.equal((await browser.call('GET', '/v1/api-keys', { csrf: false })).body.data.length, 0);
      assert.equal((await api.call('GET', '/v1/api-keys', { key: o.apiKey })).body.data.length, before);

      // With it, the person creates their own key: the session holds every scope, the role limits it.
      const key = await browser.call('POST', '/v1/api-keys', { body: { name: 'ci', scopes: ['deploys', 'search'], workspaceId: o.workspaceId } });
      assert.equal(key.status, 201, key.text);
      const deploy = await api.call('POST', '/v1/deploys', { key: key.body.key, body: { workspaceId: o.workspaceId, commitSha: 'abc1234', environment: 'staging' } });
      assert.equal(deploy.status, 201, deploy.text);
      const update = await browser.call('PUT', `/v1/workspaces/${o.workspaceId}`, { body: { name: 'renamed by a member' } });
      assert.equal(update.status, 403, 'a member may not update the workspace');

      // Session-only operations refuse API keys.
      const viaKey = await api.call('GET', '/v1/me', { key: o.apiKey });
      assert.equal(viaKey.status, 403);
      assert.equal(viaKey.body.code, 'session_required');

      const rows = await securityRows(browser);
      const signedIn = rows.find((r) => r.action === 'session.signed_in' && r.actor.id === browser.me.session.id)!;
      assert.ok(signedIn, 'session.signed_in is in the feed at once');
      assert.deepEqual(signedIn.actor, { type: 'session', id: browser.me.session.id, label: p.email });
      assert.deepEqual(signedIn.target, { type: 'user', id: p.userId });
      assert.equal(signedIn.details.method, 'password');
      assert.equal(signedIn.details.user_agent, 'test-browser/1.0');
      const created = rows.find((r) => r.action === 'api_key.created' && r.target?.id === key.body.id)!;
      assert.deepEqual(created.actor, { type: 'session', id: browser.me.session.id, label: p.email }, 'a change made from a session names the device');
      assert.ok(!JSON.stringify(rows).includes(browser.token) && !JSON.stringify(rows).includes(PASSWORD));
    });

    it("a removed member's session loses the workspace on its very next request", async () => {
      const p = await invitee('admin');
      const browser = await signIn(p.email);
      assert.equal((await browser.call('GET', `/v1/workspaces/${o.workspaceId}`)).status, 200);
      const removed = await api.call('DELETE', `/v1/workspaces/${o.workspaceId}/members/${p.userId}`, { key: o.apiKey });
      assert.equal(removed.status, 204, removed.text);
      const hidden = await browser.call('GET', `/v1/workspaces/${o.workspaceId}`);
      assert.equal(hidden.status, 404);
      assert.equal((await browser.call('PUT', `/v1/workspaces/${o.workspaceId}`, { body: { name: 'hijacked' } })).status, 404);
      assert.equal((await browser.call('GET', '/v1/me')).status, 200, 'the person is still signed in');
    });

    it('a wrong password and an unknown email get the same answer; failures are throttled per email, then audited', async () => {
      const p = await invitee('viewer');
      const wrong = await api.call('POST', '/v1/sessions', { body: { email: p.email, password: 'not the password' } });
      const unknown = await api.call('POST', '/v1/sessions', { body: { email: uniqueEmail('nobody'), password: 'not the password' } });
      assert.equal(wrong.status, 401);
      assert.equal(unknown.status, 401);
      assert.equal(wrong.body.code, 'invalid_credentials');
      assert.deepEqual({ ...wrong.body, instance: undefined }, { ...unknown.body, instance: undefined });
      assert.equal(wrong.headers.get('set-cookie'), null);

      for (let i = 1; i < 10; i++) assert.equal((await api.call('POST', '/v1/sessions', { body: { email: p.email, password: `wrong ${i}` } })).status, 401);
      const throttled = await api.call('POST', '/v1/sessions', { body: { email: p.email, password: PASSWORD } });
      assert.equal(throttled.status, 429, 'even the right password waits for the window');
      assert.equal(throttled.body.code, 'sign_in_throttled');
      assert.ok(Number(throttled.headers.get('retry-after')) > 0);

      const rows = await api.db('activity').where({ action: 'sign_in.throttled', target_id: p.userId });
      assert.equal(rows.length, 1, 'written once, when the limit is reached');
      // Let the person in again for the rest of this file: the window is over.
      await api.db('sign_in_failures').del();
      const browser = await signIn(p.email);
      assert.ok((await securityRows(browser)).some((r) => r.action === 'sign_in.throttled' && r.target?.id === p.userId));
    });

    it('concurrent guesses never pass the limit: 30 wrong passwords at once get 10 answers of 401 and 20 of 429', async () => {
      const p = await invitee('viewer');
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => api.call('POST', '/v1/sessions', { body: { email: p.email, password: `guess ${i}` } })));
      const statuses = answers.map((a) => a.status).sort();
      assert.deepEqual([statuses.filter((x) => x === 401).length, statuses.filter((x) => x === 429).length], [10, 20]);
      assert.equal((await api.db('activity').where({ action: 'sign_in.throttled', target_id: p.userId })).length, 1);
    });

    it('devices: each sign-in is listed; one is revoked, the others go on; sign-out ends the session and clears the cookie', async () => {
      const p = await invitee('member');
      const laptop = await signIn(p.email, PASSWORD, 'laptop/1');
      const phone = await signIn(p.email, PASSWORD, 'phone/2');
      const tablet = await signIn(p.email, PASSWORD, 'tablet/3');
      const listed = await laptop.call('GET', '/v1/sessions');
      assert.deepEqual(listed.body.data.map((s: any) => [s.userAgent, s.current]), [['tablet/3', false], ['phone/2', false], ['laptop/1', true]]);

      const revoked = await laptop.call('DELETE', `/v1/sessions/${phone.me.session.id}`);
      assert.equal(revoked.status, 204);
      const after = await phone.call('GET', '/v1/me');
      assert.equal(after.status, 401, 'refused on the very next request');
      assert.equal((await laptop.call('DELETE', `/v1/sessions/${phone.me.session.id}`)).status, 404, 'an ended session is gone');
      const stranger = await signIn((await invitee()).email);
      assert.equal((await stranger.call('DELETE', `/v1/sessions/${laptop.me.session.id}`)).status, 404, "another user's session is not found");

      const others = await tablet.call('POST', '/v1/me/sign-out-others');
      assert.equal(others.status, 200);
      assert.equal(others.body.revoked, 1);
      assert.equal((await laptop.call('GET', '/v1/me')).status, 401);

      const out = await tablet.call('DELETE', `/v1/sessions/${tablet.me.session.id}`);
      assert.equal(out.status, 204);
      assert.match(out.headers.get('set-cookie') ?? '', /^sitehealth_session=; .*Max-Age=0/);
      const reused = await tablet.call('GET', '/v1/workspaces');
      assert.equal(reused.status, 401, 'a session used after sign-out is refused');
      const rows = await api.db('activity').where({ action: 'session.revoked', target_id: p.userId });
      assert.equal(rows.length, 3);
    });

    it('changing the password needs the current one and signs out every other device', async () => {
      const p = await invitee('member');
      const a = await signIn(p.email, PASSWORD, 'a');
      const b = await signIn(p.email, PASSWORD, 'b');
      const wrong = await a.call('PUT', '/v1/me/password', { body: { currentPassword: 'nope nope nope', newPassword: 'a brand new password' } });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.code, 'invalid_credentials');
      const short = await a.call('PUT', '/v1/me/password', { body: { currentPassword: PASSWORD, newPassword: 'short' } });
      assert.equal(short.status, 400);
      const changed = await a.call('PUT', '/v1/me/password', { body: { currentPassword: PASSWORD, newPassword: 'a brand new password' } });
      assert.equal(changed.status, 204, changed.text);
      assert.equal((await a.call('GET', '/v1/me')).status, 200, 'the session that changed it stays');
      assert.equal((await b.call('GET', '/v1/me')).status, 401, 'every other session ends');
      assert.equal((await api.call('POST', '/v1/sessions', { body: { email: p.email, password: PASSWORD } })).status, 401);
      await signIn(p.email, 'a brand new password');
      assert.ok((await securityRows(a)).some((r) => r.action === 'password.changed' && r.actor.id === a.me.session.id));
    });

    it('a password reset link arrives by SMTP, works once, ends every session; unknown emails get the same 202', async () => {
      const p = await invitee('member');
      const browser = await signIn(p.email);
      const mailsBefore = smtp.received.length;
      const nobody = await api.call('POST', '/v1/password-reset', { body: { email: uniqueEmail('nobody') } });
      assert.equal(nobody.status, 202);
      const asked = await api.call('POST', '/v1/password-reset', { body: { email: p.email } });
      assert.equal(asked.status, 202);
      assert.equal(smtp.received.length, mailsBefore + 1, 'mail only for a registered address');
      const mail = lastMailTo(p.email)!;
      const token = tokenIn(String(mail.mail.text), 'shrst_')!;
      assert.ok(String(mail.mail.text).includes(`https://sitehealth.example/reset-password#token=${token}`));

      const tampered = await api.call('POST', '/v1/password-reset/complete', { body: { token: token.slice(0, -2) + 'xx', password: 'reset password 1' } });
      assert.equal(tampered.status, 400);
      assert.equal(tampered.body.code, 'link_invalid');
      assert.equal((await browser.call('GET', '/v1/me')).status, 200, 'a tampered link changes nothing');

      const done = await api.call('POST', '/v1/password-reset/complete', { body: { token, password: 'reset password 1' } });
      assert.equal(done.status, 204, done.text);
      assert.equal((await browser.call('GET', '/v1/me')).status, 401, 'every session ends');
      const reused = await api.call('POST', '/v1/password-reset/complete', { body: { token, password: 'reset password 2' } });
      assert.equal(reused.status, 400);
      assert.equal(reused.body.code, 'link_invalid');
      const again = await signIn(p.email, 'reset password 1');
      assert.ok((await securityRows(again)).some((r) => r.action === 'password.reset' && r.target?.id === p.userId));

      // An expired link (its time moved back, as an hour passing would) changes nothing.
      await api.db('email_tokens').where({ user_id: p.userId }).del();
      await api.call('POST', '/v1/password-reset', { body: { email: p.email } });
      const late = tokenIn(String(lastMailTo(p.email)!.mail.text), 'shrst_')!;
      await api.db('email_tokens').where({ user_id: p.userId }).update({ expires_at: Date.now() - 1 });
      const expired = await api.call('POST', '/v1/password-reset/complete', { body: { token: late, password: 'reset password 3' } });
      assert.equal(expired.status, 400);
      assert.match(expired.body.detail, /expired/);
      await signIn(p.email, 'reset password 1');
    });

    it('an address is verified by a mailed single-use link', async () => {
      const u = await api.user({ accountId: o.accountId });
      const email = (await api.db('users').where({ id: u.userId }).first()).email;
      await admin(['users', 'set-password', '--email', email, '--json'], { ...process.env, DATABASE_URL: api.dbUrl }, { out: () => {}, err: () => {} });
      const generated = await api.db('users').where({ id: u.userId }).first();
      assert.ok(generated.password_hash, 'the operator CLI set a password');
      const reset = await api.call('POST', '/v1/password-reset', { body: { email } });
      assert.equal(reset.status, 202);
      await api.call('POST', '/v1/password-reset/complete', { body: { token: tokenIn(String(lastMailTo(email)!.mail.text), 'shrst_')!, password: PASSWORD } });
      await api.db('users').where({ id: u.userId }).update({ email_verified_at: null });
      const browser = await signIn(email);
      assert.equal(browser.me.emailVerified, false);
      assert.equal((await browser.call('POST', '/v1/me/email-verification')).status, 202);
      const token = tokenIn(String(lastMailTo(email)!.mail.text), 'shver_')!;
      assert.equal((await api.call('POST', '/v1/email-verification/complete', { body: { token } })).status, 204);
      assert.equal((await browser.call('GET', '/v1/me')).body.emailVerified, true);
      const reused = await api.call('POST', '/v1/email-verification/complete', { body: { token } });
      assert.equal(reused.status, 400);
      assert.equal(reused.body.code, 'link_invalid');
      const actions = (await securityRows(browser)).filter((r) => r.target?.id === u.userId).map((r) => r.action);
      for (const a of ['password.set_by_operator', 'password.reset', 'email.verified']) assert.ok(actions.includes(a), a);
    });

    it('two-step: TOTP set up with a confirmed code, then every sign-in needs a fresh code or a recovery code, each once', async () => {
      const p = await invitee('member');
      const browser = await signIn(p.email);
      const setup = await browser.call('POST', '/v1/me/two-step');
      assert.equal(setup.status, 200, setup.text);
      assert.match(setup.body.otpauthUrl, /^otpauth:\/\/totp\/sitehealth:.*secret=/);
      const totp = new TOTP({ secret: Secret.fromBase32(setup.body.secret), digits: 6, period: 30, algorithm: 'SHA1' });
      const stored = await api.db('users').where({ id: p.userId }).first();
      assert.ok(!JSON.stringify(stored).includes(setup.body.secret), 'the secret is sealed at rest');

      const wrong = await browser.call('POST', '/v1/me/two-step/confirm', { body: { code: String((Number(totp.generate()) + 1) % 1_000_000).padStart(6, '0') } });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.code, 'invalid_two_step_code');
      const confirmCode = totp.generate();
      const confirmed = await browser.call('POST', '/v1/me/two-step/confirm', { body: { code: confirmCode } });
      assert.equal(confirmed.status, 200, confirmed.text);
      const codes = confirmed.body.recoveryCodes as string[];
      assert.equal(codes.length, 10);
      assert.equal(new Set(codes).size, 10);
      const me = await browser.call('GET', '/v1/me');
      assert.equal(me.body.twoStep.enabled, true);
      assert.equal(me.body.twoStep.recoveryCodesLeft, 10);
      assert.equal((await browser.call('POST', '/v1/me/two-step')).body.code, 'two_step_enabled');

      // The password alone no longer signs in: a challenge, no cookie.
      const first = async () => {
        const res = await api.call('POST', '/v1/sessions', { body: { email: p.email, password: PASSWORD } });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.status, 'two_step_required');
        assert.equal(res.headers.get('set-cookie'), null);
        return res.body.challenge as string;
      };
      const challenge = await first();
      // The code that confirmed the setup was used: the same code again is refused.
      const replayed = await api.call('POST', '/v1/two-step-sign-in', { body: { challenge, code: confirmCode } });
      assert.equal(replayed.status, 401);
      assert.equal(replayed.body.code, 'invalid_two_step_code');
      const next = totp.generate({ timestamp: Date.now() + 30_000 });
      const done = await api.call('POST', '/v1/two-step-sign-in', { body: { challenge, code: next } });
      assert.equal(done.status, 200, done.text);
      assert.equal(done.body.status, 'signed_in');
      assert.match(done.headers.get('set-cookie') ?? '', /^sitehealth_session=shs_/);
      const used = await api.call('POST', '/v1/two-step-sign-in', { body: { challenge, code: next } });
      assert.equal(used.body.code, 'two_step_expired', 'a challenge works once');
      const again = await api.call('POST', '/v1/two-step-sign-in', { body: { challenge: await first(), code: next } });
      assert.equal(again.body.code, 'invalid_two_step_code', 'a code works once, even within its 30 seconds');

      // A recovery code, once, with or without dashes and in any case.
      const both = await api.call('POST', '/v1/two-step-sign-in', { body: { challenge: await first(), code: next, recoveryCode: codes[0] } });
      assert.equal(both.status, 400);
      const recovered = await api.call('POST', '/v1/two-step-sign-in', { body: { challenge: await first(), recoveryCode: codes[0].replace(/-/g, '').toLowerCase() } });
      assert.equal(recovered.status, 200, recovered.text);
      assert.equal(recovered.body.me.twoStep.recoveryCodesLeft, 9);
      const reusedCode = await api.call('POST', '/v1/two-step-sign-in', { body: { challenge: await first(), recoveryCode: codes[0] } });
      assert.equal(reusedCode.body.code, 'invalid_two_step_code');

      // Turning it off needs the password; then the password alone signs in again.
      assert.equal((await browser.call('POST', '/v1/me/two-step/disable', { body: { password: 'not my password' } })).status, 401);
      const regenerated = await browser.call('POST', '/v1/me/two-step/recovery-codes', { body: { password: PASSWORD } });
      assert.equal(regenerated.status, 200);
      assert.equal((await api.call('POST', '/v1/two-step-sign-in', { body: { challenge: await first(), recoveryCode: codes[1] } })).body.code, 'invalid_two_step_code', 'old codes stop working');
      assert.equal((await browser.call('POST', '/v1/me/two-step/disable', { body: { password: PASSWORD } })).status, 204);
      await api.db('sign_in_failures').del();
      const plain = await signIn(p.email);
      assert.equal(plain.me.twoStep.enabled, false);

      const rows = (await securityRows(plain)).filter((r) => r.target?.id === p.userId);
      for (const a of ['two_step.enabled', 'recovery_code.used', 'recovery_codes.regenerated', 'two_step.disabled']) assert.ok(rows.some((r) => r.action === a), a);
      const text = JSON.stringify(rows);
      assert.ok(!text.includes(setup.body.secret) && !codes.some((c) => text.includes(c)) && !text.includes(next), 'no secret, code or recovery code in the audit');
    });

    it('two-step: wrong codes end the challenge after 5; the operator can reset two-step for recovery', async () => {
      const p = await invitee('viewer');
      const browser = await signIn(p.email);
      const setup = await browser.call('POST', '/v1/me/two-step');
      const totp = new TOTP({ secret: Secret.fromBase32(setup.body.secret), digits: 6, period: 30, algorithm: 'SHA1' });
      assert.equal((await browser.call('POST', '/v1/me/two-step/confirm', { body: { code: totp.generate() } })).status, 200);
      const { body } = await api.call('POST', '/v1/sessions', { body: { email: p.email, password: PASSWORD } });
      const valid = new Set([-1, 0, 1].map((d) => totp.generate({ timestamp: Date.now() + d * 30_000 })));
      const wrongCode = ['000000', '111111', '222222', '333333', '444444', '555555', '666666'].filter((c) => !valid.has(c));
      for (let i = 0; i < 5; i++) assert.equal((await api.call('POST', '/v1/two-step-sign-in', { body: { challenge: body.challenge, code: wrongCode[i] } })).body.code, 'invalid_two_step_code');
      const ended = await api.call('POST', '/v1/two-step-sign-in', { body: { challenge: body.challenge, code: totp.generate({ timestamp: Date.now() + 30_000 }) } });
      assert.equal(ended.status, 401);
      assert.equal(ended.body.code, 'two_step_expired');

      let out = '';
      const code = await admin(['users', 'reset-two-step', '--email', p.email, '--json'], { ...process.env, DATABASE_URL: api.dbUrl }, { out: (t) => (out += t), err: () => {} });
      assert.equal(code, 0);
      assert.equal(JSON.parse(out).userId, p.userId);
      await api.db('sign_in_failures').del();
      const after = await signIn(p.email);
      assert.equal(after.me.twoStep.enabled, false);
      assert.ok((await securityRows(after)).some((r) => r.action === 'two_step.reset_by_operator' && r.target?.id === p.userId && r.actor.type === 'system'));
    });
  });
}
