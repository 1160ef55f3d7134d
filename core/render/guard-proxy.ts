import http from 'node:http';
import net, { isIP } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { FetchError, resolveHost, systemResolver, type AddressPolicyOptions, type Resolver } from '../net/index.ts';

/**
 * The browser's way out: a forward proxy on loopback that every request of a render goes
 * through (Chromium runs with `--proxy-server` pointing here and no bypass, loopback included).
 * Each request's host is judged by the same address guard as every other outbound call
 * (core/net: name policy, then every resolved address) and the connection goes to the address
 * that was checked, so a page cannot reach a private address by a link, a script, a redirect or
 * a DNS answer that changes between the check and the connect. Refused requests are counted.
 */
export interface GuardProxy {
  /** `127.0.0.1:<port>`, for `--proxy-server`. */
  readonly address: string;
  /** Hosts refused so far, in order (for the render's record and tests). */
  readonly refused: string[];
  close(): Promise<void>;
}

function splitHostPort(authority: string, defaultPort: number): { host: string; port: number } | null {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(authority) ?? /^([^:]+):(\d+)$/.exec(authority);
  if (m) return { host: m[1], port: Number(m[2]) };
  if (/^[^:/\s]+$/.test(authority)) return { host: authority, port: defaultPort };
  return null;
}

const isBlocked = (err: unknown) => err instanceof FetchError && err.code === 'blocked_address';

async function checked(host: string, policy: AddressPolicyOptions, resolver: Resolver): Promise<string> {
  const literal = isIP(host) as 0 | 4 | 6;
  const [first] = await resolveHost(host, literal, policy, resolver);
  return first.address;
}

export async function startGuardProxy(policy: AddressPolicyOptions, resolver: Resolver = systemResolver): Promise<GuardProxy> {
  const refused: string[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  // Plain http: the request line carries the absolute URL.
  server.on('request', (req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (url.protocol !== 'http:') {
      res.writeHead(400).end();
      return;
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    checked(host, policy, resolver).then(
      (address) => {
        const headers = { ...req.headers };
        delete headers['proxy-connection'];
        delete headers['proxy-authorization'];
        const upstream = http.request(
          { host: address, port: Number(url.port || 80), method: req.method, path: url.pathname + url.search, headers, setHost: false, agent: false },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', () => res.destroy());
        res.on('close', () => upstream.destroy());
        req.pipe(upstream);
      },
      (err: unknown) => {
        if (!isBlocked(err)) return void res.writeHead(502).end();
        refused.push(host);
        res.writeHead(403, { 'content-type': 'text/plain' }).end('blocked: not a public address');
      },
    );
  });

  // https (and anything else tunnelled): CONNECT host:port.
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const target = splitHostPort(req.url ?? '', 443);
    if (!target) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    client.on('error', () => client.destroy());
    checked(target.host, policy, resolver).then(
      (address) => {
        const upstream = net.connect({ host: address, port: target.port });
        upstream.on('error', () => client.destroy());
        client.on('close', () => upstream.destroy());
        upstream.on('connect', () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
      },
      (err: unknown) => {
        if (!isBlocked(err)) return void client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
        refused.push(target.host);
        client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      },
    );
  });

  // WebSocket upgrades over plain http are not needed to judge a page: refused.
  server.on('upgrade', (_req, socket: Socket) => socket.destroy());

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
