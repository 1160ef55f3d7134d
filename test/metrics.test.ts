// GET /metrics on the API server and the worker, as Prometheus scrapes them: real processes over
// real HTTP, exact counts after known traffic, and who may read them.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import net from 'node:net';
import os from 'node:os';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../core/db/index.ts';
import { claimJobs, enqueue, enqueueKind, JOB_KINDS } from '../core/jobs/index.ts';
import { isLoopback, metricsGate } from '../core/metrics/index.ts';
import { DomainError, createLogger, loadConfig } from '../core/platform/index.ts';
import { createWebhook } from '../core/webhooks/index.ts';
import { keyringFor } from '../core/secrets/index.ts';
import { WorkerMetrics, startMetricsListener } from '../worker/metrics.ts';
import { TestApi } from './support/api.ts';
import { checkedFetch, responseViolations } from './support/contract.ts';
import { dropCreatedDatabases, engines, freshDb } from './support/databases.ts';
import { parseExposition, samplesOf, valueOf, type Sample } from './support/exposition.ts';
import { htmlPage, startFixtureSite } from './support/fixture-site.ts';
import { startReceiver } from './support/https-receiver.ts';
import { killAll, startServerProcess, startWorkerProcess, waitUntil } from './support/processes.ts';

after(async () => {
  await killAll();
  await dropCreatedDatabases();
});

const EXPOSITION_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
const HTTP_BUCKETS = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'];

const ENV = {
  SITE_CHECK_DELAY_SECONDS: '0',
  CRAWL_DELAY_SECONDS: '3600',
  ALLOW_PRIVATE_NETWORK: '1',
  WEBHOOK_RETRY_SCHEDULE: '3600',
  FETCH_TIMEOUT_MS: '2000',
  WORKER_POLL_MS: '50',
};

/** A non-loopback address of this machine: connecting to it makes the client non-loopback too. */
const external = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
const BIND = external ? '0.0.0.0' : '127.0.0.1';
const noExternal = external ? false : 'this machine has no non-loopback IPv4 address';

const silent = createLogger('test-metrics', 'silent');

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

async function scrape(url: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; text: string; samples: Sample[]; headers: Headers }> {
  const res = await fetch(`${url}/metrics`, { headers });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, type, text, samples: res.status === 200 ? parseExposition(text) : [], headers: res.headers };
}

/** A refusal must be the problem document the API answers elsewhere. */
function assertProblem(r: { status: number; type: string; text: string }, status: number, code: string): void {
  assert.equal(r.status, status, r.text);
  const body = JSON.parse(r.text);
  assert.deepEqual(responseViolations('GET', '/metrics', r.status, r.type, body), []);
  assert.equal(body.code, code);
}

/** Every series of a histogram: cumulative buckets, +Inf equal to _count. */
function assertHistogram(samples: Sample[], name: string, labels: Record<string, string>, count: number, buckets?: string[]): void {
  assert.equal(valueOf(samples, `${name}_count`, labels), count, `${name}_count ${JSON.stringify(labels)}`);
  const b = samplesOf(samples, `${name}_bucket`, labels);
  if (buckets) assert.deepEqual(b.map((s) => s.labels.le), buckets);
  for (let i = 1; i < b.length; i++) assert.ok(b[i].value >= b[i - 1].value, `${name} buckets are cumulative`);
  assert.equal(b.at(-1)?.labels.le, '+Inf');
  assert.equal(b.at(-1)?.value, count);
}

