// Sitemaps: urlset and index, gzip, limits against sitemap bombs, garbage, fetch failures.

import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { parseSitemap, readSitemaps, type SitemapFetch } from '../core/pages/index.ts';
import { gzip, sitemapIndexXml, sitemapXml } from './support/fixture-site.ts';

const O = 'https://example.com';

/** An in-memory site for the injected fetch; records what was fetched. */
function memoryFetch(files: Record<string, string | Buffer | number | Error>): SitemapFetch & { fetched: string[] } {
  const fetched: string[] = [];
  const fn = async (url: string) => {
    fetched.push(url);
    const f = files[url];
    if (f === undefined) return { status: 404, body: Buffer.from('not found') };
    if (f instanceof Error) throw f;
    if (typeof f === 'number') return { status: f === 0 ? null : f, body: Buffer.alloc(0) };
    return { status: 200, body: Buffer.isBuffer(f) ? f : Buffer.from(f) };
  };
  return Object.assign(fn, { fetched });
}

/** gzip of `total` bytes of `fill` preceded by `prefix`, compressed as a stream (never all in memory). */
async function gzipStream(prefix: string, fill: number, total: number): Promise<Buffer> {
  const gz = zlib.createGzip({ level: 1 });
  const parts: Buffer[] = [];
  gz.on('data', (c: Buffer) => parts.push(c));
  const ended = new Promise((resolve) => gz.on('end', resolve));
  const chunk = Buffer.alloc(1 << 20, fill);
  gz.write(prefix);
  for (let written = 0; written < total; written += chunk.length) {
    if (!gz.write(chunk)) await new Promise((resolve) => gz.once('drain', resolve));
  }
  gz.end();
  await ended;
  return Buffer.concat(parts);
}

/** Peak RSS growth while `fn` runs, sampled every few milliseconds. */
async function peakRssGrowth<T>(fn: () => Promise<T>): Promise<{ result: T; growthMB: number; ms: number }> {
  global.gc?.();
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  const t0 = performance.now();
  try {
    const result = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, growthMB: (peak - base) / 1e6, ms: performance.now() - t0 };
  } finally {
    clearInterval(timer);
  }
}

