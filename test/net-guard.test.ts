import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { Worker } from 'node:worker_threads';
import { generate } from 'selfsigned';
import {
  guardedFetch,
  FetchError,
  DEFAULT_USER_AGENT,
  classifyAddress,
  checkHostName,
  checkPublicUrl,
  closeIdleConnections,
} from '../core/net/index.ts';
import type { FetchErrorCode, GuardedFetchOptions, Resolver } from '../core/net/index.ts';

// ---------------------------------------------------------------------------------------------
// Helpers

type Closable = net.Server & { closeAllConnections?: () => void };
const servers: Closable[] = [];

function listen(server: Closable, host: string, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      servers.push(server);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

/** A resolver with a script of answers per host; the last answer repeats. Counts its calls. */
function scriptedResolver(script: Record<string, string[][]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const seen = new Map<string, number>();
  const resolver = async (host: string) => {
    calls.push(host);
    const answers = script[host] ?? script['*'];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    const n = seen.get(host) ?? 0;
    seen.set(host, n + 1);
    const answer = answers[Math.min(n, answers.length - 1)];
    return answer.map((address) => ({ address, family: (net.isIP(address) === 6 ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(resolver, { calls });
}

async function fails(promise: Promise<unknown>, code: FetchErrorCode, label = ''): Promise<FetchError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof FetchError, `${label}: expected a FetchError, got ${String(err)}`);
    assert.equal(err.code, code, `${label}: expected ${code}, got ${err.code} (${err.message})`);
    return err;
  }
  assert.fail(`${label}: expected ${code}, but the fetch succeeded`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Counts every TCP connection it gets; any count above zero in a blocked run is a hole. */
class Sentinel {
  connections = 0;
  port = 0;
  v6 = false;
  private readonly onConnection = (socket: net.Socket): void => {
    this.connections++;
    socket.destroy();
  };

  async start(): Promise<void> {
    this.port = await listen(net.createServer(this.onConnection), '127.0.0.1');
    // Same port on ::1 so [::1]:port and ::ffff:127.0.0.1 are watched too.
    const v6 = net.createServer(this.onConnection);
    try {
      await listen(v6, '::1', this.port);
      this.v6 = true;
    } catch {
      this.v6 = false;
    }
  }
}

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  local: string;
  servername?: string;
}

/** The "customer site": a local server with routes for redirects, limits and echo. */
function appHandler(log: Seen[], stats: { sent: number; closed: boolean }) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '/';
      const seen: Seen = {
        method: req.method ?? '',
        url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        local: req.socket.localAddress ?? '',
        servername: (req.socket as { servername?: string }).servername,
      };
      log.push(seen);
      const redirect = (status: number, location: string) => {
        res.writeHead(status, { location, 'content-length': '0' });
        res.end();
      };
      let m: RegExpMatchArray | null;
      if (url === '/ok') {
        res.writeHead(200, { 'content-type': 'text/plain', 'X-Custom-Header': 'Yes' });
        res.end('ok');
      } else if (url === '/echo') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(seen));
      } else if ((m = url.match(/^\/r\/(\d)$/))) {
        const n = Number(m[1]);
        redirect([0, 307, 302, 301][n], n === 1 ? '/ok' : `/r/${n - 1}`);
      } else if ((m = url.match(/^\/endless\/(\d+)$/))) {
        redirect(302, `/endless/${Number(m[1]) + 1}`);
      } else if (url === '/loop/a') {
        redirect(301, '/loop/b');
      } else if (url === '/loop/b') {
        redirect(301, '/loop/a');
      } else if ((m = url.match(/^\/to\/(.*)$/))) {
        redirect(302, decodeURIComponent(m[1]));
      } else if (url === '/moved') {
        res.writeHead(301, { location: '/ok', 'content-type': 'text/plain' });
        res.end('moved');
      } else if (url === '/no-location') {
        res.writeHead(302, { 'content-type': 'text/plain' });
        res.end('nowhere');
      } else if ((m = url.match(/^\/status\/(\d+)$/))) {
        redirect(Number(m[1]), '/echo');
      } else if (url === '/big' || url === '/big-declared') {
        const total = 50 * 1024 * 1024;
        const chunk = Buffer.alloc(64 * 1024, 97);
        stats.sent = 0;
        stats.closed = false;
        res.on('close', () => (stats.closed = true));
        res.writeHead(200, url === '/big-declared' ? { 'content-length': String(total) } : {});
        const pump = () => {
          while (stats.sent < total && !stats.closed) {
            stats.sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
      } else if (url === '/stall-headers') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('the rest never comes');
      } else if (url === '/trickle') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => res.write('.'), 20);
        res.on('close', () => clearInterval(timer));
      } else if (url === '/cut') {
        res.writeHead(200, { 'content-length': '1000' });
        res.write(Buffer.alloc(100, 98));
        setTimeout(() => req.socket.destroy(), 30);
      } else {
        res.writeHead(404);
        res.end();
      }
    });
  };
}

function countConnections(server: net.Server): { count: number } {
  const counter = { count: 0 };
  server.on('connection', () => counter.count++);
  return counter;
}

const FAST: GuardedFetchOptions = { connectTimeoutMs: 500, timeoutMs: 2000 };

// ---------------------------------------------------------------------------------------------

const sentinel = new Sentinel();
const log: Seen[] = [];
const stats = { sent: 0, closed: false };
let app = 0; // port of the app server on 127.0.0.1
let appConnections: { count: number };
let appV6 = false;

before(async () => {
  await sentinel.start();
  const server = http.createServer(appHandler(log, stats));
  appConnections = countConnections(server);
  app = await listen(server, '127.0.0.1');
  appV6 = (await listen(http.createServer(appHandler(log, stats)), '::1', app).then(() => true, () => false));
});

after(async () => {
  closeIdleConnections();
  for (const server of servers) {
    server.closeAllConnections?.();
    server.close();
  }
});

