// The browser's way out (core/render/guard-proxy.ts): every request a rendered page makes goes
// through this proxy, which applies the address guard of every other outbound call. Spoken to
// directly here, as Chromium speaks to it (absolute-URL requests for http, CONNECT for https),
// so no browser is needed; test/checks-render.test.ts shows a page's request refused end to end.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startGuardProxy, type GuardProxy } from '../core/render/index.ts';
import type { Resolver } from '../core/net/index.ts';

/** The proxy's answer to one request line (and its status code). */
function ask(proxy: GuardProxy, requestLine: string, host: string): Promise<{ status: number; text: string }> {
  const [h, p] = proxy.address.split(':');
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: h, port: Number(p) });
    let text = '';
    s.on('data', (d) => (text += d.toString('latin1')));
    s.on('error', reject);
    s.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }));
    s.write(`${requestLine}\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    // A tunnel stays open: speak HTTP through it once it is established.
    s.once('data', (d) => {
      if (requestLine.startsWith('CONNECT') && d.toString().startsWith('HTTP/1.1 200')) s.write(`GET /through HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    });
  });
}

describe('render guard proxy', () => {
  let site: http.Server;
  let port = 0;
  const resolver: Resolver = async (host) => {
    if (host === 'metadata.example.com') return [{ address: '169.254.169.254', family: 4 }];
    if (host === 'mixed.example.com') return [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }];
    throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  };
  before(async () => {
    site = http.createServer((req, res) => res.end(`site ${req.url}`));
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    port = (site.address() as net.AddressInfo).port;
  });
  after(() => new Promise<void>((r) => site.close(() => r())));

  it('refuses link-local, metadata and *.localhost targets even where private networks are allowed, by plain request and by tunnel', async () => {
    const proxy = await startGuardProxy({ allowPrivateNetwork: true }, resolver);
    try {
      assert.equal((await ask(proxy, 'GET http://169.254.169.254/latest/meta-data/ HTTP/1.1', '169.254.169.254')).status, 403);
      assert.equal((await ask(proxy, 'CONNECT 169.254.169.254:443 HTTP/1.1', '169.254.169.254:443')).status, 403);
      assert.equal((await ask(proxy, 'GET http://metadata.example.com/ HTTP/1.1', 'metadata.example.com')).status, 403);
      assert.equal((await ask(proxy, `GET http://beacon.localhost:${port}/ HTTP/1.1`, `beacon.localhost:${port}`)).status, 403);
      assert.equal((await ask(proxy, 'CONNECT [fe80::1]:443 HTTP/1.1', '[fe80::1]:443')).status, 403);
      assert.deepEqual(proxy.refused, ['169.254.169.254', '169.254.169.254', 'metadata.example.com', 'beacon.localhost', 'fe80::1']);
      // A name that does not resolve is not a refusal, just no answer.
      assert.equal((await ask(proxy, 'GET http://nowhere.example.com/ HTTP/1.1', 'nowhere.example.com')).status, 502);
    } finally {
      await proxy.close();
    }
  });

  it('refuses loopback and a name with any private answer without ALLOW_PRIVATE_NETWORK, and carries loopback with it', async () => {
    const strict = await startGuardProxy({ allowPrivateNetwork: false }, resolver);
    try {
      assert.equal((await ask(strict, `GET http://127.0.0.1:${port}/a HTTP/1.1`, `127.0.0.1:${port}`)).status, 403);
      assert.equal((await ask(strict, `CONNECT 127.0.0.1:${port} HTTP/1.1`, `127.0.0.1:${port}`)).status, 403);
      assert.equal((await ask(strict, 'CONNECT mixed.example.com:443 HTTP/1.1', 'mixed.example.com:443')).status, 403);
    } finally {
      await strict.close();
    }
    const open = await startGuardProxy({ allowPrivateNetwork: true }, resolver);
    try {
      const plain = await ask(open, `GET http://127.0.0.1:${port}/a?b=1 HTTP/1.1`, `127.0.0.1:${port}`);
      assert.equal(plain.status, 200);
      assert.match(plain.text, /site \/a\?b=1$/);
      const tunnel = await ask(open, `CONNECT 127.0.0.1:${port} HTTP/1.1`, `127.0.0.1:${port}`);
      assert.match(tunnel.text, /^HTTP\/1\.1 200 Connection Established/);
      assert.match(tunnel.text, /site \/through$/);
      assert.deepEqual(open.refused, []);
    } finally {
      await open.close();
    }
  });
});
