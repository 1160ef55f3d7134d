// The dashboard in a real browser (Debian's Chromium through playwright-core), against a real
// server and worker over one database of each engine, checking the local fixture website:
// signing in by each path (password, two-step, passkey, single sign-on), recording a deploy by
// hand and watching its check find what got worse and name the changed file, the site's health
// now, the devices page, and a 360 px phone. Every page passes axe-core and is kept as a
// screenshot (README.md#the-dashboard).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import { setPassword } from '../core/access/index.ts';
import { operatorActor } from '../core/activity/index.ts';
import { importSearchData } from '../core/search-data/index.ts';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi, uniqueEmail, type TestSession } from './support/api.ts';
import { htmlPage, sitemapXml, startFixtureSite, type FixtureSite } from './support/fixture-site.ts';
import { killAll, startWorkerProcess, type Proc } from './support/processes.ts';
import { auditPage, freePort, launchBrowser, openContext, overflowsSideways, type Watched } from './support/browser.ts';
import { startProvider, type LocalProvider } from './support/oidc-provider.ts';

after(dropCreatedDatabases);
after(killAll);

const PASSWORD = 'correct horse battery';
const SLOW = { timeout: 60_000 };

function serveSite(site: FixtureSite, o: { blogNoindex: boolean }) {
  const pages = ['blog', 'pricing'];
  site.set('/', htmlPage({ title: 'Home', description: 'Home page', canonical: site.url('/'), h1: ['Welcome'], links: pages.map((p) => `/${p}`), words: 200 }));
  site.set('/blog', htmlPage({ title: 'Blog', description: 'Our blog', canonical: site.url('/blog'), h1: ['Blog'], words: 300, robots: o.blogNoindex ? 'noindex' : undefined }));
  site.set('/pricing', htmlPage({ title: 'Pricing', description: 'Prices', canonical: site.url('/pricing'), h1: ['Pricing'], words: 300 }));
  site.set('/robots.txt', { body: `User-agent: *\nAllow: /\nSitemap: ${site.url('/sitemap.xml')}\n`, contentType: 'text/plain' });
  site.set('/sitemap.xml', sitemapXml(['/', ...pages.map((p) => `/${p}`)].map((p) => site.url(p))));
}

