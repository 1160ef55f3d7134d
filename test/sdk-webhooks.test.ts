// The SDK's verifyWebhook against signatures it did not make: the official Standard Webhooks
// library's, and real deliveries from our own server (an API server and a worker process posting
// to an HTTPS receiver): tolerance boundaries, rotation, tampering, and the typed events.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { createApiKey, createUser } from '../core/access/index.ts';
import { createDb, type Db } from '../core/db/index.ts';
import { signatureHeaders, signingKey as serverSigningKey } from '../core/webhooks/index.ts';
import { createWorkspace } from '../core/workspaces/index.ts';
import {
  createClient,
  signWebhook,
  signingKey,
  verifyBodySignature,
  verifyWebhook,
  WebhookVerificationError,
  type SiteHealth,
  type SiteHealthEvent,
  type WebhookVerificationReason,
} from '@sitehealth/sdk';
import { dropCreatedDatabases, freshDatabaseUrl } from './support/databases.ts';
import { startReceiver, type Receiver, type Received } from './support/https-receiver.ts';
import { waitFor } from './support/jobs.ts';
import { killAll, startServerProcess, startWorkerProcess, type ServerProc } from './support/processes.ts';

after(async () => {
  await killAll();
  await dropCreatedDatabases();
});

const rejects = (fn: () => Promise<unknown>, reason: WebhookVerificationReason) =>
  assert.rejects(fn, (e: unknown) => e instanceof WebhookVerificationError && e.reason === reason, reason);

const EVENT = {
  id: '01900000-0000-7000-8000-0000000000aa',
  type: 'webhook.test',
  createdAt: '2026-11-21T10:00:00.000Z',
  workspaceId: '01900000-0000-7000-8000-000000000001',
  data: { webhookId: '01900000-0000-7000-8000-000000000002', message: 'This is a test event from sitehealth.' },
};
const BODY = JSON.stringify(EVENT);
const SECRET = `whsec_${crypto.randomBytes(32).toString('base64')}`;

/** Headers as the Standard Webhooks library signs them, for a message signed at `at` (Unix seconds). */
function standardHeaders(secret: string, at: number, body = BODY, id = 'msg_standard_0001'): Record<string, string> {
  const signature = new StandardWebhook(secret).sign(id, new Date(at * 1000), body);
  return { 'webhook-id': id, 'webhook-timestamp': String(at), 'webhook-signature': signature };
}

