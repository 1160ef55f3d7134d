// The dashboard's operations pages in a real browser (test/support/browser.ts): webhooks (the
// secret shown once, a delivery to a failing receiver with its payload and answer, redelivery,
// pause, rotation, deletion), request logs (filters in the address, the chart) and the activity
// feed (kind filter). The server is a process, not in this one: a test send and a redelivery go
// out from the server, and only a process started with NODE_EXTRA_CA_CERTS trusts the real
// HTTPS receiver (test/support/https-receiver.ts); the worker delivers the recorded deploy.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createApiKey, createUser, setPassword } from '../core/access/index.ts';
import { operatorActor } from '../core/activity/index.ts';
import { createDb, type Db } from '../core/db/index.ts';
import { createWorkspace } from '../core/workspaces/index.ts';
import { uniqueEmail } from './support/api.ts';
import { auditPage, launchBrowser, openContext, overflowsSideways, type Watched, assertInvalid, screenshot } from './support/browser.ts';
import { checkedFetch } from './support/contract.ts';
import { dropCreatedDatabases, engines, freshDatabaseUrl } from './support/databases.ts';
import { startReceiver, type Receiver } from './support/https-receiver.ts';
import { waitFor } from './support/jobs.ts';
import { killAll, startServerProcess, startWorkerProcess, type Proc, type ServerProc } from './support/processes.ts';

after(dropCreatedDatabases);
after(killAll);

const PASSWORD = 'correct horse battery';
const RECEIVER_SAYS = 'receiver is down for maintenance';

