// npm run migrate: bring DATABASE_URL (default: the embedded SQLite file) up to date.
import { loadConfig } from '../core/platform/index.ts';
import { createDb, migrateLatest } from '../core/db/index.ts';

const db = createDb(loadConfig().databaseUrl, { pool: { max: 1 } });
try {
  const applied = await migrateLatest(db);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'already up to date');
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
} finally {
  await db.destroy();
}
