import type { Knex } from 'knex';

// Inbound deliveries of connected repositories: one row per delivery id the host sent, so a
// replayed delivery is recorded once; the part of the payload the deploy job needs (never code).
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('repository_deliveries', (t) => {
    t.uuid('id').primary();
    t.uuid('connection_id').notNullable().references('repository_connections.id').onDelete('CASCADE');
    t.uuid('workspace_id').notNullable();
    // X-GitHub-Delivery or X-Gitlab-Event-UUID (or the body's hash when the host sent none)
    t.string('delivery_key', 128).notNullable();
    t.string('event', 64).notNullable();
    // JSON text: the push or deployment as the deploy job reads it
    t.text('payload').notNullable();
    // queued, recorded
    t.string('state', 16).notNullable();
    t.uuid('deploy_id');
    t.bigInteger('created_at').notNullable();
    t.unique(['connection_id', 'delivery_key'], { indexName: 'repository_deliveries_key' });
  });
  await db.raw('CREATE INDEX repository_deliveries_created_idx ON repository_deliveries (created_at)');
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('repository_deliveries');
}
