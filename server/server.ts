import crypto from 'node:crypto';
import http from 'node:http';
import type { Logger } from 'pino';
import type { Db } from '../core/db/index.ts';
import type { Config } from '../core/platform/index.ts';
import { createApp } from './app.ts';
import { handlers } from './handlers/index.ts';
import type { RequestLogSink } from './request-log.ts';
import { problem } from './problem.ts';
import { RequestLogWriter } from '../core/request-logs/index.ts';

export interface RunningServer {
  http: http.Server;
  url: string;
  /** Where finished requests go: the batching writer unless the caller passed another sink. */
  requestLog: RequestLogSink;
  /** Stops accepting, lets in-flight requests finish, flushes the request log. */
  close(): Promise<void>;
}

/**
 * Builds the app with the real handlers and listens (port 0 picks a free one, for tests).
 * Requests are logged by a RequestLogWriter (batched, off the request path) unless
 * `requestLog` replaces it.
 */
export async function startServer(opts: {
  db: Db;
  config: Config;
  log: Logger;
  requestLog?: RequestLogSink;
  port?: number;
}): Promise<RunningServer> {
  const requestLog = opts.requestLog ?? new RequestLogWriter(opts.db, { log: opts.log });
  const app = createApp({ db: opts.db, config: opts.config, log: opts.log, handlers, requestLog });
  const limits = opts.config.http;
  // Slow or idle clients must not hold connections: the headers must arrive within
  // headersTimeoutMs and the whole request (body included) within requestTimeoutMs of the
  // connection's first byte; an idle keep-alive connection closes after keepAliveTimeoutMs; and
  // there are at most maxConnections sockets at once. Node checks the first two every
  // `connectionsCheckingInterval`, so that is short enough to honour them within a second.
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs / 2),
    },
    app.callback(),
  );
  server.maxConnections = limits.maxConnections;
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => onClientError(err, socket, opts.log));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? opts.config.port, opts.config.host, () => resolve());
  });
  const addr = server.address() as { port: number };
  return {
    http: server,
    requestLog,
    url: `http://${opts.config.host}:${addr.port}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await requestLog.close();
    },
  };
}

/**
 * What Node cannot parse or what came too slowly: a problem document when the socket can still
 * take one (408 for a timeout, 400 otherwise), then the connection closes. Logged at info: it is
 * the client's doing.
 */
function onClientError(err: NodeJS.ErrnoException, socket: import('node:stream').Duplex, log: Logger): void {
  // The client hung up (mid-headers or mid-body): nobody to answer. A request already handed to
  // the app sees the abort too and logs it there.
  if (err.code === 'HPE_INVALID_EOF_STATE' || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const timeout = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  log.info({ code: err.code }, timeout ? 'request timed out' : 'malformed request');
  const doc = timeout
    ? problem(408, 'request_timeout', 'Request timeout', 'The request did not arrive in time: headers within the headers timeout, the whole request within the request timeout.')
    : tooLarge
      ? problem(431, 'headers_too_large', 'Request header fields too large', 'The request line and headers are larger than 16 KB.')
      : problem(400, 'bad_request', 'Bad request', 'The request could not be parsed as HTTP.');
  const body = JSON.stringify(doc);
  const requestId = crypto.randomUUID();
  // A request already handed to the app (its body still dribbling in): answer through its response.
  const pending = (socket as unknown as { _httpMessage?: http.ServerResponse })._httpMessage;
  if (pending) {
    if (pending.headersSent || !socket.writable) {
      socket.destroy();
      return;
    }
    pending.writeHead(doc.status, { 'content-type': 'application/problem+json', 'content-length': Buffer.byteLength(body), connection: 'close', 'x-request-id': requestId });
    pending.end(body, () => socket.destroy());
    return;
  }
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 ${doc.status} ${http.STATUS_CODES[doc.status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}
