// Webhook deliveries end to end: an API server process, worker processes and a real HTTPS
// receiver trusted through NODE_EXTRA_CA_CERTS. Signatures verify with the official Standard
// Webhooks library; retries, pausing, test, redelivery, rotation, crashes and secrecy as a
// partner sees them.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Activity, WebhookDelivery, createDb, type Db } from '../core/db/index.ts';
import { createApiKey, createUser } from '../core/access/index.ts';
import { createWorkspace } from '../core/workspaces/index.ts';
import { engines, dropCreatedDatabases, freshDatabaseUrl } from './support/databases.ts';
import { checkedFetch } from './support/contract.ts';
import { killAll, startServerProcess, startWorkerProcess, waitUntil, type Proc, type ServerProc } from './support/processes.ts';
import { waitFor } from './support/jobs.ts';
import { startReceiver, type Receiver, type Received } from './support/https-receiver.ts';

after(async () => {
  await killAll();
  await dropCreatedDatabases();
});

const bodySignature = (secret: string, body: string) => {
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
  return `v1,${crypto.createHmac('sha256', key).update(body, 'utf8').digest('base64')}`;
};

/** Verifies with the official library (timestamped signature) and by hand (body signature). */
function verify(secret: string, r: Received): Record<string, any> {
  const event = new StandardWebhook(secret).verify(r.body, r.headers) as Record<string, any>;
  assert.ok(r.headers['webhook-body-signature'].split(' ').includes(bodySignature(secret, r.body)), 'body signature');
  return event;
}

function randomText(rand: () => number, max: number): string {
  const pools = ['héllo wörld ', '日本語のテキスト ', 'مرحبا بالعالم ', '🚀🔥✨ ', 'e\u0301 combining ', 'plain ascii text ', 'quotes "\'\\ and <tags> ', 'tab\tnew\nline '];
  let s = '';
  const len = 1 + Math.floor(rand() * max);
  while (s.length < len) s += pools[Math.floor(rand() * pools.length)];
  // Never cut a surrogate pair in half: that would not be valid text.
  return Array.from(s).slice(0, len).join('').slice(0, max).replace(/[\ud800-\udbff]$/, '');
}

