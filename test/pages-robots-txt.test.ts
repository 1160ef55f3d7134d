// robots.txt: rules through robots-parser, our status conventions, garbage and size limits.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_ROBOTS_TXT_BYTES,
  parseRobotsTxt,
  robotsTxtFromResponse,
  robotsTxtUrl,
} from '../core/pages/index.ts';

const ROBOTS = 'https://example.com/robots.txt';
const u = (path: string) => `https://example.com${path}`;

describe('parseRobotsTxt', () => {
  const txt = [
    'User-agent: *',
    'Disallow: /private/',
    'Allow: /private/open',
    'Disallow: /*.pdf$',
    'Disallow: /search?',
    'Crawl-delay: 2.5',
    '',
    'User-agent: SiteHealth',
    'Disallow: /no-sitehealth',
    'Crawl-delay: 1',
    '',
    'Sitemap: https://example.com/sitemap.xml',
    'Sitemap: /relative-sitemap.xml',
    'Sitemap: https://example.com/sitemap.xml',
    'Sitemap: ftp://example.com/nope.xml',
  ].join('\n');

  test('the default user agent uses its own group; others fall back to *', () => {
    const r = parseRobotsTxt(ROBOTS, txt);
    assert.equal(r.source, 'parsed');
    assert.equal(r.isAllowed(u('/no-sitehealth')), false);
    assert.equal(r.isAllowed(u('/private/x')), true, 'the sitehealth group has no /private rule');
    assert.equal(r.isAllowed(u('/private/x'), 'otherbot'), false);
    assert.equal(r.isAllowed(u('/no-sitehealth'), 'otherbot'), true);
    assert.equal(r.isAllowed(u('/no-sitehealth'), 'SiteHealth/2.1'), false, 'the version is ignored');
    assert.equal(r.crawlDelaySeconds, 1);
  });

  test('longest match wins, Allow wins a tie, * and $ wildcards, query strings', () => {
    const r = parseRobotsTxt(ROBOTS, txt, { userAgent: 'anybot' });
    assert.equal(r.isAllowed(u('/private/secret')), false);
    assert.equal(r.isAllowed(u('/private/open/page')), true);
    assert.equal(r.isAllowed(u('/docs/a.pdf')), false);
    assert.equal(r.isAllowed(u('/docs/a.pdf?x=1')), true);
    assert.equal(r.isAllowed(u('/search?q=x')), false);
    assert.equal(r.isAllowed(u('/search')), true);
    assert.equal(r.crawlDelaySeconds, 2.5);
    const tie = parseRobotsTxt(ROBOTS, 'User-agent: *\nDisallow: /page\nAllow: /page\n');
    assert.equal(tie.isAllowed(u('/page')), true);
  });

  test('sitemaps: absolute, resolved, unique, http(s) only, in file order', () => {
    assert.deepEqual(parseRobotsTxt(ROBOTS, txt).sitemaps, ['https://example.com/sitemap.xml', 'https://example.com/relative-sitemap.xml']);
  });

  test('another origin (or scheme, or port) is not governed by this file: false', () => {
    const r = parseRobotsTxt(ROBOTS, 'User-agent: *\nAllow: /\n');
    assert.equal(r.isAllowed('https://example.com/x'), true);
    assert.equal(r.isAllowed('http://example.com/x'), false);
    assert.equal(r.isAllowed('https://other.example/x'), false);
    assert.equal(r.isAllowed('https://example.com:8443/x'), false);
    assert.equal(r.isAllowed('not a url'), false);
  });

  test('an invalid crawl-delay is not reported; an empty file allows everything', () => {
    assert.equal(parseRobotsTxt(ROBOTS, 'User-agent: *\nCrawl-delay: soon\n').crawlDelaySeconds, undefined);
    const empty = parseRobotsTxt(ROBOTS, '');
    assert.deepEqual([empty.isAllowed(u('/anything')), empty.sitemaps, empty.crawlDelaySeconds], [true, [], undefined]);
  });

  test('garbage: binary, an HTML error page, NULs and CR line ends never throw; no rules means allowed', () => {
    const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
    assert.equal(parseRobotsTxt(ROBOTS, binary).isAllowed(u('/x')), true);
    const html = '<!doctype html><html><head><title>Error</title></head><body><a href="https://example.com/">Disallow: /</a></body></html>';
    assert.equal(parseRobotsTxt(ROBOTS, html).isAllowed(u('/x')), true);
    const cr = parseRobotsTxt(ROBOTS, 'User-agent: *\rDisallow: /cr\r\u0000\rSitemap: /s.xml');
    assert.deepEqual([cr.isAllowed(u('/cr')), cr.sitemaps], [false, ['https://example.com/s.xml']]);
  });

  test('only the first 500 KiB are read, cut at a line end', () => {
    const filler = '# padding comment line\n'.repeat(Math.ceil(MAX_ROBOTS_TXT_BYTES / 23));
    const body = Buffer.from(`User-agent: *\nDisallow: /early\n${filler}Disallow: /late\n`);
    assert.ok(body.length > MAX_ROBOTS_TXT_BYTES);
    const r = parseRobotsTxt(ROBOTS, body);
    assert.equal(r.isAllowed(u('/early')), false);
    assert.equal(r.isAllowed(u('/late')), true);
    // A rule cut mid-line at the limit is dropped, not shortened into a broader one.
    const cut = `User-agent: *\n${'#'.repeat(MAX_ROBOTS_TXT_BYTES - 30)}\nDisallow: /abcdefghijklmnopqrstuvwxyz\n`;
    assert.equal(parseRobotsTxt(ROBOTS, cut.slice(0, MAX_ROBOTS_TXT_BYTES)).isAllowed(u('/abcdz')), false, 'the naive cut would read /abcd');
    assert.equal(parseRobotsTxt(ROBOTS, cut).isAllowed(u('/abcdz')), true);
  });

  test('a hostile file of wildcard rules stays usable', () => {
    let txt = 'User-agent: *\n';
    while (txt.length < MAX_ROBOTS_TXT_BYTES) txt += `Disallow: /${'*x'.repeat(200)}\n`;
    const t0 = performance.now();
    const r = parseRobotsTxt(ROBOTS, txt);
    for (let i = 0; i < 20; i++) r.isAllowed(u(`/products/item-${i}?color=blue&size=m`));
    assert.ok(performance.now() - t0 < 3000);
  });
});

