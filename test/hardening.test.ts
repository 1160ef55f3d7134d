// Slow and idle clients, slugs in every script, /docs headers, compressed lists, and logs and
// stored rows free of secret material.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { Activity, createDb, type Db } from '../core/db/index.ts';
import { createApiKey, createUser, generateKey } from '../core/access/index.ts';
import { createWorkspace } from '../core/workspaces/index.ts';
import { recordDeploy } from '../core/deploys/index.ts';
import { engines, dropCreatedDatabases, freshDatabaseUrl } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { checkedFetch } from './support/contract.ts';
import { killAll, startServerProcess } from './support/processes.ts';

after(async () => {
  await killAll();
  await dropCreatedDatabases();
});

const LIMITS = { HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_REQUEST_TIMEOUT_MS: '4000', HTTP_KEEPALIVE_TIMEOUT_MS: '1000' };

/** A raw connection: what arrives, and when it closes. */
function connect(port: number): { socket: net.Socket; received: () => string; closed: Promise<number> } {
  const started = Date.now();
  let got = '';
  const socket = net.connect(port, '127.0.0.1');
  socket.on('data', (d) => (got += d.toString()));
  socket.on('error', () => {});
  const closed = new Promise<number>((r) => socket.on('close', () => r(Date.now() - started)));
  return { socket, received: () => got, closed };
}