for (const engine of engines()) {
  describe(`webhook deliveries (${engine})`, () => {
    let url: string;
    let db: Db;
    let receiver: Receiver;
    let server: ServerProc;
    let worker: Proc;
    let key: string;
    let workspaceId: string;
    const seenResponses: string[] = [];
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await checkedFetch(server.url, method, path, { key, body });
      seenResponses.push(JSON.stringify(res.body ?? null));
      return res;
    };
    const deploy = (extra: Record<string, unknown> = {}) =>
      api('POST', '/v1/deploys', { workspaceId, commitSha: crypto.randomBytes(20).toString('hex'), environment: 'staging', ...extra });
    const hook = async (path: string, body: Record<string, unknown> = {}) => {
      const res = await api('POST', '/v1/webhooks', { workspaceId, url: receiver.url(path), events: ['deploy.recorded'], ...body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body as { id: string; secret: string };
    };

    before(async () => {
      receiver = await startReceiver();
      url = await freshDatabaseUrl(engine);
      const env = {
        NODE_EXTRA_CA_CERTS: receiver.certFile,
        ALLOW_PRIVATE_NETWORK: '1',
        WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1',
        WEBHOOK_PAUSE_AFTER_FAILURES: '3',
        WEBHOOK_PAUSE_AFTER_HOURS: '0',
        WEBHOOK_TIMEOUT_MS: '8000',
        JOB_LEASE_MS: '1500',
        JOB_HEARTBEAT_MS: '300',
        WORKER_CONCURRENCY: '8',
      };
      server = await startServerProcess(url, env);
      worker = await startWorkerProcess(url, env);
      db = createDb(url);
      const u = await createUser(db, `hooks-${engine}-${Date.now()}@example.com`);
      workspaceId = (await createWorkspace(db, { accountId: u.accountId, userId: u.userId, input: { name: `Hooks ${engine} ${Date.now()}`, website: 'https://www.example.com' } })).id;
      key = (await createApiKey(db, { userId: u.userId, scopes: ['deploys', 'search', 'workspaces', 'webhooks'] })).apiKey;
    });
    after(async () => {
      await db?.destroy();
      await receiver?.close();
    });

    it('delivers a recorded deploy, signed: the Standard Webhooks library verifies it, the body signature verifies by hand', async () => {
      const h = await hook('/ok');
      const d = (await deploy({ message: 'Ship it' })).body;
      const [r] = await receiver.waitFor('/ok', 1);
      const event = verify(h.secret, r);
      assert.equal(event.type, 'deploy.recorded');
      assert.equal(event.workspaceId, workspaceId);
      assert.equal(event.data.deploy.id, d.id);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.match(r.headers['webhook-id'], /^msg_[0-9a-f]{32}$/);
      // The attempt as the API shows it: the payload exactly as received, its hash, status success.
      const list = await waitFor('the attempt to be recorded', async () => { const l = await api('GET', `/v1/webhooks/${h.id}/deliveries`); return l.body.data.length === 1 ? l : null; }, 10_000);
      const a = list.body.data[0];
      assert.equal(a.status, 'success');
      assert.equal(a.attempt, 1);
      assert.equal(a.responseStatus, 204);
      assert.equal(a.deliveryKey, r.headers['webhook-id']);
      assert.equal(a.bodyHash, crypto.createHash('sha256').update(r.body).digest('hex'));
      assert.equal('nextRetryAt' in a, false);
      const single = (await api('GET', `/v1/webhooks/${h.id}/deliveries/${a.id}`)).body;
      assert.equal(single.payload, r.body);
      assert.ok((await api('GET', `/v1/webhooks/${h.id}`)).body.lastTriggeredAt);
    });

    // 100 bodies per engine, each engine its own (seeded, so a failure replays): the same seed on
    // both sent the same 200 bodies twice.
    it('100 random bodies, unicode and large, all verify', async () => {
      const h = await hook('/many');
      const rand = (() => {
        let a = engine === 'sqlite' ? 42 : 4242;
        return () => ((a = (a * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
      })();
      const changes = Array.from({ length: 500 }, (_, i) => ({ path: `src/pages/日本/${i}-página-🚀.astro`, category: 'page', signals: [{ kind: 'title', change: 'added', line: i + 1 }] }));
      for (let i = 0; i < 100; i++) await deploy({ message: randomText(rand, 2000), ref: randomText(rand, 255), ...(i % 10 === 0 ? { changes } : {}) });
      const got = await receiver.waitFor('/many', 100, 60_000);
      assert.equal(got.length, 100);
      for (const r of got) assert.equal(verify(h.secret, r).type, 'deploy.recorded');
      assert.ok(got.some((r) => r.body.length > 50_000), 'some payloads are large');
    });

    it('test events go to this endpoint only, whatever it subscribes to', async () => {
      const h = await hook('/test-only', { events: ['site_crawl.regression'] });
      const res = await api('POST', `/v1/webhooks/${h.id}/test`);
      assert.equal(res.status, 200);
      assert.equal(res.body.event, 'webhook.test');
      assert.equal(res.body.status, 'success');
      const [r] = await receiver.waitFor('/test-only', 1);
      const event = verify(h.secret, r);
      assert.equal(event.type, 'webhook.test');
      assert.equal(event.data.webhookId, h.id);
    });

    it('redelivery is byte-identical, with the same webhook-id and body signature, a new timestamp and the next attempt number', async () => {
      const h = await hook('/redeliver');
      await deploy();
      const [first] = await receiver.waitFor('/redeliver', 1);
      const attempt = await waitFor('the first attempt', async () => (await api('GET', `/v1/webhooks/${h.id}/deliveries`)).body.data[0], 10_000);
      await new Promise((r) => setTimeout(r, 1100)); // a new second, so a new timestamp
      const res = await api('POST', `/v1/webhooks/${h.id}/deliveries/${attempt.id}/redeliver`);
      assert.equal(res.status, 201);
      assert.equal(res.body.attempt, 2);
      assert.equal(res.body.deliveryKey, attempt.deliveryKey);
      const [, again] = await receiver.waitFor('/redeliver', 2);
      assert.equal(again.body, first.body);
      assert.equal(again.headers['webhook-id'], first.headers['webhook-id']);
      assert.equal(again.headers['webhook-body-signature'], first.headers['webhook-body-signature']);
      assert.ok(Number(again.headers['webhook-timestamp']) > Number(first.headers['webhook-timestamp']));
      assert.notEqual(again.headers['webhook-signature'], first.headers['webhook-signature']);
      verify(h.secret, again);
    });

    it('a receiver answering 500: retries follow the schedule, failureCount grows, the webhook pauses and its retries stop; active: true brings it back', async () => {
      receiver.answer('/fail', { status: 500, body: 'boom' });
      const h = await hook('/fail');
      await deploy();
      const got = await receiver.waitFor('/fail', 3, 30_000);
      await waitUntil('the pause', async () => (await api('GET', `/v1/webhooks/${h.id}`)).body.active === false, 15_000);
      const paused = (await api('GET', `/v1/webhooks/${h.id}`)).body;
      assert.equal(paused.failureCount, 3);
      // About one schedule step (1 s, ±10% jitter, plus a poll) between attempts.
      for (let i = 1; i < got.length; i++) {
        const gap = got[i].at - got[i - 1].at;
        assert.ok(gap >= 850 && gap < 4000, `gap ${gap} ms between attempts ${i} and ${i + 1}`);
        assert.equal(got[i].headers['webhook-id'], got[0].headers['webhook-id']);
        assert.equal(got[i].body, got[0].body);
      }
      await new Promise((r) => setTimeout(r, 2500));
      assert.equal(receiver.received.filter((r) => r.path === '/fail').length, 3, 'pending retries were cancelled');
      const attempts = (await api('GET', `/v1/webhooks/${h.id}/deliveries?status=failed`)).body.data;
      assert.deepEqual(attempts.map((a: { attempt: number }) => a.attempt), [3, 2, 1]);
      assert.equal(attempts[0].responseBody, 'boom');
      assert.equal('nextRetryAt' in attempts[0], false, 'no retry after the pause');
      assert.ok(attempts[1].nextRetryAt, 'retries were scheduled before it');
      const actions = (await Activity.query(db).where({ target_id: h.id }).orderBy('created_at')).map((r) => r.action);
      assert.deepEqual(actions, ['webhook.delivery.failed', 'webhook.delivery.failed', 'webhook.delivery.failed', 'webhook.paused']);

      // Paused: redelivery is refused; a test still goes out.
      const refused = await api('POST', `/v1/webhooks/${h.id}/deliveries/${attempts[0].id}/redeliver`);
      assert.equal(refused.status, 409);
      assert.equal(refused.body.code, 'webhook_paused');
      assert.equal((await api('POST', `/v1/webhooks/${h.id}/test`)).body.status, 'failed');

      receiver.answer('/fail', { status: 200 });
      const back = (await api('PUT', `/v1/webhooks/${h.id}`, { active: true })).body;
      assert.equal(back.active, true);
      assert.equal(back.failureCount, 0);
      await deploy();
      await waitUntil('the next event to arrive', async () => (await api('GET', `/v1/webhooks/${h.id}/deliveries?status=success`)).body.data.length === 1, 15_000);
      assert.ok((await Activity.query(db).where({ target_id: h.id, action: 'webhook.enabled' })).length === 1);
    });

    it('410 pauses after one attempt; a redirect is a failure and is not followed', async () => {
      receiver.answer('/gone', { status: 410 });
      const gone = await hook('/gone');
      receiver.answer('/moved', { status: 302, headers: { location: receiver.url('/elsewhere') } });
      const moved = await hook('/moved');
      await deploy();
      await waitUntil('the 410 pause', async () => (await api('GET', `/v1/webhooks/${gone.id}`)).body.active === false, 15_000);
      assert.equal(receiver.received.filter((r) => r.path === '/gone').length, 1);
      const attempt = await waitFor('the redirect attempt', async () => (await api('GET', `/v1/webhooks/${moved.id}/deliveries`)).body.data[0], 15_000);
      assert.equal(attempt.status, 'failed');
      assert.equal(attempt.responseStatus, 302);
      assert.ok(attempt.nextRetryAt, 'retried later, like any failure');
      assert.equal(receiver.received.filter((r) => r.path === '/elsewhere').length, 0, 'the redirect was not followed');
      await api('PUT', `/v1/webhooks/${moved.id}`, { active: false });
    });

    it('the deliveries list: newest first, status and event filters, cursor pages', async () => {
      const h = await hook('/paged', { events: ['deploy.recorded'] });
      for (let i = 0; i < 5; i++) await deploy();
      await api('POST', `/v1/webhooks/${h.id}/test`);
      await waitUntil('six attempts', async () => (await api('GET', `/v1/webhooks/${h.id}/deliveries`)).body.data.length === 6, 15_000);
      const all = (await api('GET', `/v1/webhooks/${h.id}/deliveries`)).body.data;
      const order = all.map((a: { createdAt: string; id: string }) => `${a.createdAt}|${a.id}`);
      assert.deepEqual(order, [...order].sort().reverse());
      assert.equal((await api('GET', `/v1/webhooks/${h.id}/deliveries?event=webhook.test`)).body.data.length, 1);
      assert.equal((await api('GET', `/v1/webhooks/${h.id}/deliveries?event=deploy.recorded&status=success`)).body.data.length, 5);
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { data: Array<{ id: string }>; meta: { next_cursor: string | null } } = (await api('GET', `/v1/webhooks/${h.id}/deliveries?limit=4${cursor ? `&cursor=${cursor}` : ''}`)).body;
        paged.push(...page.data.map((a: { id: string }) => a.id));
        cursor = page.meta.next_cursor;
      } while (cursor);
      assert.deepEqual(paged, all.map((a: { id: string }) => a.id));
      for (const q of ['limit=0', 'limit=201', 'status=ok', 'event=nope', 'cursor=!!']) assert.equal((await api('GET', `/v1/webhooks/${h.id}/deliveries?${q}`)).status, 400, q);
    });

    it('rotation: for 24 hours every delivery carries two signatures, each valid with its secret', async () => {
      const h = await hook('/rotate');
      const next = `whsec_${crypto.randomBytes(32).toString('base64')}`;
      const rotated = (await api('PUT', `/v1/webhooks/${h.id}`, { secret: next })).body;
      assert.equal(rotated.secret, next);
      await deploy();
      const [r] = await receiver.waitFor('/rotate', 1);
      assert.equal(r.headers['webhook-signature'].split(' ').length, 2);
      assert.equal(r.headers['webhook-body-signature'].split(' ').length, 2);
      verify(next, r);
      verify(h.secret, r);
    });

    it('secrets and header values appear in no API response, no log line and no stored response text', async () => {
      const secret = `whsec_${crypto.randomBytes(32).toString('base64')}`;
      const headerValue = `hv-${crypto.randomBytes(12).toString('hex')}`;
      // The receiver echoes both back: what we store of its answer must hide them.
      receiver.answer('/echo', { status: 500, body: `you sent ${headerValue} and I know ${secret}` });
      const h = await hook('/echo', { secret, headers: { 'X-Token': headerValue } });
      await api('POST', `/v1/webhooks/${h.id}/test`);
      await deploy();
      await receiver.waitFor('/echo', 2);
      const [r] = receiver.received.filter((x) => x.path === '/echo');
      assert.equal(r.headers['x-token'], headerValue, 'the custom header was sent');
      const attempts = await waitFor('the attempts', async () => {
        const rows = await WebhookDelivery.query(db).where({ webhook_id: h.id });
        return rows.length >= 2 ? rows : null;
      }, 10_000);
      for (const a of attempts) assert.match(a.response_body!, /\[REDACTED\].*\[REDACTED\]/);
      const leaks = (text: string) => text.includes(headerValue) || text.includes(secret) || text.includes(secret.slice(6));
      // Responses after creation (the create response itself must show the secret once).
      assert.ok(!seenResponses.slice(seenResponses.findIndex((t) => t.includes(secret)) + 1).some(leaks), 'an API response leaked');
      assert.ok(![...server.output, ...worker.output].some(leaks), 'a log line leaked');
      for (const table of ['webhook_deliveries', 'webhook_messages', 'activity', 'events', 'request_logs', 'jobs']) {
        const rows = await db(table).select('*');
        assert.ok(!rows.some((row) => leaks(JSON.stringify(row))), `${table} holds a secret`);
      }
    });

    it('a worker killed mid-delivery: another worker sends the same attempt again, same delivery key and body', async () => {
      const second = await startWorkerProcess(url, {
        NODE_EXTRA_CA_CERTS: receiver.certFile,
        ALLOW_PRIVATE_NETWORK: '1',
        JOB_LEASE_MS: '1500',
        JOB_HEARTBEAT_MS: '300',
        WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1',
      });
      receiver.answer('/crash', { status: 200, delayMs: 5000 }, { status: 200 });
      const h = await hook('/crash');
      await deploy();
      const [first] = await receiver.waitFor('/crash', 1);
      // Whichever worker holds the delivery dies before it can record the answer.
      // The first attempt is made by the event's fan-out job.
      const message = (await db('webhook_messages').where({ webhook_id: h.id }).first()) as { event_id: string };
      const job = await waitFor('the running fan-out job', async () => (await db('jobs').where({ dedupe_key: `webhook_fanout:${message.event_id}`, state: 'running' }).first()) as { locked_by: string } | undefined, 5000);
      const victim = [worker, second].find((w) => job.locked_by.includes(`/${w.pid}/`))!;
      assert.ok(victim);
      victim.child.kill('SIGKILL');
      const [, again] = await receiver.waitFor('/crash', 2, 20_000);
      assert.equal(again.headers['webhook-id'], first.headers['webhook-id']);
      assert.equal(again.body, first.body);
      const attempts = await waitFor('one recorded attempt', async () => {
        const rows = (await api('GET', `/v1/webhooks/${h.id}/deliveries`)).body.data;
        return rows.length ? rows : null;
      }, 10_000);
      assert.deepEqual(attempts.map((a: { attempt: number; status: string }) => [a.attempt, a.status]), [[1, 'success']]);
      if (victim === worker) worker = second;
      else await second.stop();
    });
  });
}
