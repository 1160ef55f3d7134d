import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import { isPostgres } from './connection.ts';
import { configOf } from './knex-adapter.ts';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

interface MigrationModule {
  up(db: Knex): Promise<void>;
  down?(db: Knex): Promise<void>;
}

// Migrations are TypeScript modules named `<timestamp>_<slug>.ts`, one change per file,
// and run identically on SQLite and PostgreSQL. A custom source lets knex load them
// through tsx instead of its own file loader.
const source: Knex.MigrationSource<string> = {
  async getMigrations() {
    return fs
      .readdirSync(dir)
      .filter((f) => /^\d{14}_[a-z0-9_]+\.ts$/.test(f))
      .sort();
  },
  getMigrationName(name) {
    return name;
  },
  async getMigration(name): Promise<Knex.Migration> {
    const mod = (await import(pathToFileURL(path.join(dir, name)).href)) as MigrationModule;
    return { up: mod.up, down: mod.down ?? (async () => {}) };
  },
};

// Any constant works: it only has to be the same for every process of this service.
const MIGRATION_LOCK_KEY = 7_262_611;

function isStartupRace(err: unknown): boolean {
  const e = err as { name?: string; message?: string };
  // knex's own lock, or two processes creating its bookkeeping tables at the same moment.
  return e.name === 'MigrationLocked' || /knex_migrations.*already exists/.test(e.message ?? '');
}

/**
 * Applies pending migrations. Several servers starting at once against one database must not
 * fail their start: on PostgreSQL they queue on an advisory lock (held on a connection of its
 * own), so one migrates and the rest then find nothing to do; on SQLite, where writes are
 * serialised anyway, a lost race is retried.
 */
export async function migrateLatest(db: Knex, opts: { waitMs?: number } = {}): Promise<string[]> {
  if (isPostgres(db)) {
    let applied: string[] = [];
    const lock = knexFactory({ ...configOf(db), pool: { min: 0, max: 1 } });
    try {
      await lock.transaction(async (trx) => {
        await trx.raw('SELECT pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY]);
        applied = await runLatest(db);
      });
    } finally {
      await lock.destroy();
    }
    return applied;
  }
  const deadline = Date.now() + (opts.waitMs ?? 60_000);
  for (;;) {
    try {
      return await runLatest(db);
    } catch (err) {
      if (!isStartupRace(err) || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

// During a rolling upgrade the database is ahead of the processes still running the previous
// release: it lists migrations their code does not have. knex would refuse to start them ("the
// migration directory is corrupt"); since every migration only adds (docs/operating.md,
// upgrades), an older release runs correctly on a newer schema, so that check is off and the
// older process applies nothing.
async function runLatest(db: Knex): Promise<string[]> {
  const [, names] = (await db.migrate.latest({ migrationSource: source, disableMigrationsListValidation: true })) as [number, string[]];
  return names;
}