describe('parseSitemap', () => {
  test('urlset: <loc> in <url> only, trimmed, entities and CDATA decoded; image locs ignored', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url>
    <loc>
      https://example.com/a?x=1&amp;y=2
    </loc>
    <lastmod>2024-01-01</lastmod>
    <image:image><image:loc>https://example.com/img.png</image:loc></image:image>
  </url>
  <url><loc><![CDATA[https://example.com/b?q=<1>]]></loc></url>
  <loc>https://example.com/stray</loc>
  <url><news><loc>https://example.com/nested</loc></news></url>
</urlset>`;
    assert.deepEqual(await parseSitemap(Buffer.from(xml)), {
      kind: 'urlset',
      locs: ['https://example.com/a?x=1&y=2', 'https://example.com/b?q=<1>'],
      error: null,
    });
  });

  test('sitemapindex, a namespace prefix, and gzip detected by magic bytes', async () => {
    const xml = '<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:sitemap><sm:loc>https://example.com/s1.xml</sm:loc></sm:sitemap></sm:sitemapindex>';
    const expected = { kind: 'sitemapindex', locs: ['https://example.com/s1.xml'], error: null };
    assert.deepEqual(await parseSitemap(Buffer.from(xml)), expected);
    assert.deepEqual(await parseSitemap(gzip(xml)), expected);
  });

  test('loose XML as found in the wild: unescaped &, no declaration, upper-case tags', async () => {
    const xml = '<URLSET><URL><LOC>https://example.com/?a=1&b=2</LOC></URL></URLSET>';
    assert.deepEqual(await parseSitemap(Buffer.from(xml)), { kind: 'urlset', locs: ['https://example.com/?a=1&b=2'], error: null });
  });

  test('garbage never throws', async () => {
    const random = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919 + 13) % 256));
    const cases: Array<[Buffer, RegExp]> = [
      [Buffer.alloc(0), /not a sitemap/],
      [Buffer.from('<!doctype html><html><body>Not found</body></html>'), /not a sitemap: root element <html>/],
      [Buffer.from('{"urls": []}'), /not a sitemap/],
      [random, /not a sitemap|invalid XML/],
      [Buffer.from([0x1f, 0x8b, 1, 2, 3, 4, 5, 6, 7, 8]), /invalid gzip/],
      [gzip('<urlset><url><loc>https://example.com/x</loc></url></urlset>').subarray(0, 30), /invalid gzip|unexpected end/i],
    ];
    for (const [body, message] of cases) {
      const r = await parseSitemap(body);
      assert.match(r.error ?? '', message, body.subarray(0, 20).toString('hex'));
    }
  });

  test('a truncated document keeps the URLs read before the cut', async () => {
    const r = await parseSitemap(Buffer.from('<urlset><url><loc>https://example.com/1</loc></url><url><loc>https://exa'));
    assert.equal(r.kind, 'urlset');
    assert.deepEqual(r.locs, ['https://example.com/1']);
  });

  test('entity declarations are not expanded (no billion laughs)', async () => {
    const lol = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><urlset><url><loc>https://example.com/&lol3;</loc></url></urlset>';
    const r = await parseSitemap(Buffer.from(lol));
    assert.equal(r.kind, 'urlset');
    assert.ok(r.locs.every((l) => l.length < 100), JSON.stringify(r.locs));
  });

  test('elements nested absurdly deep are refused', async () => {
    const r = await parseSitemap(Buffer.from(`<urlset>${'<url>'.repeat(100_000)}</urlset>`));
    assert.equal(r.error, 'elements nested too deep');
  });

  test('more URLs than the per-sitemap limit: the first ones are kept, with an error', async () => {
    const urls = Array.from({ length: 30 }, (_, i) => `${O}/p/${i}`);
    const r = await parseSitemap(Buffer.from(sitemapXml(urls)), { maxDecompressedBytes: 1 << 20, maxUrlsPerSitemap: 10 });
    assert.deepEqual(r.locs, urls.slice(0, 10));
    assert.equal(r.error, 'more than 10 URLs; the rest is not read');
  });
});

describe('sitemap bombs', () => {
  let zeros: Buffer;
  let spaces: Buffer;
  before(async () => {
    zeros = await gzipStream('', 0, 200 * 1024 * 1024);
    spaces = await gzipStream('<?xml version="1.0"?><urlset><url><loc>https://example.com/first</loc></url>', 0x20, 200 * 1024 * 1024);
  });

  test('a gzip of 200 MB of zeros is refused quickly, without holding it', async () => {
    assert.ok(zeros.length < 1024 * 1024, `compressed ${zeros.length} bytes`);
    const { result, growthMB, ms } = await peakRssGrowth(() => readSitemaps([`${O}/sitemap.xml.gz`], memoryFetch({ [`${O}/sitemap.xml.gz`]: zeros })));
    assert.deepEqual(result, {
      urls: [],
      errors: [{ url: `${O}/sitemap.xml.gz`, message: 'not a sitemap: no <urlset> or <sitemapindex> element' }],
      reachable: true,
    });
    assert.ok(ms < 2000, `took ${ms.toFixed(0)} ms`);
    assert.ok(growthMB < 25, `RSS grew ${growthMB.toFixed(1)} MB`);
  });

  test('a valid start followed by 200 MB of whitespace stops at the decompressed-bytes limit', async () => {
    const { result, growthMB, ms } = await peakRssGrowth(() => parseSitemap(spaces));
    assert.deepEqual(result, {
      kind: 'urlset',
      locs: ['https://example.com/first'],
      error: `larger than ${50 * 1024 * 1024} bytes decompressed; the rest is not read`,
    });
    assert.ok(ms < 5000, `took ${ms.toFixed(0)} ms`);
    assert.ok(growthMB < 25, `RSS grew ${growthMB.toFixed(1)} MB`);
  });

  test('the byte limit applies to uncompressed documents too', async () => {
    const body = Buffer.from(`<urlset><url><loc>${O}/a</loc></url>${' '.repeat(2048)}<url><loc>${O}/b</loc></url></urlset>`);
    const r = await parseSitemap(body, { maxDecompressedBytes: 1024, maxUrlsPerSitemap: 10 });
    assert.deepEqual(r, { kind: 'urlset', locs: [`${O}/a`], error: 'larger than 1024 bytes decompressed; the rest is not read' });
  });
});

describe('readSitemaps', () => {
  test('an index leads to plain and gzip sitemaps; URLs normalized, unique, in order', async () => {
    const fetch = memoryFetch({
      [`${O}/sitemap_index.xml`]: sitemapIndexXml([`${O}/s1.xml`, `${O}/s2.xml.gz`, `${O}/s1.xml#dup`]),
      [`${O}/s1.xml`]: sitemapXml([`${O}/a`, `HTTPS://EXAMPLE.COM/b#frag`, `${O}/a`]),
      [`${O}/s2.xml.gz`]: gzip(sitemapXml([`${O}/c`, `${O}/b`, 'mailto:x@example.com', 'not a url'])),
    });
    const r = await readSitemaps([`${O}/sitemap_index.xml`], fetch);
    assert.deepEqual(r, {
      urls: [`${O}/a`, `${O}/b`, `${O}/c`],
      errors: [{ url: `${O}/s2.xml.gz`, message: '2 <loc> value(s) are not http(s) URLs' }],
      reachable: true,
    });
    assert.deepEqual(fetch.fetched, [`${O}/sitemap_index.xml`, `${O}/s1.xml`, `${O}/s2.xml.gz`]);
  });

  test('several start URLs; duplicates and cycles are fetched once', async () => {
    const fetch = memoryFetch({
      [`${O}/index.xml`]: sitemapIndexXml([`${O}/index.xml`, `${O}/s.xml`]),
      [`${O}/s.xml`]: sitemapXml([`${O}/x`]),
    });
    const r = await readSitemaps([`${O}/index.xml`, `${O}/s.xml`, `${O}/index.xml`], fetch);
    assert.deepEqual(r, { urls: [`${O}/x`], errors: [], reachable: true });
    assert.deepEqual(fetch.fetched, [`${O}/index.xml`, `${O}/s.xml`]);
  });

  test('child sitemaps on another origin are not followed; page URLs elsewhere are returned', async () => {
    const fetch = memoryFetch({
      [`${O}/index.xml`]: sitemapIndexXml(['https://evil.example/s.xml', 'http://example.com/s.xml', `${O}/s.xml`]),
      [`${O}/s.xml`]: sitemapXml(['https://cdn.example.com/page']),
    });
    const r = await readSitemaps([`${O}/index.xml`], fetch);
    assert.deepEqual(r, {
      urls: ['https://cdn.example.com/page'],
      errors: [{ url: `${O}/index.xml`, message: "2 child sitemap(s) not on this index's origin (or invalid); not followed" }],
      reachable: true,
    });
    assert.deepEqual(fetch.fetched, [`${O}/index.xml`, `${O}/s.xml`]);
  });

  test('index of index: one level is followed, deeper is refused', async () => {
    const fetch = memoryFetch({
      [`${O}/top.xml`]: sitemapIndexXml([`${O}/mid.xml`]),
      [`${O}/mid.xml`]: sitemapIndexXml([`${O}/leaf.xml`, `${O}/deeper.xml`]),
      [`${O}/leaf.xml`]: sitemapXml([`${O}/leaf-page`]),
      [`${O}/deeper.xml`]: sitemapIndexXml([`${O}/never.xml`]),
      [`${O}/never.xml`]: sitemapXml([`${O}/never-page`]),
    });
    const r = await readSitemaps([`${O}/top.xml`], fetch);
    assert.deepEqual(r, {
      urls: [`${O}/leaf-page`],
      errors: [{ url: `${O}/deeper.xml`, message: 'sitemap index nested more than 1 level(s) deep; not followed' }],
      reachable: true,
    });
    assert.equal(fetch.fetched.includes(`${O}/never.xml`), false);
  });

  test('an index fanning out past the child limit: the first ones are read, with one error', async () => {
    const children = Array.from({ length: 500 }, (_, i) => `${O}/s${i}.xml`);
    const files: Record<string, string> = { [`${O}/index.xml`]: sitemapIndexXml(children) };
    for (const [i, c] of children.entries()) files[c] = sitemapXml([`${O}/p${i}`]);
    const fetch = memoryFetch(files);
    const r = await readSitemaps([`${O}/index.xml`], fetch, { maxChildSitemaps: 5 });
    assert.deepEqual(r.urls, [0, 1, 2, 3, 4].map((i) => `${O}/p${i}`));
    assert.deepEqual(r.errors, [{ url: `${O}/index.xml`, message: 'more than 5 child sitemaps; the rest is not read' }]);
    assert.equal(fetch.fetched.length, 6);
  });

  test('the total URL limit stops reading', async () => {
    const fetch = memoryFetch({
      [`${O}/s1.xml`]: sitemapXml([`${O}/1`, `${O}/2`]),
      [`${O}/s2.xml`]: sitemapXml([`${O}/3`, `${O}/4`]),
    });
    const r = await readSitemaps([`${O}/s1.xml`, `${O}/s2.xml`], fetch, { maxTotalUrls: 3 });
    assert.deepEqual(r, {
      urls: [`${O}/1`, `${O}/2`, `${O}/3`],
      errors: [{ url: `${O}/s2.xml`, message: 'more than 3 URLs in total; the rest is not read' }],
      reachable: true,
    });
  });

  test('fetch failures, HTTP errors and garbage are reported; reachable only when a start URL answered 2xx', async () => {
    const fetch = memoryFetch({
      [`${O}/down.xml`]: 0,
      [`${O}/error.xml`]: 503,
      [`${O}/throws.xml`]: new Error('socket hang up'),
      [`${O}/html.xml`]: '<html><body>Soft 404</body></html>',
    });
    const r = await readSitemaps([`${O}/down.xml`, `${O}/error.xml`, `${O}/throws.xml`, `${O}/missing.xml`, 'ftp://example.com/x.xml'], fetch);
    assert.deepEqual(r, {
      urls: [],
      errors: [
        { url: 'ftp://example.com/x.xml', message: 'not an http(s) URL' },
        { url: `${O}/down.xml`, message: 'unreachable' },
        { url: `${O}/error.xml`, message: 'HTTP 503' },
        { url: `${O}/throws.xml`, message: 'fetch failed: socket hang up' },
        { url: `${O}/missing.xml`, message: 'HTTP 404' },
      ],
      reachable: false,
    });
    const soft = await readSitemaps([`${O}/html.xml`], fetch);
    assert.deepEqual(soft, { urls: [], errors: [{ url: `${O}/html.xml`, message: 'not a sitemap: root element <html>' }], reachable: true });
  });

  test('no start URLs', async () => {
    assert.deepEqual(await readSitemaps([], memoryFetch({})), { urls: [], errors: [], reachable: false });
  });
});