for (const engine of engines()) {
  describe(`dashboard operations pages in a browser (${engine})`, () => {
    let receiver: Receiver;
    let server: ServerProc;
    let worker: Proc;
    let db: Db;
    let browser: Browser;
    let w: Watched;
    let key: string;
    let workspaceId: string;
    let hook: { id: string; secret: string };
    const call = (method: string, path: string, body?: unknown) => checkedFetch(server.url, method, path, { key, body });
    const page = () => w.page;
    const heading = (name: string | RegExp) => page().getByRole('heading', { level: 1, name });
    const go = (section: string) => page().goto(`/w/${workspaceId}/${section}`);

    before(async () => {
      receiver = await startReceiver();
      receiver.answer('/fail', { status: 500, body: RECEIVER_SAYS });
      const url = await freshDatabaseUrl(engine);
      const env = { NODE_EXTRA_CA_CERTS: receiver.certFile, ALLOW_PRIVATE_NETWORK: '1' };
      // Each assigned as it starts, so that after() stops whatever did start when another did not.
      const started = await Promise.allSettled([
        startServerProcess(url, env).then((p) => (server = p)),
        startWorkerProcess(url, env).then((p) => (worker = p)),
        launchBrowser().then((b) => (browser = b)),
      ]);
      for (const s of started) if (s.status === 'rejected') throw s.reason;
      db = createDb(url);
      const email = uniqueEmail('ops');
      const u = await createUser(db, email);
      workspaceId = (await createWorkspace(db, { accountId: u.accountId, userId: u.userId, input: { name: 'Operations', website: 'https://www.example.com' } })).id;
      key = (await createApiKey(db, { userId: u.userId, scopes: ['deploys', 'workspaces', 'webhooks'] })).apiKey;
      await setPassword(db, { userId: u.userId, password: PASSWORD, action: 'password.set_by_operator', actor: operatorActor(), keepSession: null });
      w = await openContext(browser, server.url);
      w.page.setDefaultTimeout(15_000);
      await page().goto('/sign-in');
      await page().getByLabel('Email', { exact: true }).fill(email);
      await page().getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page().getByRole('button', { name: 'Sign in', exact: true }).click();
      await heading('Deploys').waitFor();
    });
    after(async () => {
      await browser?.close();
      await worker?.stop();
      await server?.stop();
      await db?.destroy();
      await receiver?.close();
    });

    it('creates a webhook, its field errors next to the fields, and shows its signing secret once', async () => {
      await go('webhooks');
      await heading('Webhooks').waitFor();
      await page().getByText('No webhooks yet').waitFor();
      const form = page().getByRole('form', { name: 'Create a webhook' });
      await form.getByLabel('Name', { exact: true }).fill('Failing receiver');
      // http is a valid URL to the browser; the API wants https and says so next to the field.
      await form.getByLabel('URL').fill('http://hooks.example.com/x');
      await form.getByLabel(/A deploy was recorded/).check();
      await form.getByRole('button', { name: 'Add a header' }).click();
      await form.getByLabel('Header 1 name').fill('Host');
      await form.getByLabel('Header 1 value').fill('elsewhere.example');
      await form.getByRole('button', { name: 'Create webhook' }).click();
      await assertInvalid(form.getByLabel('URL'), /https/);
      await form.getByLabel('URL').fill(receiver.url('/fail'));
      await form.getByRole('button', { name: 'Create webhook' }).click();
      await assertInvalid(form.getByLabel('Header 1 name'), /cannot be set/);
      assert.equal(await form.getByLabel('URL').getAttribute('aria-invalid'), null, 'the URL is fine now');
      assert.equal((await call('GET', `/v1/webhooks?workspace_id=${workspaceId}`)).body.data.length, 0, 'nothing was created');

      await form.getByLabel('Header 1 name').fill('X-Team');
      await form.getByRole('button', { name: 'Create webhook' }).click();
      const shown = page().locator('.shown-once code.secret');
      await shown.waitFor();
      const secret = (await shown.innerText()).trim();
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      // The form starts empty again, and the list has the new webhook.
      assert.equal(await form.getByLabel('URL').inputValue(), '');
      await page().getByRole('row', { name: /Failing receiver/ }).waitFor();
      const listed = (await call('GET', `/v1/webhooks?workspace_id=${workspaceId}`)).body.data;
      assert.equal(listed.length, 1);
      assert.deepEqual(listed[0].headerNames, ['X-Team']);
      assert.deepEqual(listed[0].events, ['deploy.recorded']);
      hook = { id: listed[0].id, secret };
      await auditPage(page(), `${engine}-webhooks`);

      // Once: nowhere in the address or storage, and gone after leaving the page.
      const kept = await page().evaluate(`JSON.stringify([location.href, { ...localStorage }, { ...sessionStorage }])`);
      assert.doesNotMatch(String(kept), /whsec_/);
      await page().getByRole('link', { name: 'Open the new webhook' }).click();
      await heading(/Webhook Failing receiver/).waitFor();
      await page().goBack();
      await heading('Webhooks').waitFor();
      await page().getByRole('row', { name: /Failing receiver/ }).waitFor();
      assert.equal(await page().locator('.shown-once').count(), 0);
      assert.doesNotMatch(await page().locator('body').innerText(), new RegExp(secret.slice(6, 20).replace(/[+/]/g, '\\$&')));
      w.assertClean();
    });

    it('shows a delivery to a failing receiver as failed, with its payload and answer, and Redeliver makes a new attempt', async () => {
      const deploy = await call('POST', '/v1/deploys', { workspaceId, commitSha: crypto.randomBytes(20).toString('hex'), environment: 'staging' });
      assert.equal(deploy.status, 201);
      const [first] = await receiver.waitFor('/fail', 1, 20_000);
      // The worker records the attempt after the receiver answers: on busy cores that can be well
      // after the receiver saw it, and the page reads the deliveries once.
      await waitFor('the attempt recorded', async () => (await call('GET', `/v1/webhooks/${hook.id}/deliveries`)).body.data.length > 0, 20_000);

      await page().goto(`/w/${workspaceId}/webhooks/${hook.id}`);
      await heading(/Webhook Failing receiver/).waitFor();
      const row = page().getByRole('row', { name: /deploy\.recorded/ });
      await row.waitFor();
      assert.match(await row.innerText(), /Failed/);
      assert.match(await row.innerText(), /500/);
      assert.equal(await row.locator('time').count(), 2, 'sent, and the next retry is scheduled');

      // Filters go to the API and stay in the address.
      await page().getByLabel('Status').selectOption('success');
      await page().getByRole('button', { name: 'Apply filters' }).click();
      await page().getByText('No deliveries match these filters.').waitFor();
      assert.match(page().url(), /status=success/);
      await page().getByLabel('Status').selectOption('failed');
      await page().getByLabel('Event').selectOption('deploy.recorded');
      await page().getByRole('button', { name: 'Apply filters' }).click();
      await row.waitFor();
      assert.match(page().url(), /status=failed&event=deploy.recorded/);

      await row.getByRole('button', { name: 'Details' }).click();
      const payload = page().getByRole('region', { name: 'Payload sent' });
      await payload.waitFor();
      const sent = JSON.parse(first.body);
      assert.deepEqual(JSON.parse(await payload.innerText()), sent, 'the payload exactly as the receiver got it');
      assert.equal(sent.data.deploy.id, deploy.body.id);
      assert.equal(await page().getByRole('region', { name: 'Response body' }).innerText(), RECEIVER_SAYS);
      await page().getByText('HTTP 500').waitFor();
      await auditPage(page(), `${engine}-webhook-delivery`);

      await page().getByRole('region', { name: 'The attempt in detail' }).getByRole('button', { name: 'Redeliver' }).click();
      await page().getByText(/Redelivered deploy\.recorded: attempt 2 failed, answered 500/).waitFor();
      const again = await receiver.waitFor('/fail', 2);
      assert.equal(again[1].body, first.body, 'the identical body');
      assert.equal(again[1].headers['webhook-id'], first.headers['webhook-id']);
      await page().getByRole('row', { name: /deploy\.recorded\s+2\s+Failed/ }).waitFor();
      const attempts = (await call('GET', `/v1/webhooks/${hook.id}/deliveries?event=deploy.recorded`)).body.data;
      assert.deepEqual(attempts.map((a: { attempt: number }) => a.attempt), [2, 1]);

      // A test goes to this endpoint whatever it subscribes to, and is listed with the rest.
      await page().getByRole('button', { name: 'Send test' }).click();
      await page().getByText(/Test sent: attempt 1 failed, answered 500/).waitFor();
      await page().getByLabel('Event').selectOption('');
      await page().getByRole('button', { name: 'Apply filters' }).click();
      await page().getByRole('row', { name: /webhook\.test/ }).waitFor();
      w.assertClean();
    });

    it('rotates the secret (shown once), pauses and resumes after confirming, and deletes after confirming', async () => {
      await page().goto(`/w/${workspaceId}/webhooks/${hook.id}`);
      await heading(/Webhook Failing receiver/).waitFor();
      await page().getByRole('button', { name: 'Rotate secret' }).click();
      const dialog = page().getByRole('dialog', { name: 'Rotate the signing secret?' });
      await dialog.getByRole('button', { name: 'Rotate secret' }).click();
      const rotated = (await page().locator('.shown-once code.secret').innerText()).trim();
      assert.match(rotated, /^whsec_/);
      assert.notEqual(rotated, hook.secret);
      // The receiver's next delivery is signed by both secrets, the new one first.
      await page().getByRole('button', { name: 'Send test' }).click();
      await page().getByText(/Test sent/).waitFor();
      const last = receiver.received.at(-1)!;
      assert.equal(last.headers['webhook-body-signature'].split(' ').length, 2);

      await page().getByRole('button', { name: 'Pause webhook' }).click();
      // Cancel leaves it alone.
      await page().getByRole('dialog', { name: 'Pause this webhook?' }).getByRole('button', { name: 'Cancel' }).click();
      assert.equal((await call('GET', `/v1/webhooks/${hook.id}`)).body.active, true);
      await page().getByRole('button', { name: 'Pause webhook' }).click();
      await page().getByRole('dialog', { name: 'Pause this webhook?' }).getByRole('button', { name: 'Pause webhook' }).click();
      await page().getByRole('button', { name: 'Resume webhook' }).waitFor();
      assert.equal((await call('GET', `/v1/webhooks/${hook.id}`)).body.active, false);
      await screenshot(page(), `${engine}-webhook-paused`);
      await page().getByRole('button', { name: 'Resume webhook' }).click();
      await page().getByRole('button', { name: 'Pause webhook' }).waitFor();
      assert.equal((await call('GET', `/v1/webhooks/${hook.id}`)).body.active, true);

      // Settings: a new name; the stored header is kept without its value ever reaching the page.
      await page().getByRole('form', { name: 'Edit the webhook' }).getByLabel('Name', { exact: true }).fill('Ops receiver');
      await page().getByRole('button', { name: 'Save changes' }).click();
      await heading('Webhook Ops receiver').waitFor();
      assert.deepEqual((await call('GET', `/v1/webhooks/${hook.id}`)).body.headerNames, ['X-Team']);

      // A second webhook to delete, so the first stays for the pages below.
      const doomed = await call('POST', '/v1/webhooks', { workspaceId, url: receiver.url('/gone'), events: ['site_check.completed'], name: 'To delete' });
      await page().goto(`/w/${workspaceId}/webhooks/${doomed.body.id}`);
      await heading('Webhook To delete').waitFor();
      await page().getByRole('button', { name: 'Delete webhook' }).click();
      await page().getByRole('dialog', { name: 'Delete this webhook?' }).getByRole('button', { name: 'Delete webhook' }).click();
      await heading('Webhooks').waitFor();
      assert.equal((await call('GET', `/v1/webhooks/${doomed.body.id}`)).status, 404);
      w.assertClean();
    });

    it('request logs: filters by status in the address, draws the chart, shows field errors', async () => {
      await call('POST', '/v1/deploys', { workspaceId, commitSha: 'not a sha' });
      // Rows appear within about a second (spec/logs.tsp).
      await waitFor('the failed request in the log', async () => (await call('GET', `/v1/logs?workspace_id=${workspaceId}&status=failed`)).body.meta.total > 0, 10_000);
      await go('logs');
      await heading('Request logs').waitFor();
      await page().locator('.chart canvas').first().waitFor();
      await page().getByRole('img', { name: /Requests and errors per day/ }).waitFor();
      await page().getByText('Each day as a table').click();
      assert.equal(await page().getByRole('region', { name: 'Requests per day table' }).locator('tbody tr').count(), 7, 'one row a day, the numbers of the chart');
      await auditPage(page(), `${engine}-logs`);

      await page().getByLabel('Outcome').selectOption('failed');
      await page().getByRole('button', { name: 'Apply filters' }).click();
      await page().waitForURL(/status=failed/);
      const bad = page().getByRole('row', { name: /not a sha|must be a commit SHA/ });
      await bad.first().waitFor();
      const expected = (await call('GET', `/v1/logs?workspace_id=${workspaceId}&status=failed`)).body;
      const statuses = await page().locator('table.logs tbody tr td:nth-child(4)').allInnerTexts();
      assert.equal(statuses.length, expected.data.length);
      assert.ok(statuses.every((s) => Number(s) >= 400), statuses.join());
      assert.match(await page().locator('dl.totals').innerText(), new RegExp(`Requests\\s+${expected.meta.total}\\b`));

      await page().getByLabel('Window').selectOption('1');
      await page().getByRole('button', { name: 'Apply filters' }).click();
      await page().getByRole('img', { name: /Requests and errors per hour/ }).waitFor();
      assert.match(page().url(), /days=1/);

      // A value the API refuses is named next to its field.
      await page().goto(`/w/${workspaceId}/logs?status_code=99`);
      await assertInvalid(page().getByLabel('Status code'), />= 100/);
      w.assertClean();
    });

    it('activity: filters by kind, with actor, target and details', async () => {
      await go('activity');
      await heading('Activity').waitFor();
      await page().locator('table.activity tbody tr').first().waitFor();
      await page().getByLabel('Kind').selectOption('webhook');
      await page().getByRole('button', { name: 'Apply filter' }).click();
      await page().waitForURL(/kind=webhook/);
      const failed = page().getByRole('row', { name: /webhook\.delivery\.failed/ });
      await failed.first().waitFor();
      const kinds = await page().locator('table.activity tbody tr td:nth-child(2)').allInnerTexts();
      const expected = (await call('GET', `/v1/activity?workspace_id=${workspaceId}&kind=webhook`)).body.data;
      // The worker keeps retrying the failing receiver, so the feed grows while the test reads it:
      // the counts of two reads need not match; every row the page shows must be of the kind.
      assert.ok(kinds.length > 0 && expected.length > 0);
      assert.ok(kinds.every((k) => k === 'Webhooks'), kinds.join());
      assert.match(await failed.first().innerText(), /webhook/);
      await page().getByRole('row', { name: /webhook\.paused/ }).first().waitFor();
      await auditPage(page(), `${engine}-activity`);

      await page().getByLabel('Kind').selectOption('billing');
      await page().getByRole('button', { name: 'Apply filter' }).click();
      await page().getByText('No billing activity yet.').waitFor();
      w.assertClean();
    });

    it('works on a 360 px wide phone', async () => {
      await page().setViewportSize({ width: 360, height: 740 });
      try {
        await page().goto(`/w/${workspaceId}/webhooks/${hook.id}?event=deploy.recorded`);
        await page().getByRole('row', { name: /deploy\.recorded/ }).first().getByRole('button', { name: 'Details' }).click();
        await page().getByRole('region', { name: 'Payload sent' }).waitFor();
        await phone(page(), `${engine}-webhook-phone`);
        await go('logs');
        await page().locator('.chart canvas').first().waitFor();
        await page().locator('table.logs').waitFor();
        await phone(page(), `${engine}-logs-phone`);
        await go('activity');
        await page().locator('table.activity').waitFor();
        await phone(page(), `${engine}-activity-phone`);
      } finally {
        await page().setViewportSize({ width: 1280, height: 900 });
      }
      w.assertClean();
    });
  });
}

/** The phone layouts and a second state of a page: kept as screenshots; axe already read the same markup at desktop width. */
async function phone(page: Page, name: string) {
  assert.deepEqual(await overflowsSideways(page), [], `nothing scrolls sideways on ${name}`);
  await screenshot(page, name);
}


