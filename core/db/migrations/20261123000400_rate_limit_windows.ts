import type { Knex } from 'knex';

// Per-key request counts, one row per API key and fixed one-minute window (core/access
// rate-limits.ts). Every API process adds to the same row, so several servers enforce one limit.
// No foreign key: a row is bookkeeping that retention drops within the hour, and the check would
// cost each claim a lookup; a revoked or deleted key's rows simply age out.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('rate_limit_windows', (t) => {
    t.uuid('key_id').notNullable();
    // Epoch ms of the window's start (a multiple of the window length).
    t.bigInteger('window_start').notNullable();
    t.integer('count').notNullable();
    t.primary(['key_id', 'window_start']);
    t.index(['window_start'], 'rate_limit_windows_start_idx');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('rate_limit_windows');
}
