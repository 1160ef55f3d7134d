// A scripted local HTTP server for SDK and CLI tests: each request takes the next answer of
// `script` (the last one repeats), or the answer a function gives; every request is recorded.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Never answer (for timeouts). */
  hang?: boolean;
}

export interface ScriptedServer {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

export async function scriptedServer(script: Answer[] | ((req: Seen, n: number) => Answer)): Promise<ScriptedServer> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const s: Seen = { method: req.method!, url: req.url!, headers: req.headers, body };
      seen.push(s);
      const a = typeof script === 'function' ? script(s, seen.length - 1) : script[Math.min(seen.length - 1, script.length - 1)];
      if (a.hang) return;
      const isJson = a.body !== undefined && typeof a.body !== 'string';
      const type = a.status >= 400 && isJson ? 'application/problem+json' : isJson ? 'application/json' : 'text/html';
      res.writeHead(a.status, { 'content-type': type, 'x-request-id': `req-${seen.length}`, ...a.headers });
      res.end(a.body === undefined ? undefined : isJson ? JSON.stringify(a.body) : String(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** An RFC 9457 problem document as the API writes it. */
export const problem = (status: number, code: string, extra: Record<string, unknown> = {}) => ({
  type: `/problems/${code}`, title: code, status, detail: `${code} detail`, code, ...extra,
});