describe('metrics access rule', () => {
  it('loopback is 127.0.0.0/8, ::1 and ::ffff:127.x, nothing else', () => {
    for (const a of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) assert.equal(isLoopback(a), true, a);
    for (const a of ['192.0.2.2', '10.0.0.1', '::ffff:10.0.0.1', '::', '0.0.0.0', 'fe80::1', '', 'localhost', undefined]) assert.equal(isLoopback(a), false, String(a));
  });

  it('without a token only loopback may read (404 otherwise); with one, only its bearer (401 otherwise)', () => {
    const refusal = (f: () => void): number | null => {
      try {
        f();
        return null;
      } catch (err) {
        assert.ok(err instanceof DomainError);
        return err.status;
      }
    };
    const open = metricsGate(null);
    assert.equal(refusal(() => open({ remoteAddress: '127.0.0.1', authorization: undefined })), null);
    assert.equal(refusal(() => open({ remoteAddress: '::ffff:127.0.0.1', authorization: undefined })), null);
    assert.equal(refusal(() => open({ remoteAddress: '192.0.2.2', authorization: undefined })), 404);
    assert.equal(refusal(() => open({ remoteAddress: undefined, authorization: undefined })), 404);

    const gate = metricsGate('s3cret-token');
    const as = (authorization: string | undefined, remoteAddress = '192.0.2.2') => refusal(() => gate({ remoteAddress, authorization }));
    assert.equal(as('Bearer s3cret-token'), null);
    assert.equal(as('bearer s3cret-token'), null, 'the scheme is case-insensitive');
    assert.equal(as(undefined, '127.0.0.1'), 401, 'loopback needs the token too once there is one');
    for (const wrong of [undefined, '', 'Bearer', 'Bearer s3cret-toke', 'Bearer s3cret-tokenx', 'Basic s3cret-token', 's3cret-token', 'Bearer s3cret-token extra']) {
      assert.equal(as(wrong), 401, String(wrong));
    }
  });

  it('WORKER_METRICS_PORT must be a port, METRICS_TOKEN printable; errors never echo the token', () => {
    assert.equal(loadConfig({}).worker.metricsPort, null);
    assert.equal(loadConfig({ WORKER_METRICS_PORT: '9464' }).worker.metricsPort, 9464);
    for (const bad of ['0', '65536', '-1', '80.5', 'abc', '1e3x']) {
      assert.throws(() => loadConfig({ WORKER_METRICS_PORT: bad }), new RegExp(`WORKER_METRICS_PORT must be a port number from 1 to 65535, got "${bad.replace('.', '\\.')}"`));
    }
    const c = loadConfig({});
    assert.equal(c.metricsToken, null);
    assert.equal(c.metricsHost, '127.0.0.1');
    assert.equal(loadConfig({ METRICS_TOKEN: 'abc~+/=', METRICS_HOST: '0.0.0.0' }).metricsToken, 'abc~+/=');
    assert.throws(
      () => loadConfig({ METRICS_TOKEN: 'two words' }),
      (err: Error) => err.message === 'METRICS_TOKEN must be printable ASCII without spaces' && !err.message.includes('two words'),
    );
  });
});

