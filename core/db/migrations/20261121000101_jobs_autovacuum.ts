import type { Knex } from 'knex';
import { isPostgres } from '../connection.ts';

// PostgreSQL: the jobs table churns (every job is inserted and updated at least twice), so
// vacuum and analyze it after 1% of its rows changed rather than the default 20% / 10%: dead
// index entries are cleared and the planner's statistics follow bursts. Nothing on SQLite.
export async function up(db: Knex): Promise<void> {
  if (!isPostgres(db)) return;
  await db.raw(`ALTER TABLE jobs SET (
    autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
    autovacuum_analyze_scale_factor = 0.01, autovacuum_analyze_threshold = 1000)`);
}

export async function down(db: Knex): Promise<void> {
  if (!isPostgres(db)) return;
  await db.raw(`ALTER TABLE jobs RESET (
    autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold,
    autovacuum_analyze_scale_factor, autovacuum_analyze_threshold)`);
}