describe('address policy', { timeout: 20_000 }, () => {
  const open = { allowPrivateNetwork: true };
  const shut = { allowPrivateNetwork: false };

  it('classifies by ipaddr.js range, IPv4-mapped by the IPv4 it carries', () => {
    const cases: Array<[string, string, boolean, boolean]> = [
      // address, range, allowed without / with allowPrivateNetwork
      ['8.8.8.8', 'unicast', true, true],
      ['2606:4700:4700::1111', 'unicast', true, true],
      ['::ffff:8.8.8.8', 'unicast', true, true],
      ['127.0.0.1', 'loopback', false, true],
      ['::1', 'loopback', false, true],
      ['10.1.2.3', 'private', false, true],
      ['172.16.0.1', 'private', false, true],
      ['192.168.0.1', 'private', false, true],
      ['fd00::1', 'uniqueLocal', false, true],
      ['::ffff:127.0.0.1', 'loopback', false, true],
      ['::ffff:10.0.0.1', 'private', false, true],
      ['169.254.169.254', 'linkLocal', false, false],
      ['::ffff:169.254.169.254', 'linkLocal', false, false],
      ['fe80::1', 'linkLocal', false, false],
      ['100.64.0.1', 'carrierGradeNat', false, false],
      ['198.18.0.1', 'reserved', false, false],
      ['240.0.0.1', 'reserved', false, false],
      ['0.0.0.0', 'unspecified', false, false],
      ['::', 'unspecified', false, false],
      ['255.255.255.255', 'broadcast', false, false],
      ['224.0.0.1', 'multicast', false, false],
      ['ff02::1', 'multicast', false, false],
      ['2002:7f00:1::', '6to4', false, false],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo', false, false],
      ['64:ff9b::7f00:1', 'rfc6052', false, false],
      ['64:ff9b:1::1', 'rfc6052', false, false],
      ['2001:3::1', 'amt', false, false],
      ['192.52.193.1', 'amt', false, false],
      ['192.31.196.1', 'as112', false, false],
      ['2001:4:112::1', 'as112v6', false, false],
      ['2001:db8::1', 'reserved', false, false],
      ['2001:20::1', 'orchid2', false, false],
      ['::7f00:1', 'ipv4Compatible', false, false],
      ['0177.0.0.1', 'invalid', false, false],
      ['127.1', 'invalid', false, false],
      ['not-an-ip', 'invalid', false, false],
    ];
    for (const [ip, range, without, withPrivate] of cases) {
      assert.deepEqual(classifyAddress(ip, shut), { allowed: without, range }, `${ip} without allowPrivateNetwork`);
      assert.deepEqual(classifyAddress(ip, open), { allowed: withPrivate, range }, `${ip} with allowPrivateNetwork`);
    }
  });

  it('refuses local names unless allowPrivateNetwork opens them; *.localhost stays shut', () => {
    const cases: Array<[string, boolean, boolean]> = [
      ['www.example.com', true, true],
      ['example.com.', true, true],
      ['localhost', false, true],
      ['LocalHost.', false, true],
      ['printer.local', false, true],
      ['db.internal', false, true],
      ['intranet', false, true],
      ['foo.localhost', false, false],
      ['', false, false],
    ];
    for (const [name, without, withPrivate] of cases) {
      assert.equal(checkHostName(name, shut).allowed, without, `${name} without allowPrivateNetwork`);
      assert.equal(checkHostName(name, open).allowed, withPrivate, `${name} with allowPrivateNetwork`);
    }
  });

  it('checkPublicUrl validates a webhook URL without DNS', () => {
    const ok = (url: string, opts = shut as { allowPrivateNetwork: boolean; httpsOnly?: boolean }) =>
      checkPublicUrl(url, opts).ok;
    assert.equal(ok('https://hooks.example.com/in'), true);
    assert.equal(ok('https://8.8.8.8/hook'), true, 'public literal');
    assert.equal(ok('https://[2606:4700:4700::1111]/hook'), true);
    assert.equal(ok('http://hooks.example.com/in'), false, 'https only by default');
    assert.equal(ok('http://hooks.example.com/in', { allowPrivateNetwork: false, httpsOnly: false }), true);
    assert.equal(ok('https://10.0.0.1/'), false);
    assert.equal(ok('https://10.0.0.1/', open), true);
    assert.equal(ok('https://2130706433/'), false);
    assert.equal(ok('https://[::ffff:a9fe:a9fe]/'), false);
    assert.equal(ok('https://169.254.169.254/', open), false);
    assert.equal(ok('https://100.64.0.1/', open), false);
    assert.equal(ok('https://localhost/'), false);
    assert.equal(ok('https://localhost/', open), true);
    assert.equal(ok('https://hooks.internal/'), false);
    assert.equal(ok('https://hooks/'), false);
    assert.equal(ok('https://a.localhost/', open), false);
    assert.equal(ok('ftp://example.com/'), false);
    assert.equal(ok('not a url'), false);
    const refused = checkPublicUrl('https://10.0.0.1/', shut);
    assert.equal(refused.ok, false);
    assert.match((refused as { reason: string }).reason, /10\.0\.0\.1 is not public/);
  });
});

