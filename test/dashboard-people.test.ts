// The dashboard's pages for people and access, in a real browser (Debian's Chromium through
// playwright-core) against one server per engine: API keys (shown once, working over HTTP, then
// revoked or rotated), inviting a member over real SMTP and accepting from the mailed link in a
// second browser, roles and the API's 403 for a viewer, workspace settings with a field error and
// deletion, two-step verification set up on the account page and then asked at sign-in, a
// passkey registered there, and the address verified from the mailed link. Every page passes axe-core and is kept as a screenshot
// (README.md#the-dashboard); the pages fit a 360 px phone.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import { setPassword } from '../core/access/index.ts';
import { operatorActor } from '../core/activity/index.ts';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi, uniqueEmail, type TestSession } from './support/api.ts';
import { startSmtp } from './support/smtp.ts';
import { auditPage, freePort, launchBrowser, openContext, overflowsSideways, type Watched, assertInvalid, addVirtualAuthenticator, waitUntil, screenshot } from './support/browser.ts';

after(dropCreatedDatabases);

const PASSWORD = 'correct horse battery';
const KEY = /^sh_[0-9A-Za-z]{38}$/;

for (const engine of engines()) {
  describe(`dashboard: keys, members, settings and account (${engine})`, () => {
    let api: TestApi;
    let browser: Browser;
    let smtp: Awaited<ReturnType<typeof startSmtp>>;
    let base: string;
    let owner: { userId: string; accountId: string; email: string; workspaceId: string; session: TestSession };
    /** The owner signed in once, shared by the cases in order. */
    let w: Watched;

    before(async () => {
      smtp = await startSmtp();
      const port = await freePort();
      // localhost, not 127.0.0.1: a passkey's relying party must be a domain name.
      base = `http://localhost:${port}`;
      const env = { PUBLIC_URL: base, SMTP_URL: smtp.url, SECRETS_KEY: crypto.randomBytes(32).toString('base64') };
      [api, browser] = await Promise.all([TestApi.start(engine, { port, env }), launchBrowser()]);
      const email = uniqueEmail('owner');
      const u = await api.user({ email });
      const workspaceId = await api.workspace(u, { name: 'People site' });
      await setPassword(api.db, { userId: u.userId, password: PASSWORD, action: 'password.set_by_operator', actor: operatorActor(), keepSession: null });
      owner = { ...u, email, workspaceId, session: await api.session(u.userId) };
      w = await openContext(browser, base);
      await signIn(w, owner.email);
      await w.page.getByRole('heading', { level: 1, name: 'Deploys' }).waitFor();
    });
    after(async () => {
      await browser?.close();
      await api?.stop();
      await smtp?.close();
    });

    const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name });
    const dialog = (page: Page) => page.getByRole('dialog');

    async function signIn(c: Watched, email: string) {
      await c.page.goto('/sign-in');
      await c.page.getByLabel('Email', { exact: true }).fill(email);
      await c.page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await c.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    }

    async function open(c: Watched, section: string, title: string, workspaceId = owner.workspaceId) {
      await c.page.goto(`/w/${workspaceId}/${section}`);
      await heading(c.page, title).waitFor();
    }

    it('creates a key shown once that works over HTTP; revoking it answers 401 at once; rotating shows the new key once', async () => {
      await open(w, 'keys', 'API keys');
      const create = w.page.getByRole('form', { name: 'Create a key' });
      // No scope at all: the API's field error shows next to the scopes.
      await create.getByLabel('Name').fill('CI reads');
      await create.getByRole('checkbox', { name: /^deploys/ }).uncheck();
      await create.getByRole('button', { name: 'Create key' }).click();
      await create.locator('#scopes-error').waitFor();
      assert.match(await create.locator('#scopes-error').innerText(), /\S/);

      await create.getByRole('checkbox', { name: /^workspaces/ }).check();
      await create.getByRole('checkbox', { name: /^keys/ }).check();
      await create.getByLabel('Expires').selectOption('30');
      await create.getByRole('button', { name: 'Create key' }).click();
      const shown = w.page.locator('.shown-once .secret');
      await shown.waitFor();
      const key = await shown.innerText();
      assert.match(key, KEY);

      // The key works against the API, bound to this workspace.
      const listed = await api.call('GET', '/v1/workspaces', { key });
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        listed.body.data.map((ws: { id: string }) => ws.id),
        [owner.workspaceId],
      );
      const row = w.page.getByRole('row', { name: /CI reads/ });
      assert.match(await row.innerText(), new RegExp(`${key.slice(0, 8)}…${key.slice(-4)}`));
      assert.match(await row.innerText(), /workspaces/);
      assert.match(await row.innerText(), /keys/);
      assert.match(await row.innerText(), /People site/);
      assert.match(await row.innerText(), /Active/);

      // Shown once: gone when dismissed, and never again after a reload.
      await w.page.getByRole('button', { name: 'I have stored the key' }).click();
      await w.page.reload();
      await row.waitFor();
      assert.ok(!(await w.page.content()).includes(key.slice(8, -4)), 'the page holds no key');

      await row.getByRole('button', { name: 'Revoke', exact: true }).click();
      await dialog(w.page).getByRole('button', { name: 'Revoke key' }).click();
      await row.getByText('Revoked').waitFor();
      const refused = await api.call('GET', '/v1/workspaces', { key });
      assert.equal(refused.status, 401, refused.text);

      // Rotating: the new key shows once and works; the old one stops at once.
      const created = await api.call('POST', '/v1/api-keys', { session: owner.session, body: { name: 'To rotate', scopes: ['workspaces'] } });
      assert.equal(created.status, 201, created.text);
      await w.page.reload();
      const rotating = w.page.getByRole('row', { name: /To rotate/ }).first();
      await rotating.getByRole('button', { name: 'Rotate', exact: true }).click();
      await dialog(w.page).getByRole('button', { name: 'Rotate key' }).click();
      await shown.waitFor();
      const rotated = await shown.innerText();
      assert.match(rotated, KEY);
      assert.notEqual(rotated, created.body.key);
      assert.equal((await api.call('GET', '/v1/workspaces', { key: rotated })).status, 200);
      assert.equal((await api.call('GET', '/v1/workspaces', { key: created.body.key })).status, 401);
      await auditPage(w.page, `${engine}-keys`);
      w.assertClean();
    });

    it('invites a member over SMTP, who accepts from the mailed link in a second browser and appears in the list; a viewer gets the API 403', async () => {
      await open(w, 'members', 'Members');
      const invite = w.page.getByRole('form', { name: 'Invite someone' });
      // A bad address: the API names the field.
      await invite.getByLabel('Email').fill('dana@localhost');
      await invite.getByRole('button', { name: 'Invite member' }).click();
      await assertInvalid(invite.getByLabel('Email'));

      const email = uniqueEmail('invitee');
      await invite.getByLabel('Email').fill(email);
      await invite.getByLabel('Role').selectOption('member');
      await invite.getByRole('button', { name: 'Invite member' }).click();
      await invite.getByRole('status').waitFor();
      await w.page.getByRole('row', { name: new RegExp(email) }).waitFor();
      await auditPage(w.page, `${engine}-members-invited`);

      const mail = smtp.received.filter((m) => m.envelope.to.includes(email)).at(-1);
      assert.ok(mail, 'the invitation was mailed');
      const link = new RegExp(`${base.replace(/[/.]/g, '\\$&')}/invitations/accept#token=shinv_[A-Za-z0-9_-]{43}`).exec(String(mail.mail.text))?.[0];
      assert.ok(link, String(mail.mail.text));

      const invitee = await openContext(browser, base);
      await invitee.page.goto(link);
      await heading(invitee.page, 'Join a workspace').waitFor();
      assert.ok(!invitee.page.url().includes('token'), 'the token leaves the address bar');
      await auditPage(invitee.page, `${engine}-accept-invitation`);
      await invitee.page.getByLabel('Choose a password').fill(PASSWORD);
      await invitee.page.getByRole('button', { name: 'Accept invitation' }).click();
      await heading(invitee.page, 'Deploys').waitFor();

      await w.page.reload();
      const member = w.page.getByRole('row', { name: new RegExp(email) });
      await member.waitFor();
      assert.equal(await w.page.getByRole('region', { name: 'Invitations table' }).count(), 0, 'no invitation is pending');

      // The owner makes them a viewer; the viewer's own attempt to invite shows the API's 403.
      await member.getByLabel(`Role of ${email}`).selectOption('viewer');
      await waitUntil(async () =>
        (await api.call('GET', `/v1/workspaces/${owner.workspaceId}/members`, { session: owner.session })).body.data.some(
          (m: { email: string; role: string }) => m.email === email && m.role === 'viewer',
        ),
      );
      await open(invitee, 'members', 'Members');
      await invitee.page.getByText('Your role here is Viewer').waitFor();
      const theirs = invitee.page.getByRole('form', { name: 'Invite someone' });
      await theirs.getByLabel('Email').fill(uniqueEmail('nope'));
      await theirs.getByRole('button', { name: 'Invite member' }).click();
      assert.match(await theirs.getByRole('alert').innerText(), /admin|owner|role|permission/i);
      await screenshot(invitee.page, `${engine}-members-viewer`);
      invitee.assertClean();
      await invitee.context.close();

      // A pending invitation is revoked after confirming; a member is removed after confirming.
      const other = uniqueEmail('withdrawn');
      await api.call('POST', `/v1/workspaces/${owner.workspaceId}/invitations`, { session: owner.session, body: { email: other, role: 'viewer' } });
      await w.page.reload();
      await w.page
        .getByRole('region', { name: 'Invitations table' })
        .getByRole('row', { name: new RegExp(other) })
        .getByRole('button', { name: 'Revoke', exact: true })
        .click();
      await dialog(w.page).getByRole('button', { name: 'Revoke invitation' }).click();
      await w.page.getByText('No pending invitations.').waitFor();
      await member.getByRole('button', { name: 'Remove', exact: true }).click();
      await dialog(w.page).getByRole('button', { name: 'Remove member' }).click();
      await member.waitFor({ state: 'detached' });
      const left = await api.call('GET', `/v1/workspaces/${owner.workspaceId}/members`, { session: owner.session });
      assert.ok(!left.body.data.some((m: { email: string }) => m.email === email));
      await screenshot(w.page, `${engine}-members`);
      w.assertClean();
    });

    it('saves settings, shows the field error next to the field, and deletes a workspace after its name is typed', async () => {
      await open(w, 'settings', 'Settings');
      const form = w.page.getByRole('form', { name: 'Workspace' });
      // The browser accepts an ftp: URL in a url field; the API does not, and says so by the field.
      await form.getByLabel('Website').fill('ftp://www.example.com');
      await form.getByLabel('Name').fill('People site, renamed');
      await form.getByRole('button', { name: 'Save settings' }).click();
      await assertInvalid(form.getByLabel('Website'));
      assert.equal(await form.getByLabel('Name').inputValue(), 'People site, renamed', 'what was typed stays');
      await auditPage(w.page, `${engine}-settings-invalid`);

      await form.getByLabel('Website').fill('https://www.example.org');
      await form.getByLabel('Time zone').selectOption('Asia/Tokyo');
      await form.getByLabel('Site checks').selectOption('hourly');
      await form.getByLabel('Check time').fill('07:30');
      await form.getByLabel('Rendered checks').selectOption('desktop');
      await form.getByRole('button', { name: 'Save settings' }).click();
      await form.getByText('Settings saved.').waitFor();
      const saved = await api.call('GET', `/v1/workspaces/${owner.workspaceId}`, { session: owner.session });
      assert.deepEqual(
        {
          name: saved.body.data.name,
          website: saved.body.data.website,
          timezone: saved.body.data.timezone,
          check_schedule: saved.body.data.check_schedule,
          check_time: saved.body.data.check_time,
          render_preset: saved.body.data.render_preset,
        },
        { name: 'People site, renamed', website: 'https://www.example.org', timezone: 'Asia/Tokyo', check_schedule: 'hourly', check_time: '07:30', render_preset: 'desktop' },
      );
      // The switcher follows.
      await w.page.locator('#workspace-switcher').getByRole('option', { name: 'People site, renamed' }).waitFor({ state: 'attached' });

      const digest = w.page.getByRole('form', { name: 'Your digest email' });
      await digest.getByLabel('Digest').selectOption('daily');
      await digest.getByRole('button', { name: 'Save digest setting' }).click();
      await digest.getByText('Digest setting saved.').waitFor();
      assert.equal((await api.call('GET', `/v1/workspaces/${owner.workspaceId}/notifications`, { session: owner.session })).body.digest, 'daily');
      await screenshot(w.page, `${engine}-settings`);

      const doomed = await api.workspace(owner, { name: 'Doomed site' });
      await open(w, 'settings', 'Settings', doomed);
      await w.page.getByRole('button', { name: 'Delete workspace', exact: true }).click();
      const confirm = dialog(w.page);
      await confirm.getByLabel('Workspace name').fill('Doomed');
      await confirm.getByRole('button', { name: 'Delete workspace for good' }).click();
      await confirm.getByRole('alert').waitFor();
      assert.equal((await api.call('GET', `/v1/workspaces/${doomed}`, { session: owner.session })).status, 200, 'nothing deleted on a wrong name');
      await screenshot(w.page, `${engine}-settings-delete`);
      await confirm.getByLabel('Workspace name').fill('Doomed site');
      await confirm.getByRole('button', { name: 'Delete workspace for good' }).click();
      await heading(w.page, 'Deploys').waitFor();
      assert.ok(!w.page.url().includes(doomed));
      assert.equal((await api.call('GET', `/v1/workspaces/${doomed}`, { session: owner.session })).status, 404);
      w.assertClean();
    });

    it('sets up two-step verification and a passkey on the account page; the next sign-in asks for the code', async () => {
      const email = uniqueEmail('twostep');
      const u = await api.user({ accountId: owner.accountId, email });
      await api.member(owner.workspaceId, u.userId, 'member');
      await setPassword(api.db, { userId: u.userId, password: PASSWORD, action: 'password.set_by_operator', actor: operatorActor(), keepSession: null });
      const c = await openContext(browser, base);
      await addVirtualAuthenticator(c);
      await signIn(c, email);
      await heading(c.page, 'Deploys').waitFor();
      await c.page.getByRole('link', { name: email }).click();
      await heading(c.page, 'Your account').waitFor();

      await c.page.getByRole('button', { name: 'Set up two-step verification' }).click();
      const secret = await c.page.locator('.shown-once .secret').innerText();
      assert.match(await c.page.getByText(/otpauth:\/\//).innerText(), /otpauth:\/\/totp\//);
      const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 });
      await c.page.getByLabel('Code from your authenticator app').fill('000000' === totp.generate() ? '111111' : '000000');
      await c.page.getByRole('button', { name: 'Turn on two-step verification' }).click();
      await c.page.getByRole('form', { name: 'Confirm two-step verification' }).getByRole('alert').waitFor();
      await c.page.getByLabel('Code from your authenticator app').fill(totp.generate());
      await c.page.getByRole('button', { name: 'Turn on two-step verification' }).click();
      await c.page.getByRole('button', { name: 'I have stored the recovery codes' }).waitFor();
      const codes = (await c.page.locator('.shown-once .secret').innerText()).split('\n');
      assert.equal(codes.length, 10);
      await c.page.getByText(/10 of 10 recovery codes left/).waitFor();

      await c.page.getByLabel('Passkey name').fill('Virtual authenticator');
      await c.page.getByRole('button', { name: 'Register a passkey' }).click();
      await c.page.getByText('Virtual authenticator', { exact: true }).waitFor();
      const passkeys = await api.call('GET', '/v1/passkeys', { session: await api.session(u.userId) });
      assert.deepEqual(
        passkeys.body.data.map((p: { name: string }) => p.name),
        ['Virtual authenticator'],
      );
      await auditPage(c.page, `${engine}-account`);
      await c.page.getByRole('button', { name: 'I have stored the recovery codes' }).click();
      assert.equal(await c.page.locator('.shown-once').count(), 0, 'the codes are gone once stored');
      await c.page.getByRole('button', { name: 'Remove passkey Virtual authenticator' }).click();
      await dialog(c.page).getByRole('button', { name: 'Remove passkey' }).click();
      await c.page.getByText('No passkeys yet.').waitFor();

      // Verifying the address from the account page: the mailed link opens the dashboard.
      await c.page.getByRole('button', { name: 'Send verification email' }).click();
      await c.page.getByText(/A verification link is on its way/).waitFor();
      const mail = smtp.received.filter((m) => m.envelope.to.includes(email)).at(-1);
      const link = /http\S+\/verify-email#token=\S+/.exec(String(mail?.mail.text))?.[0];
      assert.ok(link, String(mail?.mail.text));
      await c.page.goto(link);
      await c.page.getByText('Your email address is verified.').waitFor();
      await c.page.goto('/account');
      await heading(c.page, 'Your account').waitFor();
      assert.equal(await c.page.getByRole('button', { name: 'Send verification email' }).count(), 0);

      await c.page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await heading(c.page, 'Sign in to sitehealth').waitFor();
      await signIn(c, email);
      await c.page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
      // The confirming code is spent; the next time step's is not.
      await c.page.getByLabel('Code from your authenticator app').fill(totp.generate({ timestamp: Date.now() + 30_000 }));
      await c.page.getByRole('button', { name: 'Verify' }).click();
      await heading(c.page, 'Deploys').waitFor();
      c.assertClean();
      await c.context.close();
    });

    it('fits a 360 px phone', async () => {
      const phone = await openContext(browser, base, { width: 360, height: 740 });
      await signIn(phone, owner.email);
      await heading(phone.page, 'Deploys').waitFor();
      for (const [section, title] of [
        ['keys', 'API keys'],
        ['members', 'Members'],
        ['settings', 'Settings'],
      ]) {
        await open(phone, section, title);
        await phone.page.getByRole('button').last().waitFor();
        assert.deepEqual(await overflowsSideways(phone.page), [], `${section}: nothing scrolls sideways`);
        await screenshot(phone.page, `${engine}-${section}-phone`);
      }
      await phone.page.goto('/account');
      await heading(phone.page, 'Your account').waitFor();
      await phone.page.getByText('This device', { exact: true }).waitFor();
      assert.deepEqual(await overflowsSideways(phone.page), [], 'account: nothing scrolls sideways');
      await screenshot(phone.page, `${engine}-account-phone`);
      phone.assertClean();
      await phone.context.close();
    });
  });
}



