// The fixture website over real HTTP: every page behaviour the end-to-end tests rely on.

import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import zlib from 'node:zlib';
import {
  generateSite,
  gzip,
  htmlPage,
  sitemapIndexXml,
  sitemapXml,
  startFixtureSite,
  type FixtureSite,
} from './support/fixture-site.ts';
import { analyzeHtml, readSitemaps } from '../core/pages/index.ts';

/** A raw GET (node:http, no redirects followed) that reports exactly what arrived. */
function get(url: string, opts: { timeoutMs?: number; headers?: Record<string, string> } = {}): Promise<{
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  error: string | null;
}> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: opts.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let settled = false;
      const done = (error: string | null) => {
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks), error });
      };
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null));
      res.on('error', (e) => done(e.message));
      res.on('aborted', () => done('aborted'));
      res.on('close', () => done(res.complete ? null : 'closed early'));
    });
    req.on('error', reject);
    if (opts.timeoutMs !== undefined) {
      req.setTimeout(opts.timeoutMs, () => req.destroy(new Error('client timeout')));
    }
  });
}

async function fetchBody(url: string): Promise<{ status: number | null; body: Buffer }> {
  try {
    const res = await fetch(url);
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
  } catch {
    return { status: null, body: Buffer.alloc(0) };
  }
}