describe('verifyWebhook against the standardwebhooks library', () => {
  const now = 1_800_000_000;

  it('accepts what the library signs, and the library accepts what signWebhook signs', async () => {
    const event = await verifyWebhook({ secret: SECRET, headers: standardHeaders(SECRET, now), body: BODY, now });
    assert.deepEqual(event, EVENT);
    const ours = await signWebhook({ id: 'msg_ours', body: BODY, secret: SECRET });
    assert.deepEqual(new StandardWebhook(SECRET).verify(BODY, ours), EVENT);
  });

  it('tolerance: 299 s and 300 s old or ahead are accepted, 301 s rejected', async () => {
    for (const skew of [0, 299, 300, -299, -300]) {
      assert.deepEqual(await verifyWebhook({ secret: SECRET, headers: standardHeaders(SECRET, now - skew), body: BODY, now }), EVENT, `${skew} s`);
    }
    await rejects(() => verifyWebhook({ secret: SECRET, headers: standardHeaders(SECRET, now - 301), body: BODY, now }), 'timestamp_too_old');
    await rejects(() => verifyWebhook({ secret: SECRET, headers: standardHeaders(SECRET, now + 301), body: BODY, now }), 'timestamp_too_new');
    // With the real clock, as a receiver runs it.
    const real = Math.floor(Date.now() / 1000);
    assert.deepEqual(await verifyWebhook({ secret: SECRET, headers: standardHeaders(SECRET, real - 299), body: BODY }), EVENT);
    await rejects(() => verifyWebhook({ secret: SECRET, headers: standardHeaders(SECRET, real - 301), body: BODY }), 'timestamp_too_old');
    // toleranceSeconds moves the boundary.
    assert.deepEqual(await verifyWebhook({ secret: SECRET, headers: standardHeaders(SECRET, now - 301), body: BODY, now, toleranceSeconds: 301 }), EVENT);
    await rejects(() => verifyWebhook({ secret: SECRET, headers: standardHeaders(SECRET, now - 11), body: BODY, now, toleranceSeconds: 10 }), 'timestamp_too_old');
  });

  it('rotation: a header with two signatures verifies with either secret, not with a third', async () => {
    const oldSecret = `whsec_${crypto.randomBytes(32).toString('base64')}`;
    const a = standardHeaders(SECRET, now);
    const b = standardHeaders(oldSecret, now);
    const both = { ...a, 'webhook-signature': `${a['webhook-signature']} ${b['webhook-signature']}` };
    assert.deepEqual(await verifyWebhook({ secret: SECRET, headers: both, body: BODY, now }), EVENT);
    assert.deepEqual(await verifyWebhook({ secret: oldSecret, headers: both, body: BODY, now }), EVENT);
    await rejects(() => verifyWebhook({ secret: `whsec_${crypto.randomBytes(32).toString('base64')}`, headers: both, body: BODY, now }), 'invalid_signature');
    // The library reads such a header the same way (it checks against the real clock).
    const real = Math.floor(Date.now() / 1000);
    const x = standardHeaders(SECRET, real);
    const y = standardHeaders(oldSecret, real);
    const bothNow = { ...x, 'webhook-signature': `${x['webhook-signature']} ${y['webhook-signature']}` };
    assert.deepEqual(new StandardWebhook(oldSecret).verify(BODY, bothNow), await verifyWebhook({ secret: oldSecret, headers: bothNow, body: BODY }));
  });

  it('tampered bodies are rejected: one changed byte, added whitespace, a re-serialized object', async () => {
    const headers = standardHeaders(SECRET, now);
    const flipped = Buffer.from(BODY);
    flipped[10] ^= 1;
    await rejects(() => verifyWebhook({ secret: SECRET, headers, body: flipped, now }), 'invalid_signature');
    await rejects(() => verifyWebhook({ secret: SECRET, headers, body: `${BODY}\n`, now }), 'invalid_signature');
    await rejects(() => verifyWebhook({ secret: SECRET, headers, body: JSON.stringify(EVENT, null, 1), now }), 'invalid_signature');
    await rejects(() => verifyWebhook({ secret: SECRET, headers, body: BODY.replace('webhook.test', 'deploy.recorded'), now }), 'invalid_signature');
    // The signature itself, truncated or from another message id.
    await rejects(() => verifyWebhook({ secret: SECRET, headers: { ...headers, 'webhook-signature': headers['webhook-signature'].slice(0, -4) }, body: BODY, now }), 'invalid_signature');
    await rejects(() => verifyWebhook({ secret: SECRET, headers: { ...headers, 'webhook-id': 'msg_other' }, body: BODY, now }), 'invalid_signature');
  });

  it('derives the key exactly as the server does, for whsec_ and raw secrets alike', async () => {
    const secrets = [
      SECRET,
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'whsec_url-safe_base64-chars_here',
      'whsec_not base64 at all!',
      'whsec_!!!!!!!!!!!!!!!!', // nothing decodes: the UTF-8 bytes
      'a-plain-secret-of-some-length',
      'Ünïcödé secret with spaces',
    ];
    for (const s of secrets) {
      assert.deepEqual(Buffer.from(signingKey(s)), serverSigningKey(s), s);
      const headers = signatureHeaders({ secrets: [s], id: 'msg_x', timestamp: now, body: BODY });
      assert.deepEqual(await verifyWebhook({ secret: s, headers, body: BODY, now, requireBodySignature: true }), EVENT, s);
    }
  });
});

