import type { Knex } from 'knex';
import { isPostgres } from '../connection.ts';

// PostgreSQL only, and only where the pg_trgm extension can be created (it is a trusted
// extension since PostgreSQL 13: a database owner needs no superuser). Trigram indexes let
// `GET /v1/logs?q=...` find a selective substring of the path or the error message without
// reading every row of the window (bench/results/logs.md: 1,000,000 rows, meta of `q=paused`
// with and without them); a substring that matches most rows still reads them. The query is
// the same with or without them (LOWER(col) LIKE '%...%'), so SQLite and a PostgreSQL without
// pg_trgm answer identically, only slower. They cost about 30% of the batch writer's insert
// rate, which stays off the request path.
export async function up(db: Knex): Promise<void> {
  if (!isPostgres(db)) return;
  const available = (await db.raw(`SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'`)) as { rows: unknown[] };
  if (available.rows.length === 0) return;
  try {
    // A savepoint, so a refused CREATE EXTENSION leaves the migration's transaction usable.
    await db.transaction(async (sp) => {
      await sp.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    });
  } catch {
    return;
  }
  await db.raw('CREATE INDEX request_logs_path_trgm_idx ON request_logs USING gin (LOWER(path) gin_trgm_ops)');
  await db.raw('CREATE INDEX request_logs_error_trgm_idx ON request_logs USING gin (LOWER(error_message) gin_trgm_ops)');
}

export async function down(db: Knex): Promise<void> {
  if (!isPostgres(db)) return;
  await db.raw('DROP INDEX IF EXISTS request_logs_error_trgm_idx');
  await db.raw('DROP INDEX IF EXISTS request_logs_path_trgm_idx');
}