describe('blocked targets never reach the network', { timeout: 20_000 }, () => {
  type Case = { url: string; code: FetchErrorCode; answers?: string[]; lookups: number };
  const P = () => sentinel.port;
  const literal = (url: string): Case => ({ url, code: 'blocked_address', lookups: 0 });
  const localName = (url: string): Case => ({ url, code: 'blocked_address', lookups: 0 });
  const resolvesTo = (url: string, answers: string[]): Case => ({ url, code: 'blocked_address', answers, lookups: 1 });
  const refused = (url: string, code: FetchErrorCode): Case => ({ url, code, lookups: 0 });

  function table(): Case[] {
    const p = P();
    return [
      // Every spelling of 127.0.0.1 the URL parser folds into dotted decimal.
      literal(`http://127.0.0.1:${p}/`),
      literal(`http://2130706433:${p}/`),
      literal(`http://0177.0.0.1:${p}/`),
      literal(`http://0x7f.0.0.1:${p}/`),
      literal(`http://0x7f000001:${p}/`),
      literal(`http://127.1:${p}/`),
      literal(`http://127.0.1:${p}/`),
      literal(`http://0x7f.1:${p}/`),
      literal(`http://017700000001:${p}/`),
      literal(`http://127.000.000.001:${p}/`),
      literal(`http://127.0.0.1.:${p}/`),
      literal(`http://\uff11\uff12\uff17.\uff10.\uff10.\uff11:${p}/`),
      literal(`http://127.255.255.254:${p}/`),
      literal(`http://127%2E0%2E0%2E1:${p}/`),
      literal(`http://%31%32%37.0.0.1:${p}/`),
      literal(`https://127.0.0.1:${p}/`),
      literal(`http://user:pass@127.0.0.1:${p}/`),
      literal(`http://example.com@127.0.0.1:${p}/`),
      // IPv6 and IPv4 hidden in IPv6.
      literal(`http://[::1]:${p}/`),
      literal(`http://[0:0:0:0:0:0:0:1]:${p}/`),
      literal(`http://[::]:${p}/`),
      literal(`http://[::ffff:127.0.0.1]:${p}/`),
      literal(`http://[::ffff:7f00:1]:${p}/`),
      literal(`http://[::ffff:169.254.169.254]:${p}/`),
      literal(`http://[::ffff:10.0.0.1]:${p}/`),
      literal(`http://[::ffff:0.0.0.0]:${p}/`),
      literal(`http://[::ffff:0:7f00:1]:${p}/`),
      literal(`http://[::127.0.0.1]:${p}/`),
      literal(`http://[64:ff9b::7f00:1]:${p}/`),
      literal(`http://[64:ff9b::a9fe:a9fe]:${p}/`),
      literal(`http://[64:ff9b:1::a00:1]:${p}/`),
      literal(`http://[2002:7f00:1::]:${p}/`),
      literal(`http://[2002:a9fe:a9fe::1]:${p}/`),
      literal(`http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]:${p}/`),
      literal(`http://[fe80::1]:${p}/`),
      literal(`http://[febf:ffff::1]:${p}/`),
      literal(`http://[fec0::1]:${p}/`),
      literal(`http://[fc00::1]:${p}/`),
      literal(`http://[fd00:ec2::254]:${p}/`),
      literal(`http://[ff02::1]:${p}/`),
      literal(`http://[ff05::1:3]:${p}/`),
      literal(`http://[2001:3::1]:${p}/`),
      literal(`http://[2001:4:112::1]:${p}/`),
      literal(`http://[2001:db8::1]:${p}/`),
      literal(`http://[3fff::1]:${p}/`),
      literal(`http://[2001:10::1]:${p}/`),
      literal(`http://[2001:20::1]:${p}/`),
      literal(`http://[2001:2::1]:${p}/`),
      literal(`http://[100::1]:${p}/`),
      // IPv4 special-purpose ranges.
      literal(`http://169.254.169.254:${p}/latest/meta-data/`),
      literal(`http://169.254.0.1:${p}/`),
      literal(`http://100.64.0.1:${p}/`),
      literal(`http://100.127.255.254:${p}/`),
      literal(`http://198.18.0.1:${p}/`),
      literal(`http://198.19.255.254:${p}/`),
      literal(`http://0.0.0.0:${p}/`),
      literal(`http://0:${p}/`),
      literal(`http://0.1.2.3:${p}/`),
      literal(`http://240.0.0.1:${p}/`),
      literal(`http://255.255.255.255:${p}/`),
      literal(`http://224.0.0.1:${p}/`),
      literal(`http://239.255.255.250:${p}/`),
      literal(`http://192.0.0.1:${p}/`),
      literal(`http://192.0.0.170:${p}/`),
      literal(`http://192.0.2.1:${p}/`),
      literal(`http://198.51.100.7:${p}/`),
      literal(`http://203.0.113.1:${p}/`),
      literal(`http://192.31.196.1:${p}/`),
      literal(`http://192.175.48.1:${p}/`),
      literal(`http://192.52.193.1:${p}/`),
      literal(`http://192.88.99.1:${p}/`),
      literal(`http://10.0.0.1:${p}/`),
      literal(`http://172.16.0.1:${p}/`),
      literal(`http://172.31.255.254:${p}/`),
      literal(`http://192.168.1.1:${p}/`),
      // Local names: refused before any lookup.
      localName(`http://localhost:${p}/`),
      localName(`http://LOCALHOST:${p}/`),
      localName(`http://localhost.:${p}/`),
      localName(`http://foo.localhost:${p}/`),
      localName(`http://printer.local:${p}/`),
      localName(`http://db.internal:${p}/`),
      localName(`http://metadata.google.internal:${p}/computeMetadata/v1/`),
      localName(`http://intranet:${p}/`),
      localName(`http://intranet.:${p}/`),
      localName(`http://\u24db\u24de\u24d2\u24d0\u24db\u24d7\u24de\u24e2\u24e3:${p}/`),
      // Names whose answer is not (entirely) public.
      resolvesTo(`http://private.example:${p}/`, ['127.0.0.1']),
      resolvesTo(`http://ten.example:${p}/`, ['10.0.0.1']),
      resolvesTo(`http://metadata.example:${p}/`, ['169.254.169.254']),
      resolvesTo(`http://v6loop.example:${p}/`, ['::1']),
      resolvesTo(`http://mapped.example:${p}/`, ['::ffff:127.0.0.1']),
      resolvesTo(`http://zero.example:${p}/`, ['0.0.0.0']),
      resolvesTo(`http://mixed.example:${p}/`, ['93.184.215.14', '127.0.0.1']),
      resolvesTo(`http://mixed-first.example:${p}/`, ['127.0.0.1', '93.184.215.14']),
      resolvesTo(`http://mixed-v6.example:${p}/`, ['2606:4700::6810:84e5', '::1']),
      resolvesTo(`http://garbled.example:${p}/`, ['0177.0.0.1']),
      // Schemes and malformed URLs.
      refused('ftp://example.com/', 'unsupported_scheme'),
      refused('file:///etc/passwd', 'unsupported_scheme'),
      refused(`gopher://127.0.0.1:${p}/_`, 'unsupported_scheme'),
      refused(`dict://127.0.0.1:${p}/`, 'unsupported_scheme'),
      refused(`ws://127.0.0.1:${p}/`, 'unsupported_scheme'),
      refused('data:text/plain,hi', 'unsupported_scheme'),
      refused('javascript:alert(1)', 'unsupported_scheme'),
      refused('not a url', 'invalid_url'),
      refused('http://', 'invalid_url'),
      refused(`http://[::1:${p}/`, 'invalid_url'),
      refused(`http://1.2.3.4.5:${p}/`, 'invalid_url'),
      refused(`http://256.0.0.1:${p}/`, 'invalid_url'),
    ];
  }

  it('refuses every target in the table with the exact code, and the sentinel sees nothing', async () => {
    const cases = table();
    assert.ok(cases.length >= 60, `only ${cases.length} cases`);
    for (const c of cases) {
      // Any name without a scripted answer resolves to the sentinel: a name-policy hole would hit it.
      const host = c.answers ? new URL(c.url).hostname : '*';
      const resolver = scriptedResolver({ [host]: [c.answers ?? ['127.0.0.1']], '*': [['127.0.0.1']] });
      const err = await fails(guardedFetch(c.url, { ...FAST, allowPrivateNetwork: false, resolver }), c.code, c.url);
      assert.equal(resolver.calls.length, c.lookups, `${c.url}: lookups`);
      assert.deepEqual(err.redirects, []);
    }
    assert.equal(sentinel.connections, 0, 'the sentinel was reached');
  });

  it('names the host but never the address a name resolved to (no internal DNS oracle); the literal a URL carries is its own', async () => {
    const resolver = scriptedResolver({ 'www.example.com': [['93.184.215.14', '10.0.0.1']] });
    const err = await fails(guardedFetch('http://www.example.com/', { resolver }), 'blocked_address');
    assert.equal(err.message, 'www.example.com resolves to a non-public address');
    assert.equal(err.refusedAddress, '10.0.0.1', 'kept for operator logs only');
    const literal = await fails(guardedFetch('http://0x7f.1/'), 'blocked_address');
    assert.equal(literal.message, 'the address 127.0.0.1 is not public');
  });

  it('httpsOnly refuses http before any lookup', async () => {
    const resolver = scriptedResolver({ '*': [['127.0.0.1']] });
    await fails(guardedFetch(`http://hooks.example.com:${sentinel.port}/`, { httpsOnly: true, resolver }), 'unsupported_scheme');
    assert.equal(resolver.calls.length, 0);
  });

  it('with allowPrivateNetwork, everything but loopback and private stays blocked', async () => {
    const p = sentinel.port;
    const stillBlocked: Array<[string, string[]?]> = [
      [`http://169.254.169.254:${p}/latest/meta-data/`],
      [`http://169.254.0.1:${p}/`],
      [`http://[fe80::1]:${p}/`],
      [`http://[::ffff:169.254.169.254]:${p}/`],
      [`http://100.64.0.1:${p}/`],
      [`http://198.18.0.1:${p}/`],
      // 0.0.0.0 and :: are dialled as "this host" on Linux: they would reach the sentinel.
      [`http://0.0.0.0:${p}/`],
      [`http://0:${p}/`],
      [`http://[::]:${p}/`],
      [`http://[::ffff:0.0.0.0]:${p}/`],
      [`http://240.0.0.1:${p}/`],
      [`http://255.255.255.255:${p}/`],
      [`http://224.0.0.1:${p}/`],
      [`http://[ff02::1]:${p}/`],
      [`http://[2002:7f00:1::]:${p}/`],
      [`http://[2002:a9fe:a9fe::1]:${p}/`],
      [`http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]:${p}/`],
      [`http://[64:ff9b::7f00:1]:${p}/`],
      [`http://[64:ff9b:1::a00:1]:${p}/`],
      [`http://[2001:3::1]:${p}/`],
      [`http://192.52.193.1:${p}/`],
      [`http://192.31.196.1:${p}/`],
      [`http://192.175.48.1:${p}/`],
      [`http://192.0.2.1:${p}/`],
      [`http://[2001:db8::1]:${p}/`],
      [`http://[::127.0.0.1]:${p}/`],
      [`http://foo.localhost:${p}/`],
      [`http://metadata.example:${p}/`, ['169.254.169.254']],
      [`http://cgnat.example:${p}/`, ['100.64.0.1']],
      [`http://unspecified.example:${p}/`, ['0.0.0.0']],
      [`http://unspecified6.example:${p}/`, ['::']],
      [`http://mixed.example:${p}/`, ['127.0.0.1', '169.254.169.254']],
    ];
    for (const [url, answers] of stillBlocked) {
      const resolver = scriptedResolver({ [new URL(url).hostname]: [answers ?? ['127.0.0.1']] });
      await fails(guardedFetch(url, { ...FAST, allowPrivateNetwork: true, resolver }), 'blocked_address', url);
    }
    assert.equal(sentinel.connections, 0, 'the sentinel was reached');
  });

  it('the sentinel does count: a loopback fetch allowed by allowPrivateNetwork reaches it', async () => {
    const before = sentinel.connections;
    // The sentinel hangs up at once: the fetch fails, but only after connecting.
    await fails(guardedFetch(`http://127.0.0.1:${sentinel.port}/`, { ...FAST, allowPrivateNetwork: true }), 'network');
    assert.equal(sentinel.connections, before + 1);
    if (sentinel.v6) {
      await fails(guardedFetch(`http://[::1]:${sentinel.port}/`, { ...FAST, allowPrivateNetwork: true }), 'network');
      assert.equal(sentinel.connections, before + 2);
    }
  });
});

