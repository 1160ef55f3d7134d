// analyzeHtml: every field of the page analysis, the decisions documented in
// core/pages/analyze-html.ts, and hostile input.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyzeHtml, FLATTEN_DEPTH, MAX_TEXT_FIELD, pageRecordFields, type PageAnalysis } from '../core/pages/index.ts';
import { htmlPage } from './support/fixture-site.ts';

const URL_ = 'https://example.com/dir/page.html';
const HTML = { 'content-type': 'text/html; charset=utf-8' };

function analyze(html: string | Buffer, headers: Record<string, string | string[]> = HTML, url = URL_): PageAnalysis {
  return analyzeHtml(html, { url, headers });
}

function page(head: string, body = ''): string {
  return `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
}

describe('analyzeHtml: a complete page', () => {
  test('every field at once', () => {
    const html = htmlPage({
      title: 'Blue  shoes &  more',
      description: 'Shoes for\n everyone',
      canonical: '/shoes',
      robots: 'index, follow',
      h1: ['Blue shoes', 'Second heading'],
      hreflang: [{ lang: 'en-GB', href: '/uk/shoes' }, { lang: 'x-default', href: 'https://example.com/shoes' }],
      jsonLd: [{ '@context': 'https://schema.org', '@type': 'Product', offers: { '@type': 'Offer' } }],
      links: ['/a', 'b', 'https://example.com/a#x', 'https://other.example/', '#top'],
      words: 120,
    });
    assert.deepEqual(analyze(html), {
      isHtml: true,
      title: 'Blue shoes & more',
      metaDescription: 'Shoes for everyone',
      canonical: 'https://example.com/shoes',
      robots: ['index', 'follow'],
      h1Count: 2,
      hreflang: [
        { lang: 'en-gb', href: 'https://example.com/uk/shoes' },
        { lang: 'x-default', href: 'https://example.com/shoes' },
      ],
      structuredDataTypes: ['Offer', 'Product'],
      // 120 body words, 4 in the headings, one per link (five links)
      wordCount: 129,
      internalLinks: 3,
      links: ['https://example.com/a', 'https://example.com/dir/b'],
      nofollowLinks: [],
      truncated: false,
    });
  });
});

describe('pageRecordFields', () => {
  test('exactly the HTML-derived fields of the page record contract', () => {
    const a = analyze(page('<title>T</title><meta name="robots" content="noindex">', '<h1>H</h1><a href="/x">x</a>'));
    assert.deepEqual(pageRecordFields(a), {
      title: 'T',
      metaDescription: null,
      canonical: null,
      robots: ['noindex'],
      h1Count: 1,
      hreflang: [],
      structuredDataTypes: [],
      wordCount: 2,
      internalLinks: 1,
    });
  });
});

describe('analyzeHtml: title and description', () => {
  test('first <title>, collapsed and decoded; an SVG title does not count', () => {
    const html = page('', '<svg><title>Icon</title></svg>') .replace('<head>', '<head><title>\n  Caf&eacute; &amp; bar\t </title><title>Second</title>');
    assert.equal(analyze(html).title, 'Café & bar');
    assert.equal(analyze(page('', '<svg><title>Icon</title></svg>')).title, null);
  });

  test('absent or blank title is null; a page without <head> still has its title', () => {
    assert.equal(analyze(page('<meta charset="utf-8">')).title, null);
    assert.equal(analyze(page('<title>  \n </title>')).title, null);
    assert.equal(analyze('<!doctype html><title>No head</title><p>text</p>').title, 'No head');
  });

  test('a huge title is cut to MAX_TEXT_FIELD characters', () => {
    const t = analyze(page(`<title>${'word '.repeat(200_000)}</title>`)).title!;
    assert.equal(t.length, MAX_TEXT_FIELD);
    assert.ok(t.startsWith('word word'));
  });

  test('meta description: first one, name case-insensitive, collapsed; blank is null', () => {
    assert.equal(analyze(page('<meta NAME="Description" content=" One &amp;\n two "><meta name="description" content="Later">')).metaDescription, 'One & two');
    assert.equal(analyze(page('<meta name="description" content="  ">')).metaDescription, null);
    assert.equal(analyze(page('<meta name="description">')).metaDescription, null);
    assert.equal(analyze(page('<meta property="og:description" content="og">')).metaDescription, null);
  });
});

describe('analyzeHtml: canonical', () => {
  test('rel is a case-insensitive token list; relative hrefs resolve against the page URL', () => {
    assert.equal(analyze(page('<link rel="preload Canonical" href="../other?a=1">')).canonical, 'https://example.com/other?a=1');
    assert.equal(analyze(page('<link rel="canonical-ish" href="/no">')).canonical, null);
  });

  test('resolved against <base href> (itself resolved against the page URL)', () => {
    assert.equal(analyze(page('<base href="/base/"><link rel="canonical" href="c">')).canonical, 'https://example.com/base/c');
    // The first <base href> wins; base applies even to links before it.
    assert.equal(analyze(page('<link rel="canonical" href="c"><base href="https://cdn.example.net/x/"><base href="/ignored/">')).canonical, 'https://cdn.example.net/x/c');
  });

  test('from the Link header when no tag; the tag wins over the header', () => {
    const headers = { ...HTML, link: '<https://example.com/a,b>; rel="preload", </from-header>; rel="canonical"' };
    assert.equal(analyze(page(''), headers).canonical, 'https://example.com/from-header');
    assert.equal(analyze(page('<link rel="canonical" href="/tag">'), headers).canonical, 'https://example.com/tag');
  });

  test('first tag wins; empty or unparsable href gives null', () => {
    assert.equal(analyze(page('<link rel="canonical" href="/one"><link rel="canonical" href="/two">')).canonical, 'https://example.com/one');
    assert.equal(analyze(page('<link rel="canonical" href="">')).canonical, null);
    assert.equal(analyze(page('<link rel="canonical" href="http://[bad">')).canonical, null);
  });
});

describe('analyzeHtml: robots directives', () => {
  test('meta robots and googlebot merge, lower case, unique, in order; other bots ignored', () => {
    const html = page('<meta name="ROBOTS" content=" NoIndex ,Follow"><meta name="bingbot" content="noarchive"><meta name="googlebot" content="nosnippet, noindex">');
    assert.deepEqual(analyze(html).robots, ['noindex', 'follow', 'nosnippet']);
  });

  test('X-Robots-Tag: several headers, comma lists, user-agent scopes; headers come first', () => {
    const headers = {
      ...HTML,
      'x-robots-tag': ['noarchive', 'googlebot: nofollow, max-snippet: 20', 'bingbot: noindex, noimageindex', '*: notranslate', 'otherbot: unavailable_after: 25 Jun 2030 15:00:00 PST'],
    };
    const html = page('<meta name="robots" content="noarchive, max-image-preview:large">');
    assert.deepEqual(analyze(html, headers).robots, ['noarchive', 'nofollow', 'max-snippet:20', 'notranslate', 'max-image-preview:large']);
  });

  test('value directives keep their value; unavailable_after for everyone applies', () => {
    const headers = { ...HTML, 'x-robots-tag': 'unavailable_after: 2030-06-25, max-video-preview: -1' };
    assert.deepEqual(analyze(page(''), headers).robots, ['unavailable_after:2030-06-25', 'max-video-preview:-1']);
  });

  test('none expands to noindex, nofollow; space-separated lists are read too', () => {
    assert.deepEqual(analyze(page('<meta name="robots" content="none">')).robots, ['noindex', 'nofollow']);
    assert.deepEqual(analyze(page('<meta name="robots" content="noindex nofollow">')).robots, ['noindex', 'nofollow']);
  });

  test('a single header value scoped to googlebot covers its whole list', () => {
    assert.deepEqual(analyze(page(''), { ...HTML, 'x-robots-tag': 'googlebot: noindex, nofollow' }).robots, ['noindex', 'nofollow']);
    assert.deepEqual(analyze(page(''), { ...HTML, 'x-robots-tag': 'bingbot: noindex, nofollow' }).robots, []);
  });
});

describe('analyzeHtml: headings, hreflang, structured data', () => {
  test('h1Count counts every h1, any case, nested or not', () => {
    assert.equal(analyze(page('', '<H1>a</H1><div><h1>b</h1></div><h2>c</h2><h1></h1>')).h1Count, 3);
    assert.equal(analyze(page('')).h1Count, 0);
  });

  test('hreflang: lang lower-cased, href absolute, exact duplicates dropped, header entries after tags', () => {
    const headers = { ...HTML, link: '<https://example.com/fr/>; rel="alternate"; hreflang="FR", <https://example.com/x>; rel="alternate"' };
    const html = page(
      '<link rel="alternate" hreflang=" DE-at " href="/at/"><link rel="alternate" hreflang="de-at" href="/at/">' +
        '<link rel="alternate" hreflang="es" href=""><link rel="alternate" href="/nolang"><link rel="stylesheet" hreflang="it" href="/s.css">',
    );
    assert.deepEqual(analyze(html, headers).hreflang, [
      { lang: 'de-at', href: 'https://example.com/at/' },
      { lang: 'fr', href: 'https://example.com/fr/' },
    ]);
  });

  test('JSON-LD: top-level, arrays, @graph, nested, type arrays, prefixes stripped, sorted unique', () => {
    const blocks = [
      { '@context': 'https://schema.org', '@type': 'Article', author: { '@type': 'Person', name: 'A' }, publisher: [{ '@type': ['Organization', 'Brand'] }] },
      [{ '@type': 'http://schema.org/BreadcrumbList' }, { '@type': 'https://www.schema.org/FAQPage' }],
      { '@context': { '@vocab': 'https://schema.org/', url: { '@type': '@id' } }, '@graph': [{ '@type': 'schema:WebSite' }, { '@type': 'Article' }] },
      { '@type': 'https://example.org/vocab/Custom' },
    ];
    const html = page(blocks.map((b) => `<script type="application/ld+json">${JSON.stringify(b)}</script>`).join(''));
    assert.deepEqual(analyze(html).structuredDataTypes, [
      'Article', 'Brand', 'BreadcrumbList', 'FAQPage', 'Organization', 'Person', 'WebSite', 'https://example.org/vocab/Custom',
    ]);
  });

  test('JSON-LD: invalid blocks are ignored; common slips are tolerated; type attribute variants', () => {
    const html = page(
      '<script type="application/ld+json">{"@type": "Broken",</script>' +
        '<script type="application/ld+json"><!-- {"@type": "Commented"} --></script>' +
        '<script type="application/ld+json">{"@type": "Multiline", "description": "line one\nline two"}</script>' +
        '<script type=" Application/LD+JSON; charset=utf-8">{"@type": "Charset"}</script>' +
        '<script type="application/json">{"@type": "NotLd"}</script>' +
        '<script>var x = {"@type": "Js"};</script>' +
        '<script type="application/ld+json"></script>' +
        '<script type="application/ld+json">null</script>' +
        '<script type="application/ld+json">{"@type": 42, "x": {"@type": ["", "@id", "Ok"]}}</script>',
    );
    assert.deepEqual(analyze(html).structuredDataTypes, ['Charset', 'Commented', 'Multiline', 'Ok']);
  });

  test('microdata itemtype (space-separated IRIs) joins the JSON-LD types', () => {
    const html = page('<script type="application/ld+json">{"@type":"Product"}</script>', '<div itemscope itemtype="https://schema.org/Product http://schema.org/IndividualProduct"><span itemprop="offers" itemscope itemtype="https://schema.org/Offer">x</span></div>');
    assert.deepEqual(analyze(html).structuredDataTypes, ['IndividualProduct', 'Offer', 'Product']);
  });
});

describe('analyzeHtml: word count', () => {
  test('only visible text: not head, title, script, style, noscript, template, svg', () => {
    const html =
      '<html><head><title>Title words</title><style>.a{}</style><script>var a = "b c";</script></head><body>' +
      'one two <script>x y z</script><style>p{}</style><noscript>no script</noscript><template><p>tpl words</p></template>' +
      '<svg><text>svg text</text></svg>three</body></html>';
    assert.equal(analyze(html).wordCount, 3);
  });

  test('inline tags join a word, block tags and <br> separate words', () => {
    assert.equal(analyze(page('', 'un<b>believ</b>able')).wordCount, 1);
    assert.equal(analyze(page('', '<ul><li>one</li><li>two</li></ul><p>three</p>four<br>five<div>six</div>')).wordCount, 6);
  });

  test('entities: &nbsp; separates, &amp; inside a word does not; punctuation alone is no word', () => {
    assert.equal(analyze(page('', '<p>a&nbsp;b AT&amp;T | — … 2024 ©</p>')).wordCount, 4);
  });

  test('CJK: one word per ideograph or kana; Korean by spaces', () => {
    assert.equal(analyze(page('', '<p>漢字かなカナ</p>')).wordCount, 6);
    assert.equal(analyze(page('', '<p>東京 Tokyo。</p>')).wordCount, 3);
    assert.equal(analyze(page('', '<p>안녕하세요 세계</p>')).wordCount, 2);
  });

  test('body content ends an unclosed head, as in browsers', () => {
    assert.equal(analyze('<html><head><title>T</title><div>one two</div></html>').wordCount, 2);
    assert.equal(analyze('<html><head><meta charset="utf-8">stray words<title>T</title></head></html>').wordCount, 2);
    assert.equal(analyze('<!doctype html><p>no head at all</p>').wordCount, 4);
  });
});

describe('analyzeHtml: links', () => {
  test('same-origin anchors only, counted per anchor, listed once, normalized, in document order', () => {
    const html = page(
      '',
      [
        '<a href="/b">', '<a href="HTTPS://EXAMPLE.COM:443/a/./x/../?q=1#frag">', '<a href="/b#other">', '<a href=" /c ">',
        '<a href="http://example.com/insecure">', '<a href="https://www.example.com/">', '<a href="//example.com/proto-rel">',
        '<a href="#top">', '<a href="#">', '<a href="javascript:void(0)">', '<a href="mailto:a@example.com">', '<a href="tel:+1">',
        '<a href="https://user:pw@example.com/secret">', '<a>no href</a>', '<area href="/area">', '<a href="/%7euser">',
      ].join(''),
    );
    const a = analyze(html);
    assert.deepEqual(a.links, [
      'https://example.com/b',
      'https://example.com/a/?q=1',
      'https://example.com/c',
      'https://example.com/proto-rel',
      'https://example.com/%7Euser',
    ]);
    assert.equal(a.internalLinks, 6);
  });

  test('relative links resolve against <base href>, even links before the base tag', () => {
    const html = '<html><body><a href="x">x</a><base href="https://example.com/other/"><a href="y">y</a></body></html>';
    assert.deepEqual(analyze(html).links, ['https://example.com/other/x', 'https://example.com/other/y']);
    // A base on another origin makes relative links external.
    assert.deepEqual(analyze(page('<base href="https://cdn.example.net/">', '<a href="x">x</a>')).links, []);
  });

  test('the page origin is that of the final URL, port included', () => {
    const html = page('', '<a href="/p">p</a><a href="http://127.0.0.1:8080/q">q</a><a href="http://127.0.0.1/r">r</a>');
    assert.deepEqual(analyze(html, HTML, 'http://127.0.0.1:8080/start').links, ['http://127.0.0.1:8080/p', 'http://127.0.0.1:8080/q']);
  });

  test('nofollowLinks: URLs whose every anchor is rel=nofollow; they stay in links', () => {
    const html = page('', '<a rel="nofollow" href="/n">n</a><a rel="NoFollow ugc" href="/m">m</a><a href="/m">m</a><a rel="nofollowed" href="/k">k</a>');
    const a = analyze(html);
    assert.deepEqual(a.links, ['https://example.com/n', 'https://example.com/m', 'https://example.com/k']);
    assert.deepEqual(a.nofollowLinks, ['https://example.com/n']);
  });

  test('an invalid page URL gives no links and no relative URLs, without throwing', () => {
    const a = analyzeHtml(page('<link rel="canonical" href="/c">', '<a href="/x">x</a>'), { url: 'not a url', headers: HTML });
    assert.deepEqual([a.links, a.internalLinks, a.canonical, a.isHtml], [[], 0, null, true]);
  });
});

describe('analyzeHtml: content types and encodings', () => {
  test('non-HTML gets an empty analysis, but header directives still apply', () => {
    const headers = { 'content-type': 'application/pdf', 'x-robots-tag': 'noindex', link: '<https://example.com/doc.pdf>; rel="canonical"' };
    assert.deepEqual(analyze(Buffer.from('%PDF-1.7 <html><title>x</title>'), headers), {
      isHtml: false,
      title: null,
      metaDescription: null,
      canonical: 'https://example.com/doc.pdf',
      robots: ['noindex'],
      h1Count: 0,
      hreflang: [],
      structuredDataTypes: [],
      wordCount: 0,
      internalLinks: 0,
      links: [],
      nofollowLinks: [],
      truncated: false,
    });
    assert.equal(analyze('<html><title>Plain</title></html>', { 'content-type': 'text/plain' }).isHtml, false);
    assert.equal(analyze('<html><title>X</title></html>', { 'content-type': 'application/xhtml+xml' }).title, 'X');
  });

  test('without Content-Type, HTML is sniffed from the first bytes', () => {
    assert.equal(analyze(' \n<!DOCTYPE html><title>Sniffed</title>', {}).title, 'Sniffed');
    assert.equal(analyze('<p>para</p>', {}).isHtml, true);
    assert.equal(analyze('{"title": "<title>json</title>"}', {}).isHtml, false);
    assert.equal(analyze(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]), {}).isHtml, false);
    assert.equal(analyze('', {}).isHtml, false);
  });

  test('encodings: header charset, <meta charset>, BOM; unknown labels fall back to UTF-8', () => {
    const latin1 = Buffer.concat([Buffer.from('<html><head><title>Caf'), Buffer.from([0xe9]), Buffer.from('</title></head></html>')]);
    assert.equal(analyze(latin1, { 'content-type': 'text/html; charset=ISO-8859-1' }).title, 'Café');
    const meta = Buffer.concat([Buffer.from('<html><head><meta charset="windows-1252"><title>'), Buffer.from([0x80]), Buffer.from('</title>')]);
    assert.equal(analyze(meta, { 'content-type': 'text/html' }).title, '€');
    const quotes = Buffer.from([...Buffer.from('<title>'), 0x93, 0x71, 0x94, 0x81, ...Buffer.from('</title>')]);
    assert.equal(analyze(quotes, { 'content-type': 'text/html; charset=us-ascii' }).title, '\u201cq\u201d\x81');
    const sjis = Buffer.from([...Buffer.from('<title>'), 0x93, 0xfa, 0x96, 0x7b, ...Buffer.from('</title>')]);
    assert.equal(analyze(sjis, { 'content-type': 'text/html; charset=Shift_JIS' }).title, '日本');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<html><title>Wide</title></html>', 'utf16le')]);
    assert.equal(analyze(utf16, { 'content-type': 'text/html' }).title, 'Wide');
    assert.equal(analyze(Buffer.from('<title>Ünknown</title>'), { 'content-type': 'text/html; charset=x-nonsense' }).title, 'Ünknown');
  });
});

describe('analyzeHtml: hostile input never throws and stays fast', () => {
  test('unclosed tags, unclosed script and title, stray closes', () => {
    assert.equal(analyze('<html><body><div><p><a href="/a">one<span>two').wordCount, 1);
    assert.deepEqual(analyze('<html><body><a href="/a">x</a></span></div></body></html></html><a href="/b">').links, ['https://example.com/a', 'https://example.com/b']);
    const script = analyze('<html><head><script type="application/ld+json">{"@type":"Thing"}');
    assert.deepEqual(script.structuredDataTypes, ['Thing']);
    assert.equal(analyze('<html><head><title>Never closed <a href="/x">').title, 'Never closed <a href="/x">');
  });

  test('a 1 MB attribute, NUL bytes, a 1 MB href', () => {
    const big = 'x'.repeat(1024 * 1024);
    const a = analyze(page(`<meta name="description" content="${big}">`, `<div class="${big}">one\u0000two</div><a href="/${big}">long</a><a href="/o\u0000k">ok</a>`));
    assert.equal(a.metaDescription!.length, MAX_TEXT_FIELD);
    assert.equal(a.wordCount, 3);
    assert.deepEqual(a.links, ['https://example.com/o%00k']);
  });

  test('200,000 nested <div>s: read flat past the depth guard, content after still counted, quickly', () => {
    const html = `<html><body>${'<div>'.repeat(200_000)}deep words<a href="/after">after</a>${'</div>'.repeat(200_000)}<h1>End</h1></body></html>`;
    const t0 = performance.now();
    const a = analyze(html);
    const ms = performance.now() - t0;
    assert.deepEqual([a.wordCount, a.links, a.h1Count, a.truncated], [4, ['https://example.com/after'], 1, false]);
    assert.ok(ms < 3000, `took ${ms.toFixed(0)} ms`);
  });

  test('nesting just under the guard is parsed normally', () => {
    const depth = FLATTEN_DEPTH - 3;
    const html = `<html><body>${'<div>'.repeat(depth)}<script>hidden words</script>shown${'</div>'.repeat(depth)}after</body></html>`;
    assert.equal(analyze(html).wordCount, 2);
  });

  test('past the guard, script, style and title still open and close', () => {
    const depth = FLATTEN_DEPTH + 100;
    const html = `<html><body>${'<div>'.repeat(depth)}<script>var hidden = 1;</script><style>.x{}</style><p>shown <b>words</b></p><title>Late title</title>${'</div>'.repeat(depth)}<svg><text>icon</text></svg>after</body></html>`;
    const a = analyze(html);
    assert.deepEqual([a.wordCount, a.title, a.truncated], [3, 'Late title', false]);
  });

  test('nesting of elements the scanner follows (svg) stops reading at the hard limit', () => {
    const html = `<html><body><a href="/before">b</a>${'<svg>'.repeat(100_000)}<a href="/never">n</a></body></html>`;
    const t0 = performance.now();
    const a = analyze(html);
    assert.ok(performance.now() - t0 < 3000);
    assert.equal(a.truncated, true);
    assert.deepEqual(a.links, ['https://example.com/before']);
  });

  test('many unmatched closing tags', () => {
    const html = `<html><body>${'<div>'.repeat(600)}${'</span>'.repeat(300_000)}<p>end</p></body></html>`;
    const t0 = performance.now();
    assert.equal(analyze(html).wordCount, 1);
    assert.ok(performance.now() - t0 < 3000);
  });

  test('a JSON-LD block nested 100,000 deep, and one over the size cap', () => {
    const deep = `${'{"a":'.repeat(5000)}{"@type":"Deep"}${'}'.repeat(5000)}`;
    const huge = `{"@type":"Huge","x":"${'y'.repeat(2 * 1024 * 1024)}"}`;
    const a = analyze(page(`<script type="application/ld+json">${deep}</script><script type="application/ld+json">${huge}</script><script type="application/ld+json">${'['.repeat(100_000)}</script>`));
    assert.deepEqual(a.structuredDataTypes, []);
  });

  test('arbitrary strings and bytes never throw and give a well-formed analysis', () => {
    const fragments = fc.constantFrom('<', '>', '</', '/>', '<a href="', '"', "'", '=', '<script>', '</script>', '<title>', '<svg>', '<!--', '-->', '<![CDATA[', '&', '&amp;', '&#x', ';', '<meta name=robots content=', '<base href=', '\u0000', ' ', '\n', 'word', '漢');
    fc.assert(
      fc.property(fc.array(fc.oneof(fragments, fc.string()), { maxLength: 60 }), fc.uint8Array({ maxLength: 200 }), (parts, bytes) => {
        for (const input of [parts.join(''), Buffer.from(bytes)]) {
          const a = analyzeHtml(input, { url: URL_, headers: { 'content-type': 'text/html' } });
          assert.equal(typeof a.wordCount, 'number');
          assert.ok(Array.isArray(a.links) && a.internalLinks >= a.links.length);
        }
      }),
      { numRuns: 300 },
    );
  });
});
