import type { AddressInfo } from 'node:net';
import { loadConfig } from '../core/config.ts';
import { bindModels, createDb } from '../core/db/connection.ts';
import { migrateLatest } from '../core/db/migrate.ts';
import { createLogger } from '../core/logger.ts';
import { startServer } from './server.ts';

const config = loadConfig();
const log = createLogger('server', config.logLevel);
const db = createDb(config.databaseUrl);
bindModels(db);
await migrateLatest(db);

const server = await startServer({ db, config, log });
const { address, port } = server.http.address() as AddressInfo;
log.info({ address, port }, 'sitehealth API listening');

const users = (await db('users').count({ n: '*' }).first()) as { n: number | string };
if (Number(users.n) === 0) {
  // Printed plainly (not as JSON) because a person reads it on first start.
  process.stdout.write(
    '\nNo users yet. Create the owner, a workspace and an API key with:\n\n' +
      '  npm run admin -- bootstrap --email you@example.com --workspace-name "My site" --website https://www.example.com\n\n',
  );
}

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  const timer = setTimeout(() => process.exit(1), 15000);
  timer.unref();
  await server.close();
  await db.destroy();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