describe('allowPrivateNetwork opens loopback and private', { timeout: 20_000 }, () => {
  it('fetches a real local server through literals and local names', async () => {
    const resolver = scriptedResolver({
      localhost: [['127.0.0.1']],
      intranet: [['127.0.0.1']],
      'printer.local': [['127.0.0.1']],
      'db.internal': [['::ffff:127.0.0.1']],
    });
    const urls = [
      `http://127.0.0.1:${app}/ok`,
      `http://2130706433:${app}/ok`,
      `http://0x7f.1:${app}/ok`,
      `http://[::ffff:127.0.0.1]:${app}/ok`,
      `http://localhost:${app}/ok`,
      `http://intranet:${app}/ok`,
      `http://printer.local:${app}/ok`,
      `http://db.internal:${app}/ok`,
    ];
    if (appV6) urls.push(`http://[::1]:${app}/ok`);
    for (const url of urls) {
      const res = await guardedFetch(url, { allowPrivateNetwork: true, resolver });
      assert.equal(res.status, 200, url);
      assert.equal(res.body.toString(), 'ok', url);
    }
    assert.equal(resolver.calls.length, 4);
  });

  it('returns the documented result shape', async () => {
    const res = await guardedFetch(`http://127.0.0.1:${app}/ok`, { allowPrivateNetwork: true });
    assert.equal(res.url, `http://127.0.0.1:${app}/ok`);
    assert.equal(res.finalUrl, res.url);
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-custom-header'], 'Yes', 'header names are lower-case');
    assert.ok(Buffer.isBuffer(res.body));
    assert.equal(res.bytes, 2);
    assert.equal(res.truncated, false);
    assert.deepEqual(res.redirects, []);
    assert.equal(res.remoteAddress, '127.0.0.1');
    assert.ok(res.ttfbMs >= 0 && res.totalMs >= res.ttfbMs);
  });

  it('sends the sitehealth user agent unless told otherwise', async () => {
    const a = JSON.parse((await guardedFetch(`http://127.0.0.1:${app}/echo`, { allowPrivateNetwork: true })).body.toString());
    assert.equal(a.headers['user-agent'], DEFAULT_USER_AGENT);
    assert.equal(DEFAULT_USER_AGENT, 'sitehealth/1.0 (+https://sitehealth.dev/bot)');
    const b = JSON.parse(
      (await guardedFetch(`http://127.0.0.1:${app}/echo`, { allowPrivateNetwork: true, userAgent: 'custom/2' })).body.toString(),
    );
    assert.equal(b.headers['user-agent'], 'custom/2');
  });

  it('HEAD has no body; POST sends body and headers, and the Host header follows the URL', async () => {
    const head = await guardedFetch(`http://127.0.0.1:${app}/ok`, { allowPrivateNetwork: true, method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.bytes, 0);
    const resolver = scriptedResolver({ 'site.test': [['127.0.0.1']] });
    const post = await guardedFetch(`http://site.test:${app}/echo`, {
      allowPrivateNetwork: true,
      resolver,
      method: 'POST',
      body: '{"a":1}',
      headers: { 'Content-Type': 'application/json', 'X-Sig': 'v1,abc', Host: 'evil.example' },
    });
    const seen = JSON.parse(post.body.toString());
    assert.equal(seen.method, 'POST');
    assert.equal(seen.body, '{"a":1}');
    assert.equal(seen.headers['content-type'], 'application/json');
    assert.equal(seen.headers['x-sig'], 'v1,abc');
    assert.equal(seen.headers['content-length'], '7');
    assert.equal(seen.headers.host, `site.test:${app}`);
  });
});

describe('pinning', { timeout: 20_000 }, () => {
  // Two servers on one port: 127.0.0.1 (where the check said to go) and 127.0.0.2 (where a
  // second resolution would go). Linux routes all of 127/8 to lo.
  let port = 0;
  let a: { count: number };
  let b: { count: number };
  let aLog: Seen[];
  let bLog: Seen[];
  let ready = false;

  before(async () => {
    aLog = [];
    bLog = [];
    const sa = http.createServer(appHandler(aLog, stats));
    a = countConnections(sa);
    port = await listen(sa, '127.0.0.1');
    const sb = http.createServer(appHandler(bLog, stats));
    b = countConnections(sb);
    ready = await listen(sb, '127.0.0.2', port).then(
      () => true,
      () => false,
    );
  });

  it('connects to the address that was checked, resolving once per hop (DNS rebinding)', async (t) => {
    if (!ready) return t.skip('127.0.0.2 is not bindable here');
    // First answer 127.0.0.1 (checked, allowed), every later one 127.0.0.2. If anything
    // resolved again between check and connect, server B would see a connection.
    const resolver = scriptedResolver({ 'rebind.test': [['127.0.0.1'], ['127.0.0.2']] });
    const res = await guardedFetch(`http://rebind.test:${port}/ok`, { allowPrivateNetwork: true, resolver });
    assert.equal(res.status, 200);
    assert.equal(res.remoteAddress, '127.0.0.1');
    assert.deepEqual(resolver.calls, ['rebind.test']);
    assert.equal(aLog.length, 1);
    assert.equal(aLog[0].local, '127.0.0.1');
    assert.equal(b.count, 0, 'the rebound address was dialled');
  });

  it('a made-up name only works through the pinned lookup', async () => {
    // Node would fail to resolve pinned.invalid itself: success proves the seam carried the address.
    const resolver = scriptedResolver({ 'pinned.invalid': [['127.0.0.1']] });
    const res = await guardedFetch(`http://pinned.invalid:${port}/ok`, { allowPrivateNetwork: true, resolver });
    assert.equal(res.status, 200);
    assert.equal(res.remoteAddress, '127.0.0.1');
  });

  it('checks again at every hop: a rebinding answer on the redirect hop is blocked', async () => {
    const resolver = scriptedResolver({ 'hop.test': [['127.0.0.1'], ['169.254.169.254']] });
    const err = await fails(
      guardedFetch(`http://hop.test:${port}/to/%2Fok`, { allowPrivateNetwork: true, resolver }),
      'blocked_address',
    );
    assert.deepEqual(resolver.calls, ['hop.test', 'hop.test']);
    assert.deepEqual(err.redirects, [{ url: `http://hop.test:${port}/to/%2Fok`, status: 302 }]);
    assert.equal(err.message, 'hop.test resolves to a non-public address');
  });

  it('a pooled socket is reused only for the same checked address', async (t) => {
    if (!ready) return t.skip('127.0.0.2 is not bindable here');
    closeIdleConnections();
    const a0 = a.count;
    const b0 = b.count;
    const resolver = scriptedResolver({ 'pool.test': [['127.0.0.1'], ['127.0.0.2'], ['127.0.0.1']] });
    const get = () => guardedFetch(`http://pool.test:${port}/ok`, { allowPrivateNetwork: true, resolver });
    assert.equal((await get()).remoteAddress, '127.0.0.1');
    // Same host and port, new answer: a host-keyed pool would hand over the socket to 127.0.0.1.
    assert.equal((await get()).remoteAddress, '127.0.0.2');
    assert.equal((await get()).remoteAddress, '127.0.0.1');
    assert.equal(b.count - b0, 1);
    assert.equal(a.count - a0, 1, 'the third request reused the first socket');
    // A caller without allowPrivateNetwork gets no use of the warm socket.
    await fails(guardedFetch(`http://pool.test:${port}/ok`, { resolver }), 'blocked_address');
    assert.equal(a.count - a0, 1);
  });
});

describe('redirects', { timeout: 20_000 }, () => {
  const base = () => `http://127.0.0.1:${app}`;
  const open: GuardedFetchOptions = { allowPrivateNetwork: true };

  it('follows three redirects and records the chain', async () => {
    const res = await guardedFetch(`${base()}/r/3`, open);
    assert.equal(res.status, 200);
    assert.equal(res.body.toString(), 'ok');
    assert.equal(res.url, `${base()}/r/3`);
    assert.equal(res.finalUrl, `${base()}/ok`);
    assert.deepEqual(res.redirects, [
      { url: `${base()}/r/3`, status: 301 },
      { url: `${base()}/r/2`, status: 302 },
      { url: `${base()}/r/1`, status: 307 },
    ]);
  });

  it('an endless redirect stops after 10 with too_many_redirects and the chain', async () => {
    const hits = log.length;
    const err = await fails(guardedFetch(`${base()}/endless/0`, open), 'too_many_redirects');
    // Ten followed, the eleventh redirect answer is where it stops; it is in the chain.
    assert.equal(err.redirects.length, 11);
    err.redirects.forEach((hop, i) => assert.deepEqual(hop, { url: `${base()}/endless/${i}`, status: 302 }));
    assert.equal(log.length - hits, 11);
    const three = await fails(guardedFetch(`${base()}/endless/0`, { ...open, maxRedirects: 3 }), 'too_many_redirects');
    assert.equal(three.redirects.length, 4);
  });

  it('a loop is visible in the chain', async () => {
    const err = await fails(guardedFetch(`${base()}/loop/a`, { ...open, maxRedirects: 5 }), 'too_many_redirects');
    const urls = err.redirects.map((r) => r.url);
    assert.deepEqual(urls.slice(0, 3), [`${base()}/loop/a`, `${base()}/loop/b`, `${base()}/loop/a`]);
    assert.equal(new Set(urls).size, 2);
  });

  it('a redirect to a blocked address is refused at that hop, even with allowPrivateNetwork', async () => {
    const targets = [
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:169.254.169.254]/',
      'http://[fe80::1]/',
      'http://100.64.0.1/',
      `http://0.0.0.0:${sentinel.port}/`,
      `http://foo.localhost:${sentinel.port}/`,
    ];
    const s0 = sentinel.connections;
    for (const target of targets) {
      const from = `${base()}/to/${encodeURIComponent(target)}`;
      const err = await fails(guardedFetch(from, open), 'blocked_address', target);
      assert.deepEqual(err.redirects, [{ url: from, status: 302 }]);
    }
    assert.equal(sentinel.connections, s0, 'the sentinel was reached');
  });

  it('a redirect to another scheme or a broken URL fails with the chain so far', async () => {
    const ftp = `${base()}/to/${encodeURIComponent('ftp://example.com/x')}`;
    const err = await fails(guardedFetch(ftp, open), 'unsupported_scheme');
    assert.deepEqual(err.redirects, [{ url: ftp, status: 302 }]);
    await fails(guardedFetch(`${base()}/to/${encodeURIComponent('http://[::1')}`, open), 'invalid_url');
  });

  it('followRedirects: false and maxRedirects: 0 return the 3xx as it is', async () => {
    for (const opts of [{ followRedirects: false }, { maxRedirects: 0 }]) {
      const res = await guardedFetch(`${base()}/moved`, { ...open, ...opts });
      assert.equal(res.status, 301);
      assert.equal(res.headers.location, '/ok');
      assert.equal(res.body.toString(), 'moved');
      assert.equal(res.finalUrl, `${base()}/moved`);
      assert.deepEqual(res.redirects, []);
    }
    const bare = await guardedFetch(`${base()}/no-location`, open);
    assert.equal(bare.status, 302);
  });

  it('303 and 301 turn POST into GET without the body; 307 and 308 keep both', async () => {
    const post = { ...open, method: 'POST' as const, body: 'payload', headers: { 'content-type': 'text/plain' } };
    for (const [status, method, body] of [
      [303, 'GET', ''],
      [301, 'GET', ''],
      [302, 'GET', ''],
      [307, 'POST', 'payload'],
      [308, 'POST', 'payload'],
    ] as const) {
      const seen = JSON.parse((await guardedFetch(`${base()}/status/${status}`, post)).body.toString());
      assert.equal(seen.method, method, `${status}`);
      assert.equal(seen.body, body, `${status}`);
      assert.equal(seen.headers['content-type'], body ? 'text/plain' : undefined, `${status}`);
    }
  });

  it('credentials stay on their origin', async () => {
    const resolver = scriptedResolver({ 'first.test': [['127.0.0.1']], 'other.test': [['127.0.0.1']] });
    const opts = { ...open, resolver, headers: { authorization: 'Bearer s3cret', cookie: 'a=b' } };
    const same = JSON.parse((await guardedFetch(`http://first.test:${app}/to/%2Fecho`, opts)).body.toString());
    assert.equal(same.headers.authorization, 'Bearer s3cret');
    const other = `http://other.test:${app}/echo`;
    const cross = JSON.parse(
      (await guardedFetch(`http://first.test:${app}/to/${encodeURIComponent(other)}`, opts)).body.toString(),
    );
    assert.equal(cross.headers.authorization, undefined);
    assert.equal(cross.headers.cookie, undefined);
  });
});

