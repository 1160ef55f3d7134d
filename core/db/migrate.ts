import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';

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

export async function migrateLatest(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource: source })) as [number, string[]];
  return applied;
}
