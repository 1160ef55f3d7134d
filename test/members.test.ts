// Members and invitations over the API (spec/members.tsp, docs/api.md#members-and-invitations):
// roles and the owner rules, the last owner, an invitation mailed over real SMTP and accepted with
// its single-use token, every refusal changing nothing, and the audit rows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SiteHealth, ConflictError } from '@sitehealth/sdk';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi, uniqueEmail } from './support/api.ts';
import { startSmtp } from './support/smtp.ts';

after(dropCreatedDatabases);

const TOKEN = /shinv_[A-Za-z0-9_-]{43}/;

for (const engine of engines()) {
  describe(`members and invitations (${engine})`, () => {
    let api: TestApi;
    let smtp: Awaited<ReturnType<typeof startSmtp>>;
    let o: Awaited<ReturnType<TestApi['owner']>>;

    before(async () => {
      smtp = await startSmtp();
      api = await TestApi.start(engine, { env: { SMTP_URL: smtp.url, MAIL_FROM: 'sitehealth <team@sitehealth.example>', PUBLIC_URL: 'https://sitehealth.example' } });
      o = await api.owner();
    });
    after(async () => {
      await api.stop();
      await smtp.close();
    });

    const members = (ws = o.workspaceId, key = o.apiKey) => api.call('GET', `/v1/workspaces/${ws}/members`, { key });
    const security = async () => (await api.call('GET', '/v1/activity', { key: o.apiKey, query: { workspace_id: o.workspaceId, kind: 'security', limit: 100 } })).body.data as any[];
    const person = async (role: 'owner' | 'admin' | 'member' | 'viewer') => {
      const u = await api.user({ accountId: o.accountId });
      await api.member(o.workspaceId, u.userId, role);
      return { ...u, apiKey: (await api.key(u.userId)).apiKey };
    };

    it('an invitation is mailed over SMTP with a single-use token, accepted once, and the new member appears', async () => {
      const email = uniqueEmail('invitee');
      const res = await api.call('POST', `/v1/workspaces/${o.workspaceId}/invitations`, { key: o.apiKey, body: { email: email.toUpperCase(), role: 'member' } });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.email, email);
      assert.equal(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt), 7 * 24 * 3600_000);
      assert.ok(!TOKEN.test(res.text), 'the token is never in an API answer');

      const mail = smtp.received.at(-1)!;
      assert.deepEqual(mail.envelope.to, [email]);
      assert.match(String(mail.mail.subject), /invited to/);
      const token = TOKEN.exec(String(mail.mail.text))![0];
      assert.ok(String(mail.mail.text).includes(`https://sitehealth.example/invitations/accept#token=${token}`));

      const listed = await api.call('GET', `/v1/workspaces/${o.workspaceId}/invitations`, { key: o.apiKey });
      assert.deepEqual(listed.body.data.map((i: any) => i.id), [res.body.id]);
      assert.ok(!TOKEN.test(listed.text));
      const stored = await api.db('invitations').where({ id: res.body.id }).first();
      assert.ok(!JSON.stringify(stored).includes(token), 'stored as a digest only');

      // Tampered, then the real one (no API key), then reused.
      const tampered = await api.call('POST', '/v1/invitations/accept', { body: { token: token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A') } });
      assert.equal(tampered.status, 404);
      const accepted = await api.call('POST', '/v1/invitations/accept', { body: { token } });
      assert.equal(accepted.status, 200, accepted.text);
      assert.equal(accepted.body.email, email);
      assert.equal(accepted.body.role, 'member');
      assert.equal(accepted.body.userCreated, true);
      const reused = await api.call('POST', '/v1/invitations/accept', { body: { token } });
      assert.equal(reused.status, 409);
      assert.equal(reused.body.code, 'invitation_used');

      const after = await members();
      const joined = after.body.data.find((m: any) => m.email === email);
      assert.equal(joined.role, 'member');
      assert.equal(joined.userId, accepted.body.userId);
      assert.deepEqual((await api.call('GET', `/v1/workspaces/${o.workspaceId}/invitations`, { key: o.apiKey })).body.data, []);

      const rows = (await security()).filter((r) => r.target?.id === res.body.id || r.target?.id === accepted.body.userId);
      assert.deepEqual(rows.map((r) => r.action).sort(), ['invitation.accepted', 'invitation.sent', 'member.joined']);
      assert.ok(!JSON.stringify(rows).includes(token));
      const sent = rows.find((r) => r.action === 'invitation.sent');
      assert.equal(sent.actor.type, 'api_key');
      assert.equal(sent.details.role, 'member');

      // Inviting a member is a conflict.
      const again = await api.call('POST', `/v1/workspaces/${o.workspaceId}/invitations`, { key: o.apiKey, body: { email, role: 'viewer' } });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'member_exists');
    });

    it('an expired or withdrawn token changes nothing; a new invitation replaces the pending one', async () => {
      const email = uniqueEmail('later');
      const first = await api.call('POST', `/v1/workspaces/${o.workspaceId}/invitations`, { key: o.apiKey, body: { email, role: 'viewer' } });
      const firstToken = TOKEN.exec(String(smtp.received.at(-1)!.mail.text))![0];
      const second = await api.call('POST', `/v1/workspaces/${o.workspaceId}/invitations`, { key: o.apiKey, body: { email, role: 'member' } });
      const secondToken = TOKEN.exec(String(smtp.received.at(-1)!.mail.text))![0];
      assert.equal((await api.call('POST', '/v1/invitations/accept', { body: { token: firstToken } })).status, 404, 'replaced');

      assert.equal((await api.call('DELETE', `/v1/workspaces/${o.workspaceId}/invitations/${second.body.id}`, { key: o.apiKey })).status, 204);
      assert.equal((await api.call('DELETE', `/v1/workspaces/${o.workspaceId}/invitations/${second.body.id}`, { key: o.apiKey })).status, 404);
      assert.equal((await api.call('POST', '/v1/invitations/accept', { body: { token: secondToken } })).status, 404, 'withdrawn');

      const third = await api.call('POST', `/v1/workspaces/${o.workspaceId}/invitations`, { key: o.apiKey, body: { email, role: 'member' } });
      const thirdToken = TOKEN.exec(String(smtp.received.at(-1)!.mail.text))![0];
      await api.db('invitations').where({ id: third.body.id }).update({ expires_at: Date.now() - 1 });
      const expired = await api.call('POST', '/v1/invitations/accept', { body: { token: thirdToken } });
      assert.equal(expired.status, 409);
      assert.equal(expired.body.code, 'invitation_expired');
      assert.equal(await api.db('users').where({ email }).first(), undefined, 'no user was created');
      assert.ok(!(await members()).body.data.some((m: any) => m.email === email));
      const actions = (await security()).filter((r) => [first.body.id, second.body.id].includes(r.target?.id)).map((r) => r.action);
      assert.deepEqual(actions.sort(), ['invitation.sent', 'invitation.sent', 'invitation.withdrawn', 'invitation.withdrawn']);
    });

    it('admins manage members; the owner role needs an owner; the last owner stays (409)', async () => {
      const admin = await person('admin');
      const member = await person('member');
      const viewer = await person('viewer');

      // Every member reads the list; a viewer or member changes nothing (403 forbidden, requiredRole admin).
      assert.equal((await members(o.workspaceId, viewer.apiKey)).status, 200);
      const byMember = await api.call('PUT', `/v1/workspaces/${o.workspaceId}/members/${viewer.userId}`, { key: member.apiKey, body: { role: 'member' } });
      assert.equal(byMember.status, 403);
      assert.equal(byMember.body.requiredRole, 'admin');
      assert.equal((await api.call('POST', `/v1/workspaces/${o.workspaceId}/invitations`, { key: member.apiKey, body: { email: uniqueEmail(), role: 'viewer' } })).status, 403);

      // An admin promotes a viewer, but cannot grant or touch owner.
      const promoted = await api.call('PUT', `/v1/workspaces/${o.workspaceId}/members/${viewer.userId}`, { key: admin.apiKey, body: { role: 'member' } });
      assert.equal(promoted.status, 200, promoted.text);
      assert.equal(promoted.body.role, 'member');
      for (const [method, path, body] of [
        ['PUT', `/v1/workspaces/${o.workspaceId}/members/${member.userId}`, { role: 'owner' }],
        ['PUT', `/v1/workspaces/${o.workspaceId}/members/${o.userId}`, { role: 'admin' }],
        ['DELETE', `/v1/workspaces/${o.workspaceId}/members/${o.userId}`, undefined],
        ['POST', `/v1/workspaces/${o.workspaceId}/invitations`, { email: uniqueEmail(), role: 'owner' }],
      ] as const) {
        const res = await api.call(method, path, { key: admin.apiKey, body });
        assert.equal(res.status, 403, `${method} ${path}: ${res.text}`);
        assert.equal(res.body.requiredRole, 'owner');
      }

      // The last owner can be neither demoted nor removed, even by themselves.
      for (const res of [
        await api.call('PUT', `/v1/workspaces/${o.workspaceId}/members/${o.userId}`, { key: o.apiKey, body: { role: 'admin' } }),
        await api.call('DELETE', `/v1/workspaces/${o.workspaceId}/members/${o.userId}`, { key: o.apiKey }),
      ]) {
        assert.equal(res.status, 409);
        assert.equal(res.body.code, 'last_owner');
      }
      // With a second owner, the first may step down.
      assert.equal((await api.call('PUT', `/v1/workspaces/${o.workspaceId}/members/${admin.userId}`, { key: o.apiKey, body: { role: 'owner' } })).status, 200);
      assert.equal((await api.call('PUT', `/v1/workspaces/${o.workspaceId}/members/${o.userId}`, { key: admin.apiKey, body: { role: 'owner' } })).status, 200, 'same role: nothing changes');
      // Not a member: 404.
      const stranger = await api.user();
      assert.equal((await api.call('PUT', `/v1/workspaces/${o.workspaceId}/members/${stranger.userId}`, { key: o.apiKey, body: { role: 'viewer' } })).status, 404);
      // Another account's workspace: 404, never 403.
      const other = await api.owner();
      assert.equal((await members(other.workspaceId)).status, 404);
    });

    it("a removed member's keys lose the workspace on the next request; the rows say who did what", async () => {
      const gone = await person('member');
      const bound = (await api.key(gone.userId, { workspaceId: o.workspaceId })).apiKey;
      assert.equal((await api.call('GET', `/v1/workspaces/${o.workspaceId}`, { key: gone.apiKey })).status, 200);
      assert.equal((await api.call('GET', `/v1/workspaces/${o.workspaceId}`, { key: bound })).status, 200);
      const sdk = new SiteHealth({ apiKey: o.apiKey, baseUrl: api.url });
      const removed = await sdk.members.delete(o.workspaceId, gone.userId);
      assert.equal(removed.deleted, true);
      assert.equal((await api.call('GET', `/v1/workspaces/${o.workspaceId}`, { key: gone.apiKey })).status, 404);
      assert.equal((await api.call('GET', `/v1/workspaces/${o.workspaceId}`, { key: bound })).status, 401, 'bound key revoked');
      const rows = (await security()).filter((r) => r.target?.id === gone.userId);
      assert.equal(rows[0].action, 'member.left');
      assert.equal(rows[0].actor.type, 'api_key');
      // SDK: list, invite, accept, typed conflict.
      assert.ok((await sdk.members.list(o.workspaceId)).data.every((m) => m.userId !== gone.userId));
      const email = uniqueEmail('sdk');
      const inv = await sdk.invitations.create(o.workspaceId, { email, role: 'viewer' });
      assert.equal((await sdk.invitations.list(o.workspaceId)).data.at(-1)!.id, inv.id);
      const token = TOKEN.exec(String(smtp.received.at(-1)!.mail.text))![0];
      const accepted = await sdk.invitationAcceptance.accept(token);
      assert.equal(accepted.role, 'viewer');
      await assert.rejects(sdk.invitationAcceptance.accept(token), (e: unknown) => e instanceof ConflictError && e.code === 'invitation_used');
      const inv2 = await sdk.invitations.create(o.workspaceId, { email: uniqueEmail('w'), role: 'viewer' });
      assert.equal((await sdk.invitations.delete(o.workspaceId, inv2.id)).deleted, true);
      assert.equal((await sdk.members.update(o.workspaceId, accepted.userId, 'member')).role, 'member');
    });
  });
}