describe('limits', { timeout: 20_000 }, () => {
  const open: GuardedFetchOptions = { allowPrivateNetwork: true };
  const base = () => `http://127.0.0.1:${app}`;
  const MiB = 1024 * 1024;

  it('stops a 50 MiB body at the cap with body_too_large, without reading it all', async () => {
    const err = await fails(guardedFetch(`${base()}/big`, { ...open, maxBodyBytes: MiB }), 'body_too_large');
    assert.match(err.message, /larger than 1048576 bytes/);
    await waitFor(() => stats.closed);
    assert.ok(stats.sent < 16 * MiB, `the server pushed ${stats.sent} bytes`);
  });

  it('fails at once when the declared length is over the cap', async () => {
    await fails(guardedFetch(`${base()}/big-declared`, { ...open, maxBodyBytes: MiB }), 'body_too_large');
    await waitFor(() => stats.closed);
    assert.ok(stats.sent < 16 * MiB, `the server pushed ${stats.sent} bytes`);
  });

  it('with truncate, keeps exactly the first bytes and flags it (default cap 5 MiB)', async () => {
    const small = await guardedFetch(`${base()}/big`, { ...open, maxBodyBytes: MiB, truncate: true });
    assert.equal(small.truncated, true);
    assert.equal(small.bytes, MiB);
    assert.equal(small.body.length, MiB);
    assert.equal(small.body[MiB - 1], 97);
    await waitFor(() => stats.closed);
    const declared = await guardedFetch(`${base()}/big-declared`, { ...open, truncate: true });
    assert.equal(declared.truncated, true);
    assert.equal(declared.bytes, 5 * MiB);
    await waitFor(() => stats.closed);
    assert.ok(stats.sent < 24 * MiB, `the server pushed ${stats.sent} bytes`);
  });

  it('headers then silence: the total timeout ends it', async () => {
    const t0 = performance.now();
    const err = await fails(guardedFetch(`${base()}/stall-headers`, { ...open, timeoutMs: 300 }), 'timeout');
    assert.ok(performance.now() - t0 < 1500);
    assert.match(err.message, /within 300 ms/);
  });

  it('a body that trickles forever hits the total timeout', async () => {
    const t0 = performance.now();
    await fails(guardedFetch(`${base()}/trickle`, { ...open, timeoutMs: 300 }), 'timeout');
    assert.ok(performance.now() - t0 < 1500);
  });

  it('a 101 Switching Protocols answer fails at once as a protocol error, whether or not the request asked to upgrade', async () => {
    // A raw peer: it answers 101 and keeps the socket open, as a WebSocket server would.
    const switching = net.createServer((socket) => {
      socket.once('data', () => socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'));
      socket.on('error', () => {});
    });
    const port = await listen(switching, '127.0.0.1');
    for (const options of [
      { ...open, timeoutMs: 5_000 },
      { ...open, timeoutMs: 5_000, method: 'POST' as const, body: '{}', headers: { upgrade: 'websocket', connection: 'Upgrade' } },
    ]) {
      const t0 = performance.now();
      const err = await fails(guardedFetch(`http://127.0.0.1:${port}/`, options), 'protocol');
      assert.ok(performance.now() - t0 < 2_000, `failed after ${Math.round(performance.now() - t0)} ms`);
      assert.match(err.message, /101 Switching Protocols/);
    }
  });

  it('a socket that accepts and never answers hits the total timeout', async () => {
    const silent = net.createServer(() => {});
    const port = await listen(silent, '127.0.0.1');
    const t0 = performance.now();
    await fails(guardedFetch(`http://127.0.0.1:${port}/`, { ...open, timeoutMs: 300 }), 'timeout');
    assert.ok(performance.now() - t0 < 1500);
  });

  it('a resolver that never answers hits the total timeout', async () => {
    const never: Resolver = () => new Promise(() => {});
    await fails(guardedFetch('http://slow-dns.example/', { resolver: never, timeoutMs: 200 }), 'timeout');
  });

  it('resolver failures are dns errors', async () => {
    const resolver = scriptedResolver({});
    const err = await fails(guardedFetch('http://nowhere.example/', { resolver }), 'dns');
    assert.match(err.message, /could not resolve nowhere\.example \(ENOTFOUND\)/);
    await fails(guardedFetch('http://empty.example/', { resolver: async () => [] }), 'dns');
  });

  it('a server that never accepts hits the connect timeout', async () => {
    // A listener whose thread is frozen (Atomics.wait) never accepts: once its small backlog
    // is full the kernel drops further SYNs and connect() hangs, like a filtered port.
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const server = require('node:net').createServer();
       server.listen({ host: '127.0.0.1', port: 0, backlog: 1 }, () => {
         parentPort.postMessage(server.address().port);
         Atomics.wait(new Int32Array(workerData), 0, 0, 10000);
         server.close();
       });`,
      { eval: true, workerData: flag.buffer },
    );
    const port = await new Promise<number>((resolve) => worker.once('message', resolve));
    const fillers = Array.from({ length: 4 }, () => net.connect(port, '127.0.0.1').on('error', () => {}));
    try {
      await sleep(150);
      const t0 = performance.now();
      const err = await fails(
        guardedFetch(`http://127.0.0.1:${port}/`, { ...open, connectTimeoutMs: 200, timeoutMs: 5000 }),
        'connect_timeout',
      );
      assert.ok(performance.now() - t0 < 1500);
      assert.match(err.message, /could not connect to 127\.0\.0\.1 within 200 ms/);
    } finally {
      for (const f of fillers) f.destroy();
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      await new Promise((resolve) => worker.once('exit', resolve));
    }
  });

  it('a connection closed mid-body is a network error', async () => {
    const err = await fails(guardedFetch(`${base()}/cut`, open), 'network');
    assert.match(err.message, /closed before the response was complete/);
  });

  it('an AbortSignal aborts a request in flight, and an aborted one never connects', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const t0 = performance.now();
    await fails(guardedFetch(`${base()}/stall-headers`, { ...open, signal: controller.signal }), 'aborted');
    assert.ok(performance.now() - t0 < 1000);

    closeIdleConnections();
    const c0 = appConnections.count;
    const hits = log.length;
    const resolver = scriptedResolver({ '*': [['127.0.0.1']] });
    await fails(guardedFetch(`http://site.test:${app}/ok`, { ...open, resolver, signal: AbortSignal.abort() }), 'aborted');
    assert.equal(resolver.calls.length, 0);
    assert.equal(appConnections.count, c0);
    assert.equal(log.length, hits);
  });

  it('keeps one socket for a stream of webhook-like POSTs, and parallel ones do not mix', async () => {
    closeIdleConnections();
    await sleep(20);
    const c0 = appConnections.count;
    for (let i = 0; i < 200; i++) {
      const res = await guardedFetch(`${base()}/echo`, { ...open, method: 'POST', body: `{"n":${i}}`, followRedirects: false });
      assert.equal(JSON.parse(res.body.toString()).body, `{"n":${i}}`);
    }
    assert.equal(appConnections.count - c0, 1);
    const parallel = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        guardedFetch(`${base()}/echo`, { ...open, method: 'POST', body: `p${i}`, followRedirects: false }),
      ),
    );
    parallel.forEach((res, i) => assert.equal(JSON.parse(res.body.toString()).body, `p${i}`));
  });
});

