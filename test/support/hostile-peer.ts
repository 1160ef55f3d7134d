// A peer that misbehaves at the HTTP layer in one fixed way, over plain TCP (a website) or TLS
// (a webhook receiver): it reads each request head and answers with raw bytes no well-behaved
// server library would send. Every socket is held open until close().
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

export type HostileMode =
  /** `101 Switching Protocols` to any request, then silence on the switched socket. */
  | 'switch'
  /** A 200 head promising 100 KB, a few bytes of it, then silence. */
  | 'stall'
  /** A chunked 200 whose body comes one byte every 100 ms, for ever. */
  | 'trickle';

export interface HostilePeer {
  /** `http://127.0.0.1:<port>` or `https://127.0.0.1:<port>`. */
  origin: string;
  /** Requests whose head arrived. */
  requests: number;
  close(): Promise<void>;
}

export interface PeerCertificate {
  key: string;
  cert: string;
  /** PEM file for NODE_EXTRA_CA_CERTS. */
  certFile: string;
}

/** A self-signed certificate for 127.0.0.1, written to a file a process can trust. */
export async function peerCertificate(): Promise<PeerCertificate> {
  const pems = await generate([{ name: 'commonName', value: `sitehealth hostile peer ${process.pid}` }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  const certFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-hostile-')), 'peer.pem');
  fs.writeFileSync(certFile, pems.cert);
  return { key: pems.private, cert: pems.cert, certFile };
}

export async function startHostilePeer(mode: HostileMode, certificate?: PeerCertificate): Promise<HostilePeer> {
  const sockets = new Set<net.Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const peer = { requests: 0 };
  const onSocket = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      socket.resume(); // whatever body follows is read and ignored
      peer.requests++;
      if (mode === 'switch') {
        socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
      } else if (mode === 'stall') {
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n<html><head>');
      } else {
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n');
        const timer = setInterval(() => socket.write('1\r\n.\r\n'), 100);
        timers.add(timer);
        socket.on('close', () => {
          clearInterval(timer);
          timers.delete(timer);
        });
      }
    };
    socket.on('data', onData);
  };
  const server = certificate
    ? tls.createServer({ key: certificate.key, cert: certificate.cert }, onSocket)
    : net.createServer(onSocket);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `${certificate ? 'https' : 'http'}://127.0.0.1:${port}`,
    get requests() {
      return peer.requests;
    },
    async close() {
      for (const t of timers) clearInterval(t);
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
