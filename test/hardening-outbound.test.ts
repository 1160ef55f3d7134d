// Peers that break HTTP, and the races around webhook attempts, through the public API of real
// server and worker processes on both engines: a receiver or a website that switches protocols,
// stalls after its headers or trickles its body ends within the documented timeout; two
// workspaces whose websites hang cannot hold a worker's every slot; concurrent redeliveries
// number their attempts without gaps or duplicates; a test or redelivery racing a delete is 404;
// custom headers follow what HTTP can carry; echoed secrets are redacted however they are spelt.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDb, type Db } from '../core/db/index.ts';
import { createApiKey, createUser, setWorkspaceLimit } from '../core/access/index.ts';
import { createWorkspace } from '../core/workspaces/index.ts';
import { engines, dropCreatedDatabases, freshDatabaseUrl } from './support/databases.ts';
import { checkedFetch, responseViolations } from './support/contract.ts';
import { killAll, startServerProcess, startWorkerProcess, waitUntil, type Proc, type ServerProc } from './support/processes.ts';
import { startReceiver, type Receiver } from './support/https-receiver.ts';
import { peerCertificate, startHostilePeer, type HostileMode, type HostilePeer } from './support/hostile-peer.ts';
import { htmlPage, startFixtureSite, type FixtureSite } from './support/fixture-site.ts';

after(async () => {
  await killAll();
  await dropCreatedDatabases();
});

const WEBHOOK_TIMEOUT_MS = 1500;
const FETCH_TIMEOUT_MS = 1500;
const MODES: HostileMode[] = ['switch', 'stall', 'trickle'];