describe('fixture site', () => {
  let site: FixtureSite;
  before(async () => {
    site = await startFixtureSite();
  });
  after(async () => {
    await site.close();
  });
  beforeEach(() => site.reset());

  test('serves an htmlPage at its path and logs method, path and user agent', async () => {
    site.set('/', htmlPage({ title: 'Home', h1: ['Welcome'], words: 50, links: ['/a', '/b'] }));
    const res = await get(site.url('/?utm=1'), { headers: { 'user-agent': 'sitehealth-test/1.0' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(Number(res.headers['content-length']), res.body.length);
    const a = analyzeHtml(res.body, { url: site.url('/'), headers: res.headers as Record<string, string> });
    assert.equal(a.title, 'Home');
    assert.deepEqual(a.links, [site.url('/a'), site.url('/b')]);
    assert.equal(a.wordCount, 50 + 1 + 2);
    assert.deepEqual(site.requests, [{ method: 'GET', path: '/?utm=1', userAgent: 'sitehealth-test/1.0' }]);
  });

  test('an exact path with query wins over the bare path; unknown paths are 404', async () => {
    site.set('/q', { body: 'bare', contentType: 'text/plain' });
    site.set('/q?v=2', { body: 'with query', contentType: 'text/plain' });
    assert.equal((await get(site.url('/q?v=2'))).body.toString(), 'with query');
    assert.equal((await get(site.url('/q?v=3'))).body.toString(), 'bare');
    assert.equal((await get(site.url('/nowhere'))).status, 404);
  });

  test('pages change between checks: set replaces, remove gives 404', async () => {
    site.set('/page', htmlPage({ title: 'First' }));
    assert.equal(analyzeHtml((await get(site.url('/page'))).body, { url: site.url('/page') }).title, 'First');
    site.set('/page', htmlPage({ title: 'Second' }));
    assert.equal(analyzeHtml((await get(site.url('/page'))).body, { url: site.url('/page') }).title, 'Second');
    site.remove('/page');
    assert.equal((await get(site.url('/page'))).status, 404);
  });

  test('status, extra headers and content types', async () => {
    site.set('/gone', { status: 410, html: '<title>Gone</title>', headers: { 'x-robots-tag': 'noindex' } });
    site.set('/robots.txt', { body: 'User-agent: *\nDisallow:\n' });
    site.set('/data.bin', { body: Buffer.from([0, 1, 2]) });
    const gone = await get(site.url('/gone'));
    assert.equal(gone.status, 410);
    assert.equal(gone.headers['x-robots-tag'], 'noindex');
    assert.equal((await get(site.url('/robots.txt'))).headers['content-type'], 'text/plain; charset=utf-8');
    const bin = await get(site.url('/data.bin'));
    assert.equal(bin.headers['content-type'], 'application/octet-stream');
    assert.deepEqual([...bin.body], [0, 1, 2]);
  });

  test('a redirect chain: each hop with its status, fetch follows to the end', async () => {
    site.set('/old', { redirectTo: '/moved', status: 301 });
    site.set('/moved', { redirectTo: site.url('/temp'), status: 302 });
    site.set('/temp', { redirectTo: '/final', status: 308 });
    site.set('/final', htmlPage({ title: 'Final' }));
    const hops: Array<[number, string | undefined]> = [];
    let url = site.url('/old');
    for (let i = 0; i < 5; i++) {
      const res = await get(url);
      hops.push([res.status, res.headers.location]);
      if (res.headers.location === undefined) break;
      url = new URL(res.headers.location, url).href;
    }
    assert.deepEqual(hops, [
      [301, '/moved'],
      [302, site.url('/temp')],
      [308, '/final'],
      [200, undefined],
    ]);
    const followed = await fetch(site.url('/old'));
    assert.equal(followed.url, site.url('/final'));
    assert.equal(followed.status, 200);
  });

  test('delayMs holds the headers back', async () => {
    site.set('/slow', { html: '<p>slow</p>', delayMs: 150 });
    const t0 = performance.now();
    const res = await get(site.url('/slow'));
    assert.equal(res.status, 200);
    assert.ok(performance.now() - t0 >= 140, 'headers arrived before the delay');
  });

  test('closeMidResponse: headers and half the body, then the connection drops', async () => {
    const html = htmlPage({ title: 'Cut', words: 2000 });
    site.set('/cut', { html, closeMidResponse: true });
    const res = await get(site.url('/cut'));
    assert.equal(res.status, 200);
    assert.equal(Number(res.headers['content-length']), Buffer.byteLength(html));
    assert.equal(res.body.length, Math.floor(Buffer.byteLength(html) / 2));
    assert.notEqual(res.error, null);
    await assert.rejects(fetch(site.url('/cut')).then((r) => r.arrayBuffer()));
  });

  test('closeMidResponse with a generated body', async () => {
    site.set('/cut-big', { bytes: 1_000_000, closeMidResponse: true });
    const res = await get(site.url('/cut-big'));
    assert.equal(res.body.length, 500_000);
    assert.notEqual(res.error, null);
  });

  test('neverFinish: a bit of body, then silence until the client times out', async () => {
    site.set('/stall', { html: htmlPage({ title: 'Stall', words: 1000 }), neverFinish: true });
    const t0 = performance.now();
    await assert.rejects(get(site.url('/stall'), { timeoutMs: 300 }), /client timeout/);
    const elapsed = performance.now() - t0;
    assert.ok(elapsed >= 290 && elapsed < 5000, `gave up after ${elapsed} ms`);
    site.set('/stall-empty', { neverFinish: true, delayMs: 10 });
    await assert.rejects(get(site.url('/stall-empty'), { timeoutMs: 200 }), /client timeout/);
    const signal = AbortSignal.timeout(300);
    await assert.rejects(fetch(site.url('/stall'), { signal }).then((r) => r.arrayBuffer()), { name: 'TimeoutError' });
  });

  test('bytes: a large body streamed with an exact Content-Length', async () => {
    const size = 20 * 1024 * 1024 + 7;
    site.set('/huge', { bytes: size });
    const res = await fetch(site.url('/huge'));
    assert.equal(Number(res.headers.get('content-length')), size);
    let received = 0;
    let head = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      if (head.length < 100) head += Buffer.from(chunk).toString('latin1', 0, 100);
      received += chunk.length;
    }
    assert.equal(received, size);
    assert.ok(head.startsWith('<!doctype html>'), head);
  });

  test('HEAD gets headers only', async () => {
    site.set('/h', htmlPage({ title: 'H' }));
    const res = await fetch(site.url('/h'), { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal((await res.arrayBuffer()).byteLength, 0);
    assert.equal(site.requests.at(-1)?.method, 'HEAD');
  });

  test('sitemaps: an index pointing to a plain and a gzip sitemap, read over HTTP', async () => {
    site.set('/sitemap_index.xml', { body: sitemapIndexXml([site.url('/sitemap-1.xml'), site.url('/sitemap-2.xml.gz')]) });
    site.set('/sitemap-1.xml', { body: sitemapXml([site.url('/a'), site.url('/b')]) });
    site.set('/sitemap-2.xml.gz', { body: gzip(sitemapXml([site.url('/c')])) });
    const gz = await get(site.url('/sitemap-2.xml.gz'));
    assert.equal(gz.headers['content-type'], 'application/gzip');
    assert.match(zlib.gunzipSync(gz.body).toString(), /<urlset/);
    const result = await readSitemaps([site.url('/sitemap_index.xml')], fetchBody);
    assert.deepEqual(result, { urls: [site.url('/a'), site.url('/b'), site.url('/c')], errors: [], reachable: true });
  });

  test('generateSite: pages, links, sitemap and robots.txt, all served from memory', async () => {
    const gen = generateSite(site, { pages: 50, linksPerPage: 6 });
    assert.equal(gen.paths.length, 50);
    assert.deepEqual(gen.paths.slice(0, 3), ['/', '/p/1', '/p/2']);
    const robots = await get(site.url('/robots.txt'));
    assert.match(robots.body.toString(), new RegExp(`Sitemap: ${gen.sitemapUrl}`));
    const sm = await readSitemaps([gen.sitemapUrl], fetchBody);
    assert.deepEqual(sm.urls, gen.urls);
    // Breadth-first from "/" over the links reaches every page.
    const seen = new Set([gen.urls[0]]);
    const queue = [gen.urls[0]];
    while (queue.length > 0) {
      const url = queue.shift()!;
      const res = await get(url);
      assert.equal(res.status, 200, url);
      const a = analyzeHtml(res.body, { url, headers: res.headers as Record<string, string> });
      assert.equal(a.links.length, 6, url);
      for (const l of a.links) {
        if (!seen.has(l)) {
          seen.add(l);
          queue.push(l);
        }
      }
    }
    assert.equal(seen.size, 50);
  });

  test('generateSite at benchmark size: 5,000 pages in the sitemap, the last one served', async () => {
    const gen = generateSite(site, { pages: 5000, linksPerPage: 10 });
    const sm = await readSitemaps([gen.sitemapUrl], fetchBody);
    assert.equal(sm.urls.length, 5000);
    assert.equal(sm.urls[4999], site.url('/p/4999'));
    const last = await get(site.url('/p/4999'));
    const a = analyzeHtml(last.body, { url: site.url('/p/4999'), headers: last.headers as Record<string, string> });
    assert.deepEqual([a.title, a.structuredDataTypes, a.links.length], ['Page 4999', ['WebPage'], 10]);
  });

  test('close() ends stalled responses and stops listening', async () => {
    const other = await startFixtureSite();
    other.set('/stall', { html: 'x'.repeat(100), neverFinish: true });
    const pending = get(other.url('/stall'));
    await new Promise((r) => setTimeout(r, 50));
    await other.close();
    const res = await pending;
    assert.notEqual(res.error, null);
    await assert.rejects(get(other.url('/')), /ECONNREFUSED/);
  });
});