describe('robotsTxtFromResponse: what the HTTP outcome means', () => {
  const body = 'User-agent: *\nDisallow: /x\n';
  const cases: Array<[number | null, string, boolean]> = [
    [200, 'parsed', true],
    [404, 'allow-all', true],
    [410, 'allow-all', true],
    [401, 'allow-all', true],
    [403, 'allow-all', true],
    [301, 'allow-all', true],
    [429, 'disallow-all', false],
    [500, 'disallow-all', false],
    [503, 'disallow-all', false],
    [null, 'disallow-all', false],
  ];
  for (const [status, source, allowsPage] of cases) {
    test(`status ${status}: ${source}`, () => {
      const r = robotsTxtFromResponse(ROBOTS, { status, body });
      assert.equal(r.source, source);
      assert.equal(r.isAllowed(u('/page')), allowsPage);
      assert.deepEqual(r.sitemaps, []);
      if (status === 200) assert.equal(r.isAllowed(u('/x')), false);
    });
  }

  test('allow-all still refuses other origins', () => {
    const r = robotsTxtFromResponse(ROBOTS, { status: 404 });
    assert.equal(r.isAllowed('https://other.example/'), false);
  });

  test('robotsTxtUrl', () => {
    assert.equal(robotsTxtUrl('https://Example.com:443/a/b?c#d'), 'https://example.com/robots.txt');
    assert.equal(robotsTxtUrl('http://127.0.0.1:8080/x'), 'http://127.0.0.1:8080/robots.txt');
    assert.equal(robotsTxtUrl('mailto:x@example.com'), null);
    assert.equal(robotsTxtUrl('nope'), null);
  });
});
