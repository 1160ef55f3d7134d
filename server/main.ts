// API server process: `npm run start:server` (any number of them on one database).
import type { AddressInfo } from 'node:net';
import { createLogger, loadConfig, stopGracefully } from '../core/platform/index.ts';
import { User, bindModels, createDb, migrateLatest } from '../core/db/index.ts';
import { missingKeyWarning } from '../core/secrets/index.ts';
import { startServer } from './server.ts';
import { dashboardBuild } from './dashboard.ts';

const config = loadConfig();
const log = createLogger('server', config.logLevel);
const unsealed = missingKeyWarning(config);
if (unsealed) log.warn(unsealed);
const db = createDb(config.databaseUrl, { busyWaitMs: config.dbBusyWaitMs });
bindModels(db);
// Servers and workers starting together queue on the migration lock, so start order does not matter.
await migrateLatest(db);

const server = await startServer({ db, config, log });
// Bundled now rather than on the first visit, so the first page loads at full speed; a failure
// only means the dashboard answers 503 (the API is unaffected).
dashboardBuild().catch((err: unknown) => log.error({ err }, 'the dashboard could not be built'));
const { address, port } = server.http.address() as AddressInfo;
log.info({ address, port }, 'sitehealth API listening');

stopGracefully(
  log,
  async () => {
    await server.close();
    await db.destroy();
  },
  { hardTimeoutMs: 15_000 },
);

if ((await User.query(db).resultSize()) === 0) {
  // Printed plainly (not as JSON) because a person reads it on first start.
  process.stdout.write(
    '\nNo users yet. Create the owner, a workspace and an API key with:\n\n' +
      '  npm run admin -- bootstrap --email you@example.com --workspace-name "My site" --website https://www.example.com\n\n' +
      `To use the dashboard at ${config.publicUrl}/, give yourself a password (printed once) and sign in with it:\n\n` +
      '  npm run -s admin -- users set-password --email you@example.com\n\n',
  );
}
