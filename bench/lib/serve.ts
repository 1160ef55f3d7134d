// A server under test, run as a child process of a benchmark (bench/lib/harness.ts starts it
// with `node --import tsx`). BENCH_MODE picks what it serves:
//   app             the real server: startServer() with the real handlers, as server/main.ts runs it
//   bare-workspace  bare Koa route returning BENCH_BODY (JSON) for GET /v1/workspaces/:id
//   bare-workspace-db  the same route doing the real one's reads (key, membership, workspace) through Knex
// It reports its port over IPC, answers {type:'queries'} with the number of Knex queries run so
// far and its CPU time (user + system, µs), and on {type:'stop'} closes the server and the database and exits (so --cpu-prof is written).

import http from 'node:http';

import { loadConfig, createLogger } from '../../core/platform/index.ts';
import { BENCH_RATE_LIMIT } from './limits.ts';
import { bindModels, createDb, type Db } from '../../core/db/index.ts';
import { startServer } from '../../server/server.ts';
import { discardRequestLog, type RequestLogSink } from '../../server/request-log.ts';
import { bareWorkspaceApp, bareWorkspaceDbApp } from './bare.ts';

const mode = process.env.BENCH_MODE;
const send = (m: object) => process.send!(m);

let queries = 0;
let db: Db | null = null;
let close: () => Promise<void>;
let requestLog = 'none';

if (mode === 'app') {
  const config = { ...loadConfig({ RATE_LIMIT_PER_MINUTE: BENCH_RATE_LIMIT, ...process.env, LOG_LEVEL: 'silent' }), host: '127.0.0.1' };
  const log = createLogger('bench-server', 'silent');
  db = createDb(config.databaseUrl);
  bindModels(db);
  // As server/main.ts: no sink passed, so startServer wires whatever request log it wires by
  // default. BENCH_REQUEST_LOG=off passes the discarding sink instead (to measure its cost).
  const off = process.env.BENCH_REQUEST_LOG === 'off';
  const server = await startServer({ db, config, log, port: 0, ...(off ? { requestLog: discardRequestLog } : {}) });
  const sink = (server as { requestLog?: RequestLogSink }).requestLog;
  requestLog = sink && sink !== discardRequestLog ? sink.constructor.name : 'none';
  const port = (server.http.address() as { port: number }).port;
  close = () => server.close();
  db.on('query', () => {
    queries += 1;
  });
  send({ type: 'ready', port, requestLog });
} else if (mode === 'bare-workspace' || mode === 'bare-workspace-db') {
  let app;
  if (mode === 'bare-workspace') {
    app = bareWorkspaceApp(JSON.parse(process.env.BENCH_BODY ?? '{}'));
  } else {
    db = createDb(process.env.DATABASE_URL!);
    db.on('query', () => {
      queries += 1;
    });
    app = bareWorkspaceDbApp(db);
  }
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 5000; // as server/server.ts
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  send({ type: 'ready', port: (server.address() as { port: number }).port, requestLog });
} else {
  throw new Error(`BENCH_MODE must be app, bare-workspace or bare-workspace-db, got "${mode}"`);
}

process.on('message', (m: { type: string }) => {
  if (m.type === 'queries') {
    const cpu = process.cpuUsage();
    send({ type: 'queries', n: queries, cpuMicros: cpu.user + cpu.system });
  }
  if (m.type === 'stop') {
    void (async () => {
      await close();
      await db?.destroy();
      process.exit(0);
    })();
  }
});
// The parent going away (e.g. killed) must not leave a server behind.
process.on('disconnect', () => process.exit(0));