for (const engine of engines()) {
  describe(`hostile peers and attempt races (${engine})`, { timeout: 240_000 }, () => {
    let url: string;
    let db: Db;
    let server: ServerProc;
    let worker: Proc;
    let receiver: Receiver;
    let site: FixtureSite;
    let key: string;
    let accountId: string;
    let userId: string;
    const tlsPeers = new Map<HostileMode, HostilePeer>();
    const plainPeers = new Map<HostileMode, HostilePeer>();
    let caFile: string;
    let env: Record<string, string>;

    const api = (method: string, p: string, body?: unknown) => checkedFetch(server.url, method, p, { key, body });
    const workspace = async (website: string) =>
      (await createWorkspace(db, { accountId, userId, input: { name: `Hostile ${crypto.randomUUID()}`, website } })).id;
    const productionDeploy = async (workspaceId: string) => {
      const res = await api('POST', '/v1/deploys', { workspaceId, commitSha: crypto.randomBytes(20).toString('hex') });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.id as string;
    };

    before(async () => {
      receiver = await startReceiver();
      site = await startFixtureSite();
      const certificate = await peerCertificate();
      for (const mode of MODES) {
        tlsPeers.set(mode, await startHostilePeer(mode, certificate));
        plainPeers.set(mode, await startHostilePeer(mode));
      }
      // One CA file trusts both the well-behaved receiver and the hostile ones.
      caFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-ca-')), 'ca.pem');
      fs.writeFileSync(caFile, `${receiver.cert}\n${certificate.cert}\n`);
      url = await freshDatabaseUrl(engine);
      env = {
        NODE_EXTRA_CA_CERTS: caFile,
        ALLOW_PRIVATE_NETWORK: '1',
        WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
        FETCH_TIMEOUT_MS: String(FETCH_TIMEOUT_MS),
        SITE_CHECK_DELAY_SECONDS: '0',
        CRAWL_DELAY_SECONDS: '0',
        CRAWL_DELAY_MS: '0',
        WEBHOOK_RETRY_SCHEDULE: '3600',
        WORKER_POLL_MS: '100',
      };
      server = await startServerProcess(url, env);
      db = createDb(url);
      const u = await createUser(db, `hostile-${engine}-${crypto.randomUUID()}@example.com`);
      accountId = u.accountId;
      userId = u.userId;
      await setWorkspaceLimit(db, accountId, 100);
      key = (await createApiKey(db, { userId, scopes: ['deploys', 'search', 'workspaces', 'webhooks'] })).apiKey;
    });
    after(async () => {
      await worker?.stop('SIGKILL');
      await db?.destroy();
      await receiver?.close();
      await site?.close();
      for (const p of [...tlsPeers.values(), ...plainPeers.values()]) await p.close();
    });

    it('a webhook test to a receiver that switches protocols, stalls after its headers or trickles its body fails within the webhook timeout', async () => {
      const workspaceId = await workspace('https://www.example.com');
      for (const mode of MODES) {
        const created = await api('POST', '/v1/webhooks', { workspaceId, url: `${tlsPeers.get(mode)!.origin}/hook`, events: ['deploy.recorded'] });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const t0 = performance.now();
        const res = await api('POST', `/v1/webhooks/${created.body.id}/test`);
        const elapsed = performance.now() - t0;
        assert.equal(res.status, 200, `${mode}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.status, 'failed', mode);
        assert.equal(res.body.responseStatus, null, mode);
        assert.ok(elapsed < WEBHOOK_TIMEOUT_MS + 2_000, `${mode}: the test answered after ${Math.round(elapsed)} ms`);
        assert.match(res.body.responseBody, mode === 'switch' ? /101 Switching Protocols/ : /within 1500 ms/, mode);
      }
    });

    it('a site check and a crawl of a website that switches protocols, stalls or trickles end with the page failed, within their timeouts', async () => {
      worker = await startWorkerProcess(url, { ...env, WORKER_CONCURRENCY: '4' });
      try {
        const deploys = await Promise.all(MODES.map(async (mode) => ({ mode, id: await productionDeploy(await workspace(`${plainPeers.get(mode)!.origin}/`)) })));
        const t0 = Date.now();
        await waitUntil('the three checks and crawls to end', async () => {
          const states = await Promise.all(deploys.map(async (d) => {
            const detail = (await api('GET', `/v1/deploys/${d.id}`)).body;
            return [detail.siteCheck?.state, detail.siteCrawl?.state];
          }));
          return states.flat().every((s) => s === 'finished' || s === 'failed');
        }, 40_000);
        // robots.txt, the home page and the sitemap each wait out FETCH_TIMEOUT_MS at most, and
        // the worker's four slots take the six jobs in two rounds.
        assert.ok(Date.now() - t0 < 30_000, `the checks and crawls took ${Date.now() - t0} ms`);
        for (const d of deploys) {
          const detail = (await api('GET', `/v1/deploys/${d.id}`)).body;
          assert.equal(detail.siteCheck.state, 'finished', d.mode);
          assert.ok(['finished', 'failed'].includes(detail.siteCrawl.state), d.mode);
          const latest = (await api('GET', `/v1/site-checks/latest?workspace_id=${detail.workspaceId}`)).body;
          assert.equal(latest.check.pages[0].status, null, `${d.mode}: the home page has no status`);
          assert.ok(latest.issues.some((i: { kind: string }) => i.kind === 'page_error'), `${d.mode}: the home page is an error`);
        }
      } finally {
        await worker.stop('SIGKILL');
      }
    });

    it("two workspaces whose websites hang cannot delay a third workspace's check: the last free slot goes to a workspace with nothing running", async () => {
      // The hostile websites hold each request for the full fetch timeout: their checks and
      // crawls keep a slot for minutes. Without the fair-share rule two such workspaces take
      // all four slots and the third workspace's check waits for one of them to end.
      const slow = { ...env, FETCH_TIMEOUT_MS: '60000', CRAWL_DELAY_SECONDS: '0', WORKER_CONCURRENCY: '4' };
      const fair = await startWorkerProcess(url, slow);
      try {
        const hostile = [await workspace(`${plainPeers.get('stall')!.origin}/a`), await workspace(`${plainPeers.get('stall')!.origin}/b`)];
        // A check and a crawl per deploy, two deploys per hostile workspace: eight due jobs.
        for (const w of hostile) for (let i = 0; i < 2; i++) await productionDeploy(w);
        await waitUntil('the hostile jobs to hold three slots', async () => {
          const running = await db('jobs').where({ state: 'running' }).count<{ n: number }[]>({ n: '*' });
          return Number(running[0].n) >= 3;
        }, 20_000);
        site.set('/', htmlPage({ title: 'Victim home', h1: ['Home'], words: 50 }));
        const victim = await workspace(site.url('/'));
        const id = await productionDeploy(victim);
        await waitUntil("the third workspace's check to start", async () => (await api('GET', `/v1/deploys/${id}`)).body.siteCheck?.startedAt != null, 30_000);
        const check = (await api('GET', `/v1/deploys/${id}`)).body.siteCheck;
        const delayMs = Date.parse(check.startedAt) - Date.parse(check.scheduledAt);
        console.log(`# fairness (${engine}): the third workspace's check started ${delayMs} ms after its scheduled time, with two hostile workspaces holding 3 of 4 slots`);
        assert.ok(delayMs < 3_000, `the check started ${delayMs} ms late`);
        await waitUntil("the third workspace's check to finish", async () => (await api('GET', `/v1/deploys/${id}`)).body.siteCheck?.state === 'finished', 30_000);
      } finally {
        await fair.stop('SIGKILL');
      }
    });

    it('32 concurrent redeliveries of one attempt take 32 distinct, gapless attempt numbers', async () => {
      const workspaceId = await workspace('https://www.example.com');
      const created = (await api('POST', '/v1/webhooks', { workspaceId, url: receiver.url('/redeliver'), events: ['deploy.recorded'] })).body;
      const first = (await api('POST', `/v1/webhooks/${created.id}/test`)).body;
      assert.equal(first.attempt, 1);
      const results = await Promise.all(Array.from({ length: 32 }, () => api('POST', `/v1/webhooks/${created.id}/deliveries/${first.id}/redeliver`)));
      for (const r of results) assert.equal(r.status, 201, JSON.stringify(r.body));
      const attempts = results.map((r) => r.body.attempt as number).sort((a, b) => a - b);
      assert.deepEqual(attempts, Array.from({ length: 32 }, (_, i) => i + 2));
    });

    it('tests and redeliveries racing a delete answer 404, never 500', async () => {
      const workspaceId = await workspace('https://www.example.com');
      receiver.answer('/race', { status: 204, delayMs: 50 });
      const created = (await api('POST', '/v1/webhooks', { workspaceId, url: receiver.url('/race'), events: ['deploy.recorded'] })).body;
      const first = (await api('POST', `/v1/webhooks/${created.id}/test`)).body;
      const calls = [
        ...Array.from({ length: 32 }, () => api('POST', `/v1/webhooks/${created.id}/test`)),
        ...Array.from({ length: 32 }, () => api('POST', `/v1/webhooks/${created.id}/deliveries/${first.id}/redeliver`)),
      ];
      await new Promise((r) => setTimeout(r, 20));
      const removed = await api('DELETE', `/v1/webhooks/${created.id}`);
      assert.equal(removed.status, 204);
      const statuses = (await Promise.all(calls)).map((r) => r.status);
      for (const s of statuses) assert.ok([200, 201, 404].includes(s), `status ${s}`);
      assert.ok(statuses.includes(404), `some calls lost the race: ${statuses.join(',')}`);
      assert.equal((await api('GET', `/v1/webhooks/${created.id}`)).status, 404);
    });

    it('custom headers: visible ASCII values, names up to 64 characters, no hop-by-hop or protocol headers, no User-Agent', async () => {
      const workspaceId = await workspace('https://www.example.com');
      const create = (headers: Record<string, string>) => api('POST', '/v1/webhooks', { workspaceId, url: receiver.url('/headers'), events: ['deploy.recorded'], headers });
      const refused: Array<[Record<string, string>, string]> = [
        [{ 'X-Emoji': 'ok 🚀' }, '/headers/X-Emoji'],
        [{ 'X-Separator': 'a\u2028b' }, '/headers/X-Separator'],
        [{ 'X-Latin': 'caf\u00e9' }, '/headers/X-Latin'],
        [{ ['X-' + 'a'.repeat(63)]: 'v' }, `/headers/X-${'a'.repeat(63)}`],
      ];
      for (const name of ['Connection', 'Transfer-Encoding', 'Upgrade', 'TE', 'Keep-Alive', 'Expect', 'Proxy-Authorization', 'proxy-connection', 'Host', 'User-Agent', 'Trailer']) {
        refused.push([{ [name]: 'x' }, `/headers/${name}`]);
      }
      for (const [headers, pointer] of refused) {
        const res = await create(headers);
        assert.equal(res.status, 400, `${JSON.stringify(headers)} was accepted`);
        assert.equal(res.body.code, 'validation_failed');
        assert.deepEqual(res.body.errors.map((e: { path: string }) => e.path), [pointer], JSON.stringify(res.body.errors));
      }
      const sixtyFour = 'X-' + 'a'.repeat(62);
      const ok = await create({ Cookie: 'session=abc', Authorization: 'Bearer t0ken', [sixtyFour]: 'visible ASCII ~ only' });
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      assert.deepEqual(ok.body.headerNames, ['Cookie', 'Authorization', sixtyFour]);
      const updated = await api('PUT', `/v1/webhooks/${ok.body.id}`, { headers: { Upgrade: 'websocket' } });
      assert.equal(updated.status, 400);
      assert.deepEqual(updated.body.errors.map((e: { path: string }) => e.path), ['/headers/Upgrade']);
    });

    it('echoed header values are redacted however the receiver spells them, at any length', async () => {
      const workspaceId = await workspace('https://www.example.com');
      receiver.answerWith('/echo', (r) => ({ status: 500, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ got: r.headers, encoded: encodeURIComponent(r.headers['x-quoted'] ?? '') }) }));
      const quoted = 'to"k\\en/%';
      const created = (await api('POST', '/v1/webhooks', { workspaceId, url: receiver.url('/echo'), events: ['deploy.recorded'], headers: { 'X-Quoted': quoted, 'X-Short': 'q7' } })).body;
      const attempt = (await api('POST', `/v1/webhooks/${created.id}/test`)).body;
      assert.equal(attempt.responseStatus, 500);
      const text = attempt.responseBody as string;
      for (const spelling of [quoted, JSON.stringify(quoted).slice(1, -1), encodeURIComponent(quoted), 'q7']) {
        assert.ok(!text.includes(spelling), `${spelling} is in the stored text: ${text}`);
      }
      assert.match(text, /"x-quoted":"\[REDACTED\]"/);
      assert.match(text, /"x-short":"\[REDACTED\]"/);
    });

    it('an absolute-form request target is 400 bad_request; headers over 16 KB are 431; both are in the document', async () => {
      const raw = (pathname: string, headers: Record<string, string> = {}) =>
        new Promise<{ status: number; type: string; body: unknown }>((resolve, reject) => {
          const { port } = new URL(server.url);
          const req = http.request({ host: '127.0.0.1', port, method: 'GET', path: pathname, headers: { 'x-api-key': key, ...headers } }, (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), body: JSON.parse(text) }));
          });
          req.on('error', reject);
          req.end();
        });
      const absolute = await raw('http://evil.example/v1/workspaces');
      assert.equal(absolute.status, 400);
      assert.equal((absolute.body as { code: string }).code, 'bad_request');
      assert.deepEqual(responseViolations('GET', '/v1/workspaces', absolute.status, absolute.type, absolute.body), []);
      const large = await raw('/v1/workspaces', { 'x-padding': 'p'.repeat(20_000) });
      assert.equal(large.status, 431);
      assert.deepEqual(responseViolations('GET', '/v1/workspaces', large.status, large.type, large.body), []);
    });
  });
}