for (const engine of engines()) {
  describe(`dashboard in a browser (${engine})`, () => {
    let site: FixtureSite;
    let api: TestApi;
    let worker: Proc;
    let browser: Browser;
    let idp: LocalProvider;
    let base: string;
    let owner: { userId: string; accountId: string; email: string; workspaceId: string; session: TestSession };

    before(async () => {
      site = await startFixtureSite();
      serveSite(site, { blogNoindex: false });
      const port = await freePort();
      // localhost, not 127.0.0.1: a passkey's relying party must be a domain name.
      base = `http://localhost:${port}`;
      idp = await startProvider(`${base}/v1/sso/callback`);
      const env = { PUBLIC_URL: base, ALLOW_PRIVATE_NETWORK: '1', SITE_CHECK_DELAY_SECONDS: '0', CRAWL_DELAY_SECONDS: '0', CRAWL_DELAY_MS: '0', RENDER_CHECKS: 'off', SECRETS_KEY: crypto.randomBytes(32).toString('base64') };
      [api, browser] = await Promise.all([TestApi.start(engine, { port, env }), launchBrowser()]);
      worker = await startWorkerProcess(api.dbUrl, env);
      const email = uniqueEmail('owner');
      const u = await api.user({ email });
      const workspaceId = await api.workspace(u, { name: 'Fixture site', website: site.url('/') });
      await setPassword(api.db, { userId: u.userId, password: PASSWORD, action: 'password.set_by_operator', actor: operatorActor(), keepSession: null });
      owner = { ...u, email, workspaceId, session: await api.session(u.userId) };
    });
    after(async () => {
      await browser?.close();
      await worker?.stop();
      await api?.stop();
      await idp?.close();
      await site?.close();
    });

    async function signInWithPassword(w: Watched, email: string) {
      await w.page.goto('/');
      await w.page.waitForURL(/\/sign-in\?next=/);
      await w.page.getByLabel('Email', { exact: true }).fill(email);
      await w.page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await w.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    }

    const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name });

    it('serves the page with a strict CSP and compressed, cacheable assets', async () => {
      const res = await fetch(`${base}/`, { headers: { 'accept-encoding': 'br' } });
      assert.equal(res.status, 200);
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.doesNotMatch(csp, /unsafe-(inline|eval)/);
      assert.match(csp, /frame-ancestors 'none'/);
      const html = await res.text();
      assert.doesNotMatch(html, /<script>(?!<)/, 'no inline script');
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1];
      const js = await fetch(`${base}${script}`, { headers: { 'accept-encoding': 'br' } });
      assert.equal(js.headers.get('content-encoding'), 'br');
      assert.match(js.headers.get('cache-control') ?? '', /immutable/);
      const unknown = await fetch(`${base}/assets/nope.js`);
      assert.equal(unknown.status, 404);
      assert.match(unknown.headers.get('content-type') ?? '', /problem\+json/);
    });

    it('signs in with a password, records a deploy by hand, and shows its check, findings and likely cause', SLOW, async () => {
      // The baseline: a check of the site as it was.
      const first = await api.call('POST', '/v1/site-checks', { session: owner.session, body: { workspaceId: owner.workspaceId } });
      assert.equal(first.status, 201, first.text);
      await waitFor(async () => (await api.call('GET', `/v1/site-checks/${first.body.id}`, { session: owner.session })).body.state === 'finished');
      serveSite(site, { blogNoindex: true });

      const w = await openContext(browser, base);
      await signInWithPassword(w, owner.email);
      await heading(w.page, 'Deploys').waitFor();
      assert.match(w.page.url(), new RegExp(`/w/${owner.workspaceId}/deploys$`));

      await w.page.getByRole('link', { name: 'Record deploy' }).click();
      await heading(w.page, 'Record a deploy').waitFor();
      // A field error from the API shows next to its field, and nothing is recorded.
      await w.page.getByLabel('Commit SHA').fill('not-a-sha');
      await w.page.getByRole('button', { name: 'Record deploy' }).click();
      const invalid = w.page.getByLabel('Commit SHA');
      await assertInvalid(invalid);
      await auditPage(w.page, `${engine}-record-deploy`);

      await invalid.fill('3f9c2ab0d1');
      await w.page.getByLabel('Message').fill('Blog: new layout');
      await w.page.getByLabel('Changed files').fill('src/pages/blog.tsx page\nsrc/styles/site.css\nREADME.md');
      await w.page.getByRole('button', { name: 'Record deploy' }).click();
      await heading(w.page, /Deploy 3f9c2ab to production/).waitFor();
      // Live: the page follows the check until it finishes and shows what got worse.
      await w.page.getByText('Noindex added').waitFor({ timeout: 45_000 });
      const finding = w.page.locator('.finding', { hasText: 'Noindex added' });
      assert.match(await finding.innerText(), new RegExp(site.url('/blog').replace(/[/.]/g, '\\$&')));
      assert.match(await finding.locator('ol.causes li').first().innerText(), /src\/pages\/blog\.tsx/);
      await w.page.getByRole('heading', { name: /Changed files \(3\)/ }).waitFor();
      await auditPage(w.page, `${engine}-deploy-detail`);

      const list = await api.call('GET', '/v1/deploys', { session: owner.session, query: { workspace_id: owner.workspaceId, source: 'manual' } });
      assert.equal(list.body.data.length, 1, 'recorded with source manual');
      assert.equal(list.body.data[0].newFindingCount, 1);

      await w.page.getByRole('link', { name: 'Deploys', exact: true }).click();
      await heading(w.page, 'Deploys').waitFor();
      const row = w.page.getByRole('row', { name: /3f9c2ab/ });
      assert.match(await row.innerText(), /Finished/);
      assert.match(await row.innerText(), /Recorded by hand/);
      // Filters go through the API: a source with no deploys shows none.
      await w.page.getByLabel('Source').selectOption('github');
      await w.page.getByRole('button', { name: 'Apply filters' }).click();
      await w.page.getByText('No deploys match these filters.').waitFor();
      assert.match(w.page.url(), /source=github/);
      await w.page.getByLabel('Source').selectOption('manual');
      await w.page.getByRole('button', { name: 'Apply filters' }).click();
      await w.page.getByRole('row', { name: /3f9c2ab/ }).waitFor();
      await auditPage(w.page, `${engine}-deploys`);

      await w.page.getByRole('link', { name: 'Site health' }).click();
      await heading(w.page, 'Site health now').waitFor();
      await w.page.getByRole('heading', { name: /Issues now/ }).first().waitFor();
      await auditPage(w.page, `${engine}-site-health`);

      await w.page.getByRole('link', { name: owner.email }).click();
      await heading(w.page, 'Your account').waitFor();
      await w.page.getByText('This device', { exact: true }).waitFor();
      await auditPage(w.page, `${engine}-account`);
      w.assertClean();

      // Dates show in the workspace's timezone, the UTC value on hover.
      await api.call('PUT', `/v1/workspaces/${owner.workspaceId}`, { session: owner.session, body: { timezone: 'Asia/Tokyo' } });
      await w.page.goto(`/w/${owner.workspaceId}/deploys`);
      const when = w.page.getByRole('row', { name: /3f9c2ab/ }).locator('time');
      await when.waitFor();
      assert.match((await when.getAttribute('title')) ?? '', /UTC$/);
      const iso = (await when.getAttribute('datetime'))!;
      const tokyo = new Intl.DateTimeFormat('en-US', { timeZone: 'Asia/Tokyo', dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
      assert.equal(await when.innerText(), tokyo);

      // Signing out ends the session on the server too.
      await w.page.getByRole('button', { name: 'Sign out' }).click();
      await heading(w.page, 'Sign in to sitehealth').waitFor();
      await w.page.goto(`/w/${owner.workspaceId}/deploys`);
      await w.page.waitForURL(/\/sign-in\?next=/);
      w.assertClean();
      await w.context.close();
    });

    it('shows the search traffic before and after a deploy as a chart and a table', async () => {
      // Search data from 20 days ago to yesterday, imported as `search import` does, and a deploy
      // 10 days ago: both windows hold final days.
      const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
      const rows = ['date,page,clicks,impressions'];
      for (let n = 20; n >= 1; n--) {
        rows.push(`${day(n)},${site.url('/blog')},${n > 10 ? 40 : 10},${n > 10 ? 400 : 300}`);
        rows.push(`${day(n)},${site.url('/')},${n > 10 ? 100 : 90},${n > 10 ? 1000 : 950}`);
      }
      const file = path.join(os.tmpdir(), `dashboard-search-${engine}-${process.pid}.csv`);
      fs.writeFileSync(file, rows.join('\n'));
      await importSearchData(api.db, { workspaceId: owner.workspaceId, file });
      fs.rmSync(file);
      const recorded = await api.call('POST', '/v1/deploys', { session: owner.session, body: { workspaceId: owner.workspaceId, commitSha: 'aa11bb22cc', environment: 'staging', deployedAt: `${day(10)}T12:00:00Z` } });
      assert.equal(recorded.status, 201, recorded.text);
      const impact = (await api.call('GET', `/v1/deploys/${recorded.body.id}`, { session: owner.session })).body.impact;
      assert.ok(impact, 'the API has an impact for it');

      const w = await openContext(browser, base);
      await signInWithPassword(w, owner.email);
      await heading(w.page, 'Deploys').waitFor();
      await w.page.goto(`/w/${owner.workspaceId}/deploys/${recorded.body.id}`);
      await w.page.getByRole('img', { name: /Search clicks and impressions before and after/ }).locator('canvas').waitFor();
      const all = w.page.getByRole('row', { name: /All pages/ });
      assert.deepEqual(
        (await all.locator('td').allInnerTexts()).map((t) => Number(t.replace(/,/g, ''))),
        [impact.before.clicks, impact.after.clicks, impact.before.impressions, impact.after.impressions],
      );
      await auditPage(w.page, `${engine}-deploy-impact`);
      w.assertClean();
      await w.context.close();
    });

    it('works on a 360 px wide phone', async () => {
      const w = await openContext(browser, base, { width: 360, height: 740 });
      await signInWithPassword(w, owner.email);
      await heading(w.page, 'Deploys').waitFor();
      await w.page.getByRole('row', { name: /3f9c2ab/ }).getByRole('link').click();
      await w.page.getByText('Noindex added').waitFor();
      assert.deepEqual(await overflowsSideways(w.page), [], 'nothing scrolls sideways on a phone');
      await auditPage(w.page, `${engine}-deploy-detail-phone`);
      w.assertClean();
      await w.context.close();
    });

    it('signs in with a password and a code from the authenticator app', async () => {
      const email = uniqueEmail('twostep');
      const u = await api.user({ accountId: owner.accountId, email });
      await api.member(owner.workspaceId, u.userId, 'viewer');
      await setPassword(api.db, { userId: u.userId, password: PASSWORD, action: 'password.set_by_operator', actor: operatorActor(), keepSession: null });
      const s = await api.session(u.userId);
      const setup = await api.call('POST', '/v1/me/two-step', { session: s });
      assert.equal(setup.status, 200, setup.text);
      const totp = new TOTP({ secret: Secret.fromBase32(setup.body.secret), digits: 6, period: 30 });
      const confirmed = await api.call('POST', '/v1/me/two-step/confirm', { session: s, body: { code: totp.generate() } });
      assert.equal(confirmed.status, 200, confirmed.text);

      const w = await openContext(browser, base);
      await signInWithPassword(w, email);
      await w.page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
      await auditPage(w.page, `${engine}-sign-in-two-step`);
      // The code just used to confirm is spent; the next time step's is not.
      await w.page.getByLabel('Code from your authenticator app').fill(totp.generate({ timestamp: Date.now() + 30_000 }));
      await w.page.getByRole('button', { name: 'Verify' }).click();
      await heading(w.page, 'Deploys').waitFor();
      // A viewer may look but not record: the API's refusal is shown on the form.
      await w.page.getByRole('link', { name: 'Record deploy' }).click();
      await w.page.getByLabel('Commit SHA').fill('bb22cc33dd');
      await w.page.getByRole('button', { name: 'Record deploy' }).click();
      assert.match(await w.page.getByRole('alert').innerText(), /viewer|role|permission/i);
      const recorded = await api.call('GET', '/v1/deploys', { session: owner.session, query: { workspace_id: owner.workspaceId } });
      assert.ok(!recorded.body.data.some((d: { commitSha: string }) => d.commitSha === 'bb22cc33dd'), 'nothing recorded');
      w.assertClean();
      await w.context.close();
    });

    it('signs in with a passkey (a virtual authenticator)', async () => {
      const email = uniqueEmail('passkey');
      const u = await api.user({ accountId: owner.accountId, email });
      await api.member(owner.workspaceId, u.userId, 'member');
      await setPassword(api.db, { userId: u.userId, password: PASSWORD, action: 'password.set_by_operator', actor: operatorActor(), keepSession: null });
      const w = await openContext(browser, base);
      const cdp = await w.context.newCDPSession(w.page);
      await cdp.send('WebAuthn.enable');
      await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      });
      await signInWithPassword(w, email);
      await heading(w.page, 'Deploys').waitFor();
      // Register the passkey as the page would, with the session's own CSRF token.
      // A string, not a function: the test runner's transform would wrap named functions in a helper
      // the page does not have.
      const registered: { name?: string } = await w.page.evaluate(`(async () => {
        const me = await (await fetch('/v1/me')).json();
        const post = (path, body) => fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrfToken }, body: body === undefined ? undefined : JSON.stringify(body) }).then((r) => r.json());
        const options = await post('/v1/passkey-registration/options');
        const credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options.publicKey) });
        return post('/v1/passkeys', { challengeId: options.challengeId, name: 'Virtual authenticator', response: credential.toJSON() });
      })()`);
      assert.equal(registered.name, 'Virtual authenticator', JSON.stringify(registered));
      await w.page.getByRole('button', { name: 'Sign out' }).click();
      await heading(w.page, 'Sign in to sitehealth').waitFor();
      await w.page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await heading(w.page, 'Deploys').waitFor();
      const me = await w.page.evaluate(async () => (await fetch('/v1/me')).json());
      assert.equal(me.email, email);
      assert.equal(me.session.method, 'passkey');
      w.assertClean();
      await w.context.close();
    });

    it("signs in through the account's single sign-on provider", async () => {
      const configured = await api.call('PUT', '/v1/sso/settings', { session: owner.session, body: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret } });
      assert.equal(configured.status, 200, configured.text);
      const email = uniqueEmail('sso');
      const u = await api.user({ accountId: owner.accountId, email });
      await api.member(owner.workspaceId, u.userId, 'member');
      idp.accounts.set(`sub-${u.userId}`, { email, emailVerified: true });

      const w = await openContext(browser, base);
      await w.page.goto('/sign-in');
      await w.page.getByLabel('Work email for single sign-on').fill(email);
      await w.page.getByRole('button', { name: 'Continue with single sign-on' }).click();
      // The provider's own login form (oidc-provider's development interaction).
      await w.page.waitForURL((url) => url.origin === idp.issuer);
      await w.page.locator('input[name=login]').fill(`sub-${u.userId}`);
      await w.page.locator('input[name=password]').fill('any');
      await w.page.locator('button[type=submit]').click();
      await heading(w.page, 'Deploys').waitFor();
      const me = await w.page.evaluate(async () => (await fetch('/v1/me')).json());
      assert.equal(me.email, email);
      assert.equal(me.session.method, 'sso');
      w.assertClean();
      await w.context.close();
    });
  });
}

async function assertInvalid(field: ReturnType<Page['getByLabel']>) {
  await field.and(field.page().locator('[aria-invalid="true"]')).waitFor();
  const described = (await field.getAttribute('aria-describedby')) ?? '';
  const message = await field.page().locator(`[id="${described.split(' ').pop()}"]`).innerText();
  assert.match(message, /\S/, 'the API names what is wrong next to the field');
}

async function waitFor(cond: () => Promise<boolean>, timeoutMs = 45_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.fail('timed out');
}
