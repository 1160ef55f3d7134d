// The server under test of bench/logs.ts, as a child process: startServer() with the real
// handlers, as server/main.ts runs it (so the request log writer it wires by default), or with
// the discarding sink when BENCH_REQUEST_LOG=off. Reports its port over IPC; on {type:'stop'}
// closes (flushing the request log) and exits.

import { loadConfig, createLogger } from '../core/platform/index.ts';
import { BENCH_RATE_LIMIT } from './lib/limits.ts';
import { bindModels, createDb } from '../core/db/index.ts';
import { startServer } from '../server/server.ts';
import { discardRequestLog } from '../server/request-log.ts';

const config = { ...loadConfig({ RATE_LIMIT_PER_MINUTE: BENCH_RATE_LIMIT, ...process.env, LOG_LEVEL: 'silent' }), host: '127.0.0.1' };
const db = createDb(config.databaseUrl);
bindModels(db);
const off = process.env.BENCH_REQUEST_LOG === 'off';
const server = await startServer({
  db,
  config,
  log: createLogger('bench-logs', 'silent'),
  port: 0,
  ...(off ? { requestLog: discardRequestLog } : {}),
});
const sink = server.requestLog === discardRequestLog ? 'none' : server.requestLog.constructor.name;
process.send!({ type: 'ready', port: (server.http.address() as { port: number }).port, requestLog: sink });
process.on('message', (m: { type: string }) => {
  if (m.type !== 'stop') return;
  void (async () => {
    await server.close();
    await db.destroy();
    process.exit(0);
  })();
});
process.on('disconnect', () => process.exit(0));
