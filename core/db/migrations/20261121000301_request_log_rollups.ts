import type { Knex } from 'knex';

// Request counts, upserted in the same transaction as the rows they count
// (core/request-logs/store.ts), so GET /v1/logs computes `meta` (total, errors, buckets)
// without reading the rows whenever `q` is absent: its cost depends on the number of hours
// in the window, not on the number of requests.
//
// - request_log_hourly: one row per workspace and UTC hour with total and errors (status >= 400).
//   Answers `days` and `status` alone: at most 720 rows for 30 days, whatever the traffic.
// - request_log_rollups: per workspace, UTC hour, method, route and status code. Answers the
//   `method`, `status_code` and `route` filters (with `days` and `status`). `route` is '' when
//   no route matched (a real route is never empty), so the unique key has no NULLs and the
//   upsert behaves identically on both engines.
// The surrogate `id` lets retention delete both in batches like every other table.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('request_log_hourly', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.bigInteger('hour_start').notNullable();
    t.bigInteger('total').notNullable();
    t.bigInteger('errors').notNullable();
    t.unique(['workspace_id', 'hour_start'], { indexName: 'request_log_hourly_key' });
    t.index(['hour_start'], 'request_log_hourly_hour_idx');
  });
  await db.schema.createTable('request_log_rollups', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.bigInteger('hour_start').notNullable();
    t.string('method', 16).notNullable();
    t.string('route', 255).notNullable();
    t.integer('status_code').notNullable();
    t.bigInteger('total').notNullable();
    t.unique(['workspace_id', 'hour_start', 'method', 'route', 'status_code'], {
      indexName: 'request_log_rollups_key',
    });
    t.index(['hour_start'], 'request_log_rollups_hour_idx');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('request_log_rollups');
  await db.schema.dropTable('request_log_hourly');
}
