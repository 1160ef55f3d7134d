// URL normalization for the crawl frontier and the same-origin rule.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isSameOrigin, normalizeUrl, originOf } from '../core/pages/index.ts';

describe('normalizeUrl', () => {
  test('drops the fragment, lower-cases scheme and host, drops default ports, keeps the query', () => {
    assert.equal(normalizeUrl('HTTPS://Example.COM:443/Path/?b=2&a=1#section'), 'https://example.com/Path/?b=2&a=1');
    assert.equal(normalizeUrl('http://example.com:80'), 'http://example.com/');
    assert.equal(normalizeUrl('http://example.com:8080/x'), 'http://example.com:8080/x');
    assert.equal(normalizeUrl('https://example.com/a?'), 'https://example.com/a?');
  });

  test('resolves dot segments and relative references against a base', () => {
    assert.equal(normalizeUrl('https://example.com/a/./b/../c/%2e%2E/d'), 'https://example.com/a/d');
    assert.equal(normalizeUrl('../x?y#z', 'https://example.com/a/b/c'), 'https://example.com/a/x?y');
    assert.equal(normalizeUrl('//cdn.example.com/s', 'https://example.com/'), 'https://cdn.example.com/s');
  });

  test('percent-escapes are upper-cased, so equivalent spellings meet', () => {
    assert.equal(normalizeUrl('https://example.com/%7euser/%c3%a9?q=%2f'), 'https://example.com/%7Euser/%C3%A9?q=%2F');
    assert.equal(normalizeUrl('https://example.com/é'), 'https://example.com/%C3%A9');
  });

  test('only http(s) without credentials; garbage gives null', () => {
    for (const bad of ['mailto:a@example.com', 'javascript:alert(1)', 'ftp://example.com/', 'data:text/html,x', 'https://u:p@example.com/', 'https://u@example.com/', 'not a url', '', 'http://[::1']) {
      assert.equal(normalizeUrl(bad), null, bad);
    }
    assert.equal(normalizeUrl('relative/only'), null);
  });

  test('a URL object is not modified', () => {
    const u = new URL('https://example.com/a#frag');
    assert.equal(normalizeUrl(u), 'https://example.com/a');
    assert.equal(u.href, 'https://example.com/a#frag');
  });
});

describe('same origin', () => {
  test('scheme, host and port must match after normalization', () => {
    assert.equal(isSameOrigin('http://Example.com:80/a', 'http://example.com/b?x'), true);
    assert.equal(isSameOrigin('http://example.com/', 'https://example.com/'), false);
    assert.equal(isSameOrigin('https://www.example.com/', 'https://example.com/'), false);
    assert.equal(isSameOrigin('http://127.0.0.1:8080/', 'http://127.0.0.1:8081/'), false);
    assert.equal(isSameOrigin('mailto:a@example.com', 'mailto:a@example.com'), false);
    assert.equal(isSameOrigin('garbage', 'garbage'), false);
  });

  test('originOf', () => {
    assert.equal(originOf('https://EXAMPLE.com:443/x?y'), 'https://example.com');
    assert.equal(originOf('http://127.0.0.1:3000/'), 'http://127.0.0.1:3000');
    assert.equal(originOf('file:///etc/passwd'), null);
  });
});