describe('https', { timeout: 20_000 }, () => {
  let port = 0;
  let silentPort = 0;
  let ca = '';
  const seen: Seen[] = [];

  before(async () => {
    const pems = await generate([{ name: 'commonName', value: 'hooks.test' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'hooks.test' }] }],
    });
    ca = pems.cert;
    port = await listen(https.createServer({ key: pems.private, cert: pems.cert }, appHandler(seen, stats)), '127.0.0.1');
    silentPort = await listen(net.createServer(() => {}), '127.0.0.1');
  });

  const resolver = () => scriptedResolver({ 'hooks.test': [['127.0.0.1']], 'evil.test': [['127.0.0.1']] });

  it('delivers a webhook: POST JSON over TLS to the pinned address, SNI and certificate by name', async () => {
    const res = await guardedFetch(`https://hooks.test:${port}/echo`, {
      allowPrivateNetwork: true,
      httpsOnly: true,
      followRedirects: false,
      resolver: resolver(),
      ca,
      method: 'POST',
      body: JSON.stringify({ type: 'deploy.recorded' }),
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.remoteAddress, '127.0.0.1');
    const echo = JSON.parse(res.body.toString());
    assert.equal(echo.servername, 'hooks.test');
    assert.equal(echo.headers.host, `hooks.test:${port}`);
    assert.equal(echo.headers['webhook-id'], 'msg_1');
    assert.equal(echo.body, '{"type":"deploy.recorded"}');
  });

  it('does not trust a certificate outside the store and the ca option', async () => {
    const err = await fails(
      guardedFetch(`https://hooks.test:${port}/ok`, { allowPrivateNetwork: true, resolver: resolver() }),
      'network',
    );
    assert.match(err.message, /TLS connection to hooks\.test failed: .*self[- ]signed/);
  });

  it('validates the certificate against the name, not the pinned address', async () => {
    const evil = await fails(
      guardedFetch(`https://evil.test:${port}/ok`, { allowPrivateNetwork: true, resolver: resolver(), ca }),
      'network',
    );
    assert.match(evil.message, /altnames/);
    await fails(guardedFetch(`https://127.0.0.1:${port}/ok`, { allowPrivateNetwork: true, ca }), 'network');
  });

  it('httpsOnly refuses http, also on a redirect', async () => {
    await fails(guardedFetch(`http://hooks.test:${port}/ok`, { httpsOnly: true, resolver: resolver() }), 'unsupported_scheme');
    const down = `https://hooks.test:${port}/to/${encodeURIComponent(`http://127.0.0.1:${app}/ok`)}`;
    const err = await fails(
      guardedFetch(down, { allowPrivateNetwork: true, httpsOnly: true, resolver: resolver(), ca }),
      'unsupported_scheme',
    );
    assert.deepEqual(err.redirects, [{ url: down, status: 302 }]);
  });

  it('a server that accepts and never speaks TLS hits the connect timeout', async () => {
    const t0 = performance.now();
    await fails(
      guardedFetch(`https://hooks.test:${silentPort}/`, {
        allowPrivateNetwork: true,
        resolver: resolver(),
        ca,
        connectTimeoutMs: 200,
        timeoutMs: 5000,
      }),
      'connect_timeout',
    );
    assert.ok(performance.now() - t0 < 1500);
  });
});

async function waitFor(condition: () => boolean, ms = 2000): Promise<void> {
  const until = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > until) assert.fail('condition not met in time');
    await sleep(10);
  }
}
