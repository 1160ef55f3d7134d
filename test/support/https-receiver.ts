// A real HTTPS webhook receiver on 127.0.0.1 with a self-signed certificate. Processes that must
// trust it (server and worker) get NODE_EXTRA_CA_CERTS=<certFile>, the standard way
// (docs/api.md#environment-variables). It records every request exactly as received and answers
// as the test scripts it.
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

export interface Received {
  at: number;
  path: string;
  headers: Record<string, string>;
  /** The body bytes as they arrived, as a UTF-8 string. */
  body: string;
  /** When the answer went out, and its status (absent until then). */
  answeredAt?: number;
  status?: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait before answering. */
  delayMs?: number;
}

export interface Receiver {
  /** https://127.0.0.1:<port> */
  origin: string;
  url(path?: string): string;
  /** PEM file to pass as NODE_EXTRA_CA_CERTS. */
  certFile: string;
  cert: string;
  received: Received[];
  /** Answers for requests to a path, used in order; the last one repeats. Default 204. */
  answer(path: string, ...answers: Answer[]): void;
  /** Answers for requests to a path, decided per request (wins over `answer`). */
  answerWith(path: string, decide: (r: Received) => Answer): void;
  /** Resolves when `n` requests to `path` have arrived. */
  waitFor(path: string, n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] },
    ],
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-receiver-'));
  const certFile = path.join(dir, 'receiver.pem');
  fs.writeFileSync(certFile, pems.cert);
  const received: Received[] = [];
  const scripts = new Map<string, Answer[]>();
  const deciders = new Map<string, (r: Received) => Answer>();
  const waiters: Array<() => void> = [];
  const server = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const p = req.url ?? '/';
      const r: Received = { at: Date.now(), path: p, headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')])), body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      for (const w of waiters.splice(0)) w();
      const script = scripts.get(p) ?? [];
      const decide = deciders.get(p);
      const a = decide ? decide(r) : ((script.length > 1 ? script.shift() : script[0]) ?? { status: 204 });
      const reply = () => {
        r.answeredAt = Date.now();
        r.status = a.status;
        res.writeHead(a.status, { 'content-type': 'text/plain', ...a.headers });
        res.end(a.body ?? '');
      };
      if (a.delayMs) setTimeout(reply, a.delayMs);
      else reply();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (p = '/hook') => `${origin}${p}`,
    certFile,
    cert: pems.cert,
    received,
    answer(p, ...answers) {
      scripts.set(p, answers);
    },
    answerWith(p, decide) {
      deciders.set(p, decide);
    },
    async waitFor(p, n, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const hits = received.filter((r) => r.path === p);
        if (hits.length >= n) return hits;
        if (Date.now() > until) throw new Error(`receiver: ${hits.length} of ${n} requests to ${p} within ${timeoutMs} ms`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 100);
        });
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
