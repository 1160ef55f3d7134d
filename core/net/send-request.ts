import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import type { SecureContextOptions } from 'node:tls';
import { httpAgent, httpsAgent } from './agents.ts';
import type { PinnedRequestOptions } from './agents.ts';
import { FetchError } from './fetch-error.ts';
import type { FetchLifecycle } from './fetch-lifecycle.ts';
import type { ResolvedAddress } from './resolve.ts';
import type { Target } from './target-url.ts';

export interface Hop {
  target: Target;
  /** Checked addresses; the connection may use these and nothing else. */
  addresses: ResolvedAddress[];
  method: string;
  headers: OutgoingHttpHeaders;
  body: Buffer | undefined;
  connectTimeoutMs: number;
  ca: SecureContextOptions['ca'];
}

export interface Exchange {
  res: IncomingMessage;
  remoteAddress: string;
  /** https: when the server's certificate stops being valid (epoch ms); null for http or when unknown. */
  certificateValidTo: number | null;
}

/** The end of the peer certificate's validity on a TLS socket, or null. */
function certificateValidTo(socket: unknown): number | null {
  const tls = socket as { getPeerCertificate?: () => { valid_to?: string } | null } | null;
  const validTo = tls?.getPeerCertificate?.()?.valid_to;
  const t = validTo ? Date.parse(validTo) : NaN;
  return Number.isFinite(t) ? t : null;
}

/**
 * The pinning seam. Node's connect calls `lookup` instead of DNS; this one answers with the
 * addresses that were just checked, so no second resolution (DNS rebinding) can slip in
 * between check and connect. With autoSelectFamily Node asks for all of them and races the
 * families; every one was checked, so whichever wins is allowed.
 */
function pinnedLookup(host: string, addresses: ResolvedAddress[]): LookupFunction {
  return (name, options, callback) => {
    if (name !== host) {
      const err: NodeJS.ErrnoException = new Error(`lookup of ${name} outside the pinned host ${host}`);
      err.code = 'ENOTFOUND';
      process.nextTick(callback, err, '', 0);
    } else if (options.all) {
      process.nextTick(callback, null, addresses);
    } else {
      process.nextTick(callback, null, addresses[0].address, addresses[0].family);
    }
  };
}

/** A pooled socket the server closed while idle: the request never reached it, so resend once. */
function isStaleSocket(err: NodeJS.ErrnoException): boolean {
  return err.code === 'ECONNRESET' || err.code === 'EPIPE';
}

export function toNetworkError(err: unknown, host: string): FetchError {
  if (err instanceof FetchError) return err;
  const e = err as NodeJS.ErrnoException;
  const code = typeof e?.code === 'string' ? e.code : '';
  const tls = /CERT|TLS|SSL|EPROTO/.test(code);
  return new FetchError('network', `${tls ? 'TLS connection' : 'connection'} to ${host} failed: ${e?.message ?? String(err)}`, {
    cause: err,
  });
}

/** One request over a connection pinned to the hop's checked addresses; resolves at the response head. */
export function sendRequest(hop: Hop, life: FetchLifecycle): Promise<Exchange> {
  return new Promise((resolve, reject) => start(hop, life, resolve, reject, false));
}

function start(
  hop: Hop,
  life: FetchLifecycle,
  resolve: (exchange: Exchange) => void,
  reject: (err: FetchError) => void,
  retried: boolean,
): void {
  const { target } = hop;
  const options: PinnedRequestOptions = {
    agent: target.https ? httpsAgent : httpAgent,
    host: target.host,
    port: target.port,
    path: target.url.pathname + target.url.search,
    method: hop.method,
    headers: hop.headers,
    lookup: pinnedLookup(target.host, hop.addresses),
    pin: hop.addresses.length === 1 ? hop.addresses[0].address : hop.addresses.map((a) => a.address).join(','),
  };
  if (target.https) {
    // Certificate and SNI are checked against the name while the socket goes to the pinned address.
    if (target.literal === 0) options.servername = target.host;
    if (hop.ca !== undefined) options.ca = hop.ca;
  }

  let req: http.ClientRequest;
  try {
    req = target.https ? https.request(options) : http.request(options);
  } catch (err) {
    // Bad header names or values from the caller are thrown synchronously by Node.
    reject(new FetchError('network', `could not send the request to ${target.host}: ${(err as Error).message}`, { cause: err }));
    return;
  }

  let connectTimer: NodeJS.Timeout | undefined;
  let responded = false;
  /** A stale pooled socket: the request went out again on a new one, which settles instead. */
  let resent = false;
  const clearConnectTimer = (): void => {
    if (connectTimer !== undefined) clearTimeout(connectTimer);
    connectTimer = undefined;
  };

  // Settle here as well as destroy: a request whose socket is already gone (a refused upgrade)
  // emits nothing more, so the deadline must not rely on an 'error' event to end the wait.
  life.onStop((err) => {
    clearConnectTimer();
    req.destroy(err);
    reject(err);
  });
  req.on('socket', (socket) => {
    if (!socket.connecting) return; // a pooled socket, connected long ago
    // "Connected" means usable: for https the handshake counts, a server that accepts and
    // never speaks TLS is as unreachable as one that never accepts.
    connectTimer = setTimeout(() => {
      connectTimer = undefined;
      req.destroy(new FetchError('connect_timeout', `could not connect to ${target.host} within ${hop.connectTimeoutMs} ms`));
    }, hop.connectTimeoutMs);
    socket.once(target.https ? 'secureConnect' : 'connect', clearConnectTimer);
  });
  req.on('response', (res) => {
    responded = true;
    clearConnectTimer();
    life.clear();
    resolve({ res, remoteAddress: res.socket?.remoteAddress ?? '', certificateValidTo: target.https ? certificateValidTo(res.socket) : null });
  });
  // A 101 (or any upgrade) is not an HTTP response: Node hands the socket to an 'upgrade'
  // listener, and without one drops it while emitting neither 'response' nor 'error'. Taking
  // the socket here turns it into a failed request at once.
  req.on('upgrade', (res: IncomingMessage, socket: import('node:stream').Duplex) => {
    clearConnectTimer();
    socket.destroy();
    life.clear();
    reject(new FetchError('protocol', `${target.host} answered ${res.statusCode ?? 101} Switching Protocols: a protocol upgrade is not an HTTP response`));
  });
  // A request that closes without a response head and without an error (nothing else reports it).
  req.on('close', () => {
    clearConnectTimer();
    if (!responded && !resent) reject(life.reason ?? new FetchError('network', `the connection to ${target.host} closed before a response`));
  });
  // Stays attached for the life of the request: Node may report a late socket error here.
  req.on('error', (err: NodeJS.ErrnoException) => {
    clearConnectTimer();
    if (responded) return; // the body reader reports what happens after the head
    if (life.reason) return reject(life.reason);
    if (!retried && req.reusedSocket && isStaleSocket(err)) {
      resent = true;
      return start(hop, life, resolve, reject, true);
    }
    reject(toNetworkError(err, target.host));
  });
  req.end(hop.body);
}