for (const engine of engines()) {
  describe(`metrics (${engine})`, () => {
    let api: TestApi;
    let owner: Awaited<ReturnType<TestApi['owner']>>;

    before(async () => {
      api = await TestApi.start(engine, { env: ENV });
      owner = await api.owner();
    });
    after(async () => {
      await api.stop();
    });

    it('API: requests by method, route template and status, with their latency and the process metrics', async () => {
      const server = await startServerProcess(api.dbUrl, { ...ENV, HOST: BIND });
      const deploy = () => ({ workspaceId: owner.workspaceId, environment: 'staging', commitSha: crypto.randomBytes(20).toString('hex') });
      for (let i = 0; i < 3; i++) assert.equal((await checkedFetch(server.url, 'POST', '/v1/deploys', { key: owner.apiKey, body: deploy() })).status, 201);
      for (let i = 0; i < 2; i++) assert.equal((await checkedFetch(server.url, 'POST', '/v1/deploys', { body: deploy() })).status, 401);
      assert.equal((await checkedFetch(server.url, 'GET', '/v1/no-such-thing', { key: owner.apiKey })).status, 404);
      assert.equal((await checkedFetch(server.url, 'GET', '/v1/deploys/not-an-id', { key: owner.apiKey })).status, 404);
      assert.equal((await fetch(`${server.url}/health`)).status, 200);

      const first = await scrape(server.url);
      assert.equal(first.status, 200);
      assert.equal(first.type, EXPOSITION_TYPE);
      const requests = (s: Sample[]) =>
        samplesOf(s, 'sitehealth_http_requests_total')
          .map((x) => `${x.labels.method} ${x.labels.route} ${x.labels.status} ${x.value}`)
          .sort();
      // Exactly these series: route templates, never a raw path; the scrape is counted once answered.
      assert.deepEqual(requests(first.samples), [
        'GET /health 200 1',
        'GET /v1/deploys/{id} 404 1',
        'GET unmatched 404 1',
        'POST /v1/deploys 201 3',
        'POST /v1/deploys 401 2',
      ]);
      for (const [method, route, status, n] of [
        ['POST', '/v1/deploys', '201', 3],
        ['POST', '/v1/deploys', '401', 2],
        ['GET', 'unmatched', '404', 1],
        ['GET', '/v1/deploys/{id}', '404', 1],
        ['GET', '/health', '200', 1],
      ] as const) {
        assertHistogram(first.samples, 'sitehealth_http_request_duration_seconds', { method, route, status }, n, HTTP_BUCKETS);
      }
      // CPU counts from the app's start in whole clock ticks, so it may still read 0.
      assert.ok(valueOf(first.samples, 'sitehealth_process_cpu_user_seconds_total')! >= 0);
      assert.ok(valueOf(first.samples, 'sitehealth_process_resident_memory_bytes')! > 0);
      assert.ok(valueOf(first.samples, 'sitehealth_nodejs_heap_size_used_bytes')! > 0);

      const second = await scrape(server.url);
      assert.equal(valueOf(second.samples, 'sitehealth_http_requests_total', { method: 'GET', route: '/metrics', status: '200' }), 1);
      assert.equal(valueOf(second.samples, 'sitehealth_http_requests_total', { method: 'POST', route: '/v1/deploys', status: '201' }), 3);
      await server.stop();
    });

    it('API: a client that is not on loopback gets 404 when no METRICS_TOKEN is set', { skip: noExternal }, async () => {
      const server = await startServerProcess(api.dbUrl, { ...ENV, HOST: BIND });
      const port = new URL(server.url).port;
      const outside = `http://${external}:${port}`;
      assert.equal((await fetch(`${outside}/health`)).status, 200, 'the address reaches the server');
      assertProblem(await scrape(outside), 404, 'not_found');
      const inside = await scrape(server.url);
      assert.equal(valueOf(inside.samples, 'sitehealth_http_requests_total', { method: 'GET', route: '/metrics', status: '404' }), 1);
      await server.stop();
    });

    it('API: with METRICS_TOKEN, /metrics needs Authorization: Bearer <token> from every client, loopback included', async () => {
      const token = crypto.randomBytes(24).toString('base64url');
      const server = await startServerProcess(api.dbUrl, { ...ENV, HOST: BIND, METRICS_TOKEN: token });
      const none = await scrape(server.url);
      assertProblem(none, 401, 'unauthorized');
      assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="metrics"');
      assertProblem(await scrape(server.url, { authorization: `Bearer ${token}x` }), 401, 'unauthorized');
      assertProblem(await scrape(server.url, { authorization: `Basic ${token}` }), 401, 'unauthorized');
      const ok = await scrape(server.url, { authorization: `Bearer ${token}` });
      assert.equal(ok.status, 200);
      assert.equal(ok.type, EXPOSITION_TYPE);
      assert.equal(valueOf(ok.samples, 'sitehealth_http_requests_total', { method: 'GET', route: '/metrics', status: '401' }), 3);
      if (external) {
        const outside = `http://${external}:${new URL(server.url).port}`;
        assert.equal((await scrape(outside, { authorization: `Bearer ${token}` })).status, 200);
        assertProblem(await scrape(outside), 401, 'unauthorized');
      }
      await server.stop();
      assert.ok(!server.output.join('\n').includes(token), 'the token is never logged');
    });

    it('worker: job latency and outcomes by kind, queue depth, webhook attempts', async (t) => {
      const site = await startFixtureSite();
      t.after(() => site.close());
      site.set('/', htmlPage({ title: 'Metrics home', h1: ['Home'], words: 50 }));
      site.set('/robots.txt', { body: 'User-agent: *\nAllow: /\n', contentType: 'text/plain' });
      const receiver = await startReceiver();
      t.after(() => receiver.close());
      const created = await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `Metrics ${crypto.randomUUID()}`, website: site.url('/') } });
      const workspaceId = created.body.data.id as string;
      await createWebhook(api.db, { workspaceId, url: receiver.url('/ok'), events: ['deploy.recorded'] }, { allowPrivateNetwork: true, keyring: keyringFor(api.config) });
      await createWebhook(api.db, { workspaceId, url: 'https://127.0.0.1:9/refused', events: ['deploy.recorded'] }, { allowPrivateNetwork: true, keyring: keyringFor(api.config) });
      // No worker has a handler for this kind: its only attempt fails for good.
      await enqueueKind(api.db, 'metrics_test_unknown', {}, { maxAttempts: 1 });

      const port = await freePort();
      const worker = await startWorkerProcess(api.dbUrl, { ...ENV, WORKER_METRICS_PORT: String(port), METRICS_HOST: BIND, NODE_EXTRA_CA_CERTS: receiver.certFile });
      const url = `http://127.0.0.1:${port}`;
      for (let i = 0; i < 2; i++) {
        const res = await api.call('POST', '/v1/deploys', { key: owner.apiKey, body: { workspaceId, commitSha: crypto.randomBytes(20).toString('hex') } });
        assert.equal(res.status, 201);
      }
      const count = (s: Sample[], kind: string, outcome: string) => valueOf(s, 'sitehealth_job_duration_seconds_count', { kind, outcome }) ?? 0;
      let s: Sample[] = [];
      await waitUntil(
        'the checks, the fan-outs and the job without a handler to end',
        async () => {
          s = (await scrape(url)).samples;
          return count(s, 'site_check', 'done') >= 2 && count(s, 'webhook_fanout', 'done') >= 4 && count(s, 'metrics_test_unknown', 'failed') >= 1;
        },
        60_000,
      );
      const last = await scrape(url);
      assert.equal(last.type, EXPOSITION_TYPE);
      s = last.samples;

      // Four fan-outs: a workspace with an active webhook writes every event (deploy.recorded and
      // site_check.completed, twice each); only the first two have subscribers.
      assertHistogram(s, 'sitehealth_job_wait_seconds', { kind: 'site_check' }, 2);
      assertHistogram(s, 'sitehealth_job_wait_seconds', { kind: 'webhook_fanout' }, 4);
      assertHistogram(s, 'sitehealth_job_wait_seconds', { kind: 'metrics_test_unknown' }, 1);
      assertHistogram(s, 'sitehealth_job_duration_seconds', { kind: 'site_check', outcome: 'done' }, 2);
      assertHistogram(s, 'sitehealth_job_duration_seconds', { kind: 'webhook_fanout', outcome: 'done' }, 4);
      assertHistogram(s, 'sitehealth_job_duration_seconds', { kind: 'metrics_test_unknown', outcome: 'failed' }, 1);
      assert.deepEqual(
        samplesOf(s, 'sitehealth_job_duration_seconds_count').map((x) => `${x.labels.kind} ${x.labels.outcome} ${x.value}`).sort(),
        ['metrics_test_unknown failed 1', 'site_check done 2', 'webhook_fanout done 4'],
      );
      assert.deepEqual(samplesOf(s, 'sitehealth_jobs_failed_total').map((x) => `${x.labels.kind} ${x.value}`), ['metrics_test_unknown 1']);

      // Each deploy: one attempt delivered, one refused and retried in an hour.
      assert.deepEqual(samplesOf(s, 'sitehealth_webhook_deliveries_total').map((x) => `${x.labels.outcome} ${x.value}`).sort(), ['delivered 2', 'retrying 2']);
      assertHistogram(s, 'sitehealth_webhook_delivery_duration_seconds', {}, 4);
      assert.equal((await receiver.waitFor('/ok', 2)).length, 2);

      // The queue now: the crawls wait an hour, so do the webhook retries; nothing is due or running.
      const depth = (kind: string, state: string) => valueOf(s, 'sitehealth_jobs', { kind, state });
      assert.equal(depth('site_crawl', 'scheduled'), 2);
      assert.equal(depth('webhook_delivery', 'scheduled'), 2);
      for (const kind of ['site_check', 'site_crawl', 'webhook_fanout', 'webhook_delivery']) {
        assert.equal(depth(kind, 'due'), 0, kind);
        assert.equal(depth(kind, 'running'), 0, kind);
        assert.equal(valueOf(s, 'sitehealth_jobs_oldest_due_seconds', { kind }), 0, kind);
      }
      assert.equal(depth('site_check', 'scheduled'), 0);
      assert.equal(valueOf(s, 'sitehealth_jobs_scrape_errors_total'), 0);
      assert.ok(valueOf(s, 'sitehealth_process_resident_memory_bytes')! > 0);

      if (external) assertProblem(await scrape(`http://${external}:${port}`), 404, 'not_found');
      await worker.stop();
    });

    it('worker: with METRICS_TOKEN the listener needs the bearer token; it answers nothing but GET /metrics', async () => {
      const token = crypto.randomBytes(24).toString('base64url');
      const port = await freePort();
      const worker = await startWorkerProcess(api.dbUrl, { ...ENV, WORKER_METRICS_PORT: String(port), METRICS_TOKEN: token });
      const url = `http://127.0.0.1:${port}`;
      const none = await scrape(url);
      assertProblem(none, 401, 'unauthorized');
      assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="metrics"');
      assertProblem(await scrape(url, { authorization: `Bearer ${token.slice(1)}` }), 401, 'unauthorized');
      const ok = await scrape(url, { authorization: `Bearer ${token}` });
      assert.equal(ok.status, 200);
      assert.equal(ok.type, EXPOSITION_TYPE);
      assert.equal(valueOf(ok.samples, 'sitehealth_jobs_scrape_errors_total'), 0);
      const other = await fetch(`${url}/health`, { headers: { authorization: `Bearer ${token}` } });
      assertProblem({ status: other.status, type: other.headers.get('content-type') ?? '', text: await other.text() }, 404, 'not_found');
      const post = await fetch(`${url}/metrics`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      assert.equal(post.status, 404);
      await worker.stop();
      assert.ok(!worker.output.join('\n').includes(token), 'the token is never logged');
    });

    it('worker: queue depth by state at scrape time; a failed or slow depth query is left out and counted, never a 500', async (t) => {
      const { db } = await freshDb(engine);
      const now = Date.now();
      await enqueue(db, 'site_check', { checkId: crypto.randomUUID() }, { runAt: now - 10_000 });
      await enqueue(db, 'site_check', { checkId: crypto.randomUUID() }, { runAt: now - 5_000 });
      await enqueue(db, 'site_check', { checkId: crypto.randomUUID() }, { runAt: now + 3_600_000 });
      assert.equal((await claimJobs(db, { workerId: 'test', limit: 1, leaseMs: 60_000, now })).length, 1);

      const metrics = new WorkerMetrics({ db, log: silent });
      const listener = await startMetricsListener({ metrics, host: '127.0.0.1', port: 0, token: null, log: silent });
      t.after(() => listener.close());
      const s = (await scrape(listener.url)).samples;
      assert.equal(valueOf(s, 'sitehealth_jobs', { kind: 'site_check', state: 'due' }), 1);
      assert.equal(valueOf(s, 'sitehealth_jobs', { kind: 'site_check', state: 'scheduled' }), 1);
      assert.equal(valueOf(s, 'sitehealth_jobs', { kind: 'site_check', state: 'running' }), 1);
      // Every declared kind and state has a sample, so no series vanishes at zero.
      assert.equal(samplesOf(s, 'sitehealth_jobs').length, JOB_KINDS.length * 3);
      const age = valueOf(s, 'sitehealth_jobs_oldest_due_seconds', { kind: 'site_check' })!;
      assert.ok(age >= 5 && age < 60, `the oldest due job waited ${age} s`);
      assert.equal(valueOf(s, 'sitehealth_jobs_scrape_errors_total'), 0);

      await db.destroy();
      const failed = await scrape(listener.url);
      assert.equal(failed.status, 200);
      assert.equal(samplesOf(failed.samples, 'sitehealth_jobs').length, 0);
      assert.equal(samplesOf(failed.samples, 'sitehealth_jobs_oldest_due_seconds').length, 0);
      assert.equal(valueOf(failed.samples, 'sitehealth_jobs_scrape_errors_total'), 1);

      // A database that never answers: each scrape waits depthTimeoutMs, and one query stays in flight.
      let queries = 0;
      const hung = { client: { config: { client: 'pg' } }, raw: () => (queries++, new Promise(() => {})) } as unknown as Db;
      const slow = new WorkerMetrics({ db: hung, log: silent, depthTimeoutMs: 200 });
      const slowListener = await startMetricsListener({ metrics: slow, host: '127.0.0.1', port: 0, token: null, log: silent });
      t.after(() => slowListener.close());
      const t0 = Date.now();
      const a = await scrape(slowListener.url);
      assert.equal(a.status, 200);
      assert.ok(Date.now() - t0 < 2000, `answered in ${Date.now() - t0} ms`);
      assert.equal(valueOf(a.samples, 'sitehealth_jobs_scrape_errors_total'), 1);
      const b = await scrape(slowListener.url);
      assert.equal(valueOf(b.samples, 'sitehealth_jobs_scrape_errors_total'), 2);
      assert.equal(queries, 1, 'a scrape does not pile another query onto one still running');
    });
  });
}