describe('slow and idle clients (limits: headers 2 s, request 4 s, keep-alive 1 s)', () => {
  let api: TestApi;
  let o: Awaited<ReturnType<TestApi['owner']>>;
  let port: number;
  before(async () => {
    api = await TestApi.start('sqlite', { env: LIMITS });
    o = await api.owner();
    port = Number(new URL(api.url).port);
  });
  after(async () => {
    await api.stop();
  });

  it('a body dribbled one byte a second gets a 408 problem document at the request limit', async () => {
    const c = connect(port);
    c.socket.write(`POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nX-API-Key: ${o.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
    const drip = setInterval(() => c.socket.writable && c.socket.write(' '), 1000);
    const ms = await c.closed;
    clearInterval(drip);
    assert.ok(ms >= 3500 && ms <= 6000, `closed after ${ms} ms`);
    assert.match(c.received(), /^HTTP\/1\.1 408 /);
    assert.match(c.received(), /content-type: application\/problem\+json/i);
    assert.match(c.received(), /"code":"request_timeout"/);
  });

  it('200 idle sockets are closed within the limits while a normal request still answers in under 100 ms', async () => {
    const idle = Array.from({ length: 200 }, (_, i) => {
      const c = connect(port);
      // Half send nothing at all, half stop in the middle of their headers.
      if (i % 2) c.socket.write('GET /v1/workspaces HTTP/1.1\r\nHost: x\r\n');
      return c;
    });
    await new Promise((r) => setTimeout(r, 300));
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      const res = await api.call('GET', '/v1/workspaces', { key: o.apiKey });
      times.push(performance.now() - t0);
      assert.equal(res.status, 200);
    }
    times.sort((a, b) => a - b);
    assert.ok(times[5] < 100, `median ${times[5].toFixed(1)} ms with 200 idle sockets open`);
    const closedAfter = await Promise.all(idle.map((c) => c.closed));
    assert.ok(Math.max(...closedAfter) <= 4000, `the last idle socket closed after ${Math.max(...closedAfter)} ms`);
    assert.ok(idle.every((c) => c.received() === '' || /^HTTP\/1\.1 408 /.test(c.received())));
  });

  it('an idle keep-alive connection closes after the keep-alive limit', async () => {
    const c = connect(port);
    c.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    const ms = await c.closed;
    assert.match(c.received(), /^HTTP\/1\.1 200 /);
    assert.ok(ms >= 900 && ms <= 3000, `closed after ${ms} ms`);
  });
});

for (const engine of engines()) {
  describe(`slugs for every script (${engine})`, () => {
    let api: TestApi;
    before(async () => {
      api = await TestApi.start(engine);
    });
    after(async () => {
      await api.stop();
    });

    it('Latin, Cyrillic, CJK, Arabic and emoji names get readable slugs; the same name in another account is 409', async () => {
      const first = await api.owner();
      const second = await api.owner();
      const tag = crypto.randomBytes(3).toString('hex');
      const cases: Array<[string, RegExp]> = [
        [`Ünïcødé Café ${tag}`, new RegExp(`^unicode-cafe-${tag}$`)],
        [`Привет мир ${tag}`, new RegExp(`^privet-mir-${tag}$`)],
        [`日本語 ${tag}`, new RegExp(`^ri-ben-yu-${tag}$`)],
        [`مرحبا ${tag}`, new RegExp(`^mrhb-${tag}$`)],
        ['🚀🔥', /^rocket-fire$/],
        ['!!!', /^workspace-[a-z0-9]{6}$/],
      ];
      for (const [name, slug] of cases) {
        const res = await api.call('POST', '/v1/workspaces', { key: first.apiKey, body: { name, website: 'https://x.example' } });
        assert.equal(res.status, 201, `${name}: ${res.text}`);
        assert.match(res.body.data.slug, slug, name);
        const again = await api.call('POST', '/v1/workspaces', { key: second.apiKey, body: { name, website: 'https://x.example' } });
        if (name === '!!!') assert.equal(again.status, 201, 'nothing usable: random, so no clash');
        else {
          assert.equal(again.status, 409, name);
          assert.equal(again.body.code, 'slug_taken');
        }
      }
    });
  });
}

describe('/docs and /openapi.json headers', () => {
  let api: TestApi;
  before(async () => {
    api = await TestApi.start('sqlite');
  });
  after(async () => {
    await api.stop();
  });

  it('a strict CSP, no framing, no referrer; versioned assets cached for a year; documents revalidated by ETag', async () => {
    const page = await fetch(`${api.url}/docs`);
    const html = await page.text();
    const csp = page.headers.get('content-security-policy')!;
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(html, /<script>(?!<\/script>)/, 'no inline script');
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    const tag = page.headers.get('etag')!;
    assert.equal((await fetch(`${api.url}/docs`, { headers: { 'if-none-match': tag } })).status, 304);
    const asset = /href="([^"]+swagger-ui\.css)"/.exec(html)![1];
    const css = await fetch(`${api.url}${asset}`);
    assert.equal(css.status, 200);
    assert.equal(css.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(css.headers.get('x-frame-options'), 'DENY');
    const doc = await fetch(`${api.url}/openapi.json`);
    assert.equal(doc.headers.get('cache-control'), 'no-cache');
    assert.equal((await fetch(`${api.url}/openapi.json`, { headers: { 'if-none-match': doc.headers.get('etag')! } })).status, 304);
  });
});

describe('compressed lists', () => {
  let api: TestApi;
  let o: Awaited<ReturnType<TestApi['owner']>>;
  before(async () => {
    api = await TestApi.start('sqlite');
    o = await api.owner();
  });
  after(async () => {
    await api.stop();
  });

  // 20 deploys of 500 changes each: a list of megabytes, compressed as a page of 100 would be
  // (bench:list-size measures that one), at a fifth of the time to record and compress it.
  it('a list of 20 large deploys is sent compressed when the client accepts it', async (t) => {
    const changes = Array.from({ length: 500 }, (_, i) => ({
      path: `src/pages/section-${i % 20}/very/deeply/nested/route/with/a/long/name/page-${i}.astro`,
      category: 'page' as const,
      signals: Array.from({ length: 8 }, (_, j) => ({ kind: 'title' as const, change: j % 2 ? ('added' as const) : ('removed' as const), line: j + 1 })),
    }));
    for (let i = 0; i < 20; i++) await recordDeploy(api.db, o.workspaceId, { commitSha: crypto.randomBytes(20).toString('hex'), environment: 'staging', changes }, { siteCheckDelaySeconds: 120, crawlDelaySeconds: 300 });
    const url = `${api.url}/v1/deploys?workspace_id=${o.workspaceId}&limit=100`;
    // fetch() decodes bodies itself, so the bytes on the wire are read with node:http.
    const size = (encoding: string) =>
      new Promise<{ raw: Buffer; encoding: string | null }>((resolve, reject) => {
        http
          .get(url, { headers: { 'x-api-key': o.apiKey, 'accept-encoding': encoding } }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ raw: Buffer.concat(chunks), encoding: (res.headers['content-encoding'] as string | undefined) ?? null }));
            res.on('error', reject);
          })
          .on('error', reject);
      });
    const plain = await size('identity');
    const gz = await size('gzip');
    const br = await size('br');
    assert.equal(plain.encoding, null);
    assert.equal(gz.encoding, 'gzip');
    assert.equal(br.encoding, 'br');
    assert.deepEqual(JSON.parse(zlib.gunzipSync(gz.raw).toString()), JSON.parse(plain.raw.toString()));
    assert.deepEqual(JSON.parse(zlib.brotliDecompressSync(br.raw).toString()), JSON.parse(plain.raw.toString()));
    t.diagnostic(`20 deploys: ${(plain.raw.length / 1e6).toFixed(1)} MB plain, ${(gz.raw.length / 1e6).toFixed(2)} MB gzip, ${(br.raw.length / 1e6).toFixed(2)} MB brotli`);
    assert.ok(gz.raw.length * 10 < plain.raw.length, 'gzip at least 10x smaller');
    assert.ok(br.raw.length * 10 < plain.raw.length, 'brotli at least 10x smaller');
  });
});

for (const engine of engines()) {
  describe(`no secret material in logs or stored rows (${engine})`, () => {
    let url: string;
    let db: Db;
    before(async () => {
      url = await freshDatabaseUrl(engine);
      db = createDb(url);
    });
    after(async () => {
      await db.destroy();
    });

    it('keys and whsec_ strings in paths, queries and bodies appear in no log line and no table; SQL values stay out of error lines; aborts are info', async () => {
      const server = await startServerProcess(url, { LOG_LEVEL: 'debug', DB_BUSY_WAIT_MS: '300' });
      const u = await createUser(db, `secrets-${engine}-${Date.now()}@example.com`);
      const ws = await createWorkspace(db, { accountId: u.accountId, userId: u.userId, input: { name: 'Private Name Zebra', website: 'https://www.example.com' } });
      const key = (await createApiKey(db, { userId: u.userId, scopes: ['deploys', 'search', 'workspaces', 'webhooks'], name: 'ci-key' })).apiKey;
      const other = generateKey();
      const whsec = `whsec_${crypto.randomBytes(32).toString('base64')}`;
      const secrets = [key, other, whsec, whsec.slice(6), key.slice(3)];
      const enc = encodeURIComponent;
      await checkedFetch(server.url, 'GET', `/v1/workspaces/${enc(other)}`, { key });
      await checkedFetch(server.url, 'GET', `/v1/deploys/${enc(whsec)}`, { key });
      await checkedFetch(server.url, 'GET', `/v1/logs?workspace_id=${ws.id}&q=${enc(other)}`, { key });
      await checkedFetch(server.url, 'GET', `/v1/logs?workspace_id=${ws.id}&q=${enc(whsec)}`, { key });
      await checkedFetch(server.url, 'GET', `/v1/activity?cursor=${enc(whsec)}`, { key });
      await checkedFetch(server.url, 'POST', '/v1/deploys', { key, body: { workspaceId: ws.id, commitSha: 'abcdef1', message: `deploy with ${other} and ${whsec}`, ref: whsec.slice(0, 255) } });
      await checkedFetch(server.url, 'POST', '/v1/deploys', { key, body: { workspaceId: ws.id, commitSha: 'nothex', message: other } });
      await checkedFetch(server.url, 'POST', '/v1/webhooks', { key, body: { workspaceId: ws.id, url: `https://hooks.example.com/${enc(whsec)}`, events: ['deploy.recorded'], secret: whsec } });
      await checkedFetch(server.url, 'GET', '/v1/workspaces', { key: other });
      // A write that cannot get the database: its error line must not carry the statement's values.
      const hold = await holdLock(engine, url, u.accountId);
      await checkedFetch(server.url, 'POST', '/v1/workspaces', { key, body: { name: 'Zebra Secret Workspace Name', website: 'https://x.example' }, allow5xx: true });
      await hold();
      const created = await checkedFetch(server.url, 'POST', '/v1/workspaces', { key, body: { name: `Team ${other}`, website: 'https://y.example' } });
      assert.equal(created.status, 201);
      // A client that goes away in the middle of its body.
      const c = connect(Number(new URL(server.url).port));
      c.socket.write(`POST /v1/deploys HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"commitSha":`);
      await new Promise((r) => setTimeout(r, 200));
      c.socket.destroy();
      await new Promise((r) => setTimeout(r, 1500)); // the request log batch and the abort's log line
      await server.stop();

      const leaked = (text: string) => secrets.filter((s) => text.includes(s));
      const lines = server.output;
      for (const line of lines) assert.deepEqual(leaked(line), [], `log line: ${line.slice(0, 300)}`);
      assert.ok(!lines.some((l) => l.includes('Zebra Secret Workspace Name')), 'an error line carried a value of its statement');
      assert.ok(lines.some((l) => l.includes('database unavailable')), 'the busy write was logged');
      const abort = server.lines.find((l) => l.msg === 'client aborted the request');
      assert.ok(abort, 'the abort was logged');
      assert.equal(abort!.level, 30, 'at info level');
      assert.ok(!server.lines.some((l) => Number(l.level) >= 50), `no error lines: ${JSON.stringify(server.lines.filter((l) => Number(l.level) >= 50)).slice(0, 300)}`);
      const tables = ['request_logs', 'activity', 'events', 'deploys', 'jobs', 'webhook_messages', 'webhook_deliveries', 'request_log_rollups'];
      for (const table of tables) {
        for (const row of await db(table).select('*')) assert.deepEqual(leaked(JSON.stringify(row)), [], `${table}: ${JSON.stringify(row).slice(0, 200)}`);
      }
      // The activity feed names keys by id and name, never by any part of the key.
      const rows = await Activity.query(db).where({ actor_type: 'api_key' });
      assert.ok(rows.length > 0, "the key's writes are in the activity feed");
      for (const r of rows) {
        assert.equal(r.actor_label, 'ci-key');
        assert.doesNotMatch(String(r.actor_label), /sh_/);
      }
    });
  });
}

async function holdLock(engine: string, url: string, accountId: string): Promise<() => Promise<void>> {
  if (engine === 'sqlite') {
    const { default: Database } = await import('better-sqlite3');
    const conn = new Database(url.slice('sqlite:'.length));
    conn.exec('BEGIN IMMEDIATE');
    return async () => {
      conn.exec('ROLLBACK');
      conn.close();
    };
  }
  const k = createDb(url, { pool: { max: 1 } });
  const trx = await k.transaction();
  await trx('accounts').where({ id: accountId }).forUpdate().select('id');
  return async () => {
    await trx.rollback();
    await k.destroy();
  };
}
