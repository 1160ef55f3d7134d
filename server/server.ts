import http from 'node:http';
import type { Logger } from 'pino';
import type { Db } from '../core/db/index.ts';
import type { Config } from '../core/platform/index.ts';
import { createApp } from './app.ts';
import { handlers } from './handlers/index.ts';
import type { RequestLogSink } from './request-log.ts';
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
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 5000;
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