describe('verifyWebhook against deliveries of our own server', () => {
  let receiver: Receiver;
  let server: ServerProc;
  let db: Db;
  let client: SiteHealth;
  let workspaceId: string;

  before(async () => {
    receiver = await startReceiver();
    const url = await freshDatabaseUrl('sqlite');
    const env = { NODE_EXTRA_CA_CERTS: receiver.certFile, ALLOW_PRIVATE_NETWORK: '1', WEBHOOK_RETRY_SCHEDULE: '1', WORKER_POLL_MS: '100', SITE_CHECK_DELAY_SECONDS: '3600', CRAWL_DELAY_SECONDS: '3600' };
    [server] = await Promise.all([startServerProcess(url, env), startWorkerProcess(url, env)]);
    db = createDb(url);
    const u = await createUser(db, `sdk-hooks-${Date.now()}@example.com`);
    workspaceId = (await createWorkspace(db, { accountId: u.accountId, userId: u.userId, input: { name: `SDK hooks ${Date.now()}`, website: 'https://www.example.com' } })).id;
    const key = (await createApiKey(db, { userId: u.userId, scopes: ['deploys', 'search', 'workspaces', 'webhooks'] })).apiKey;
    client = createClient({ apiKey: key, baseUrl: server.url });
  });
  after(async () => {
    await db?.destroy();
    await receiver?.close();
  });

  const last = (r: Received[]) => r[r.length - 1];

  it('a test event, a recorded deploy and a redelivery verify, typed by their type; tampering does not', async () => {
    const hook = await client.webhooks.create({ workspaceId, url: receiver.url('/own'), events: ['deploy.recorded'] });

    const attempt = await client.webhooks.test(hook.id);
    assert.equal(attempt.status, 'success');
    const testDelivery = last(await receiver.waitFor('/own', 1));
    const test = await verifyWebhook({ secret: hook.secret, headers: testDelivery.headers, body: testDelivery.body, requireBodySignature: true });
    assert.equal(test.type, 'webhook.test');
    if (test.type === 'webhook.test') assert.equal(test.data.webhookId, hook.id); // typed: data is WebhookTestData
    assert.deepEqual(await verifyBodySignature({ secret: hook.secret, headers: testDelivery.headers, body: testDelivery.body }), test);

    const commitSha = crypto.randomBytes(20).toString('hex');
    const deploy = await client.deploys.create({ workspaceId, commitSha, environment: 'staging' });
    const recorded = last(await receiver.waitFor('/own', 2));
    const event: SiteHealthEvent = await verifyWebhook({ secret: hook.secret, headers: recorded.headers, body: recorded.body });
    assert.equal(event.type, 'deploy.recorded');
    assert.equal(event.workspaceId, workspaceId);
    if (event.type !== 'deploy.recorded') throw new Error('unreachable');
    assert.equal(event.data.deploy.id, deploy.id);
    assert.equal(event.data.deploy.commitSha, commitSha);

    // Redelivery: the same body, a new signature, verifies again.
    // The attempt is written once the receiver has answered.
    const first = await waitFor('the delivery to be recorded', async () => (await client.webhooks.listDeliveries(hook.id, { event: 'deploy.recorded' })).data[0], 10_000);
    const again = await client.webhooks.redeliver(hook.id, first.id);
    assert.equal(again.status, 'success');
    const redelivered = last(await receiver.waitFor('/own', 3));
    assert.equal(redelivered.body, recorded.body);
    assert.deepEqual(await verifyWebhook({ secret: hook.secret, headers: redelivered.headers, body: redelivered.body }), event);

    await rejects(() => verifyWebhook({ secret: hook.secret, headers: recorded.headers, body: recorded.body.replace(commitSha, 'f'.repeat(40)) }), 'invalid_signature');
    const otherSecret = `whsec_${crypto.randomBytes(32).toString('base64')}`;
    await rejects(() => verifyWebhook({ secret: otherSecret, headers: recorded.headers, body: recorded.body }), 'invalid_signature');
    await rejects(() => verifyWebhook({ secret: hook.secret, headers: recorded.headers, body: recorded.body, now: Number(recorded.headers['webhook-timestamp']) + 301 }), 'timestamp_too_old');
    assert.ok(await verifyWebhook({ secret: hook.secret, headers: recorded.headers, body: recorded.body, now: Number(recorded.headers['webhook-timestamp']) + 299 }));
  });

  it('rotation: for a day both secrets sign; a receiver holding either verifies', async () => {
    const hook = await client.webhooks.create({ workspaceId, url: receiver.url('/rotating'), events: ['deploy.recorded'] });
    const rotated = 'a plain secret, rotated in: 32+ chars';
    const updated = await client.webhooks.update(hook.id, { secret: rotated });
    assert.equal((updated as { secret?: string }).secret, rotated);
    await client.webhooks.test(hook.id);
    const r = last(await receiver.waitFor('/rotating', 1));
    assert.equal(r.headers['webhook-signature'].split(' ').length, 2, 'signed with the new and the old secret');
    assert.equal(r.headers['webhook-body-signature'].split(' ').length, 2);
    const byNew = await verifyWebhook({ secret: rotated, headers: r.headers, body: r.body, requireBodySignature: true });
    const byOld = await verifyWebhook({ secret: hook.secret, headers: r.headers, body: r.body, requireBodySignature: true });
    assert.deepEqual(byNew, byOld);
    assert.equal(byNew.type, 'webhook.test');
    // The official library agrees (it reads every entry of the header too).
    assert.deepEqual(new StandardWebhook(hook.secret).verify(r.body, r.headers), byOld);
  });
});
