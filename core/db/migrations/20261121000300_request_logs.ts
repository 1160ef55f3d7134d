import type { Knex } from 'knex';

// One row per logged /v1 request (docs/api.md#request-logs), written in batches by
// core/request-logs/writer.ts and kept 30 days (core/retention.ts). Times are epoch ms.
//
// Indexes (every one leads with workspace_id, as every read names one workspace):
// - request_logs_list_idx: the newest-first page, (created_at, id) being the `before` keyset.
// - request_logs_failed_idx: the same order over failed requests only (`status=failed`, the
//   usual question when a CI step broke), so a page of failures never walks the successes.
// - request_logs_status_code_idx / request_logs_route_idx: a page for one status code or one
//   route stays index-bound however rare the value is.
// - request_logs_created_idx: retention deletes by age across workspaces.
// The foreign key cascades, so a deleted workspace takes its logs with it.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('request_logs', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('method', 16).notNullable();
    t.text('path').notNullable();
    // OpenAPI form, e.g. /v1/deploys/{id}; null when no route matched.
    t.string('route', 255);
    t.integer('status_code').notNullable();
    t.integer('duration_ms').notNullable();
    t.text('error_message');
    t.uuid('api_key_id');
    t.bigInteger('created_at').notNullable();
  });
  await db.raw('CREATE INDEX request_logs_list_idx ON request_logs (workspace_id, created_at DESC, id DESC)');
  await db.raw(
    'CREATE INDEX request_logs_failed_idx ON request_logs (workspace_id, created_at DESC, id DESC) WHERE status_code >= 400',
  );
  await db.raw(
    'CREATE INDEX request_logs_status_code_idx ON request_logs (workspace_id, status_code, created_at DESC, id DESC)',
  );
  await db.raw('CREATE INDEX request_logs_route_idx ON request_logs (workspace_id, route, created_at DESC, id DESC)');
  await db.raw('CREATE INDEX request_logs_created_idx ON request_logs (created_at)');
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('request_logs');
}
