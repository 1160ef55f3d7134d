import type { Knex } from 'knex';

// The events outbox: domain events written in the transaction that caused them, delivered to
// webhooks later (at least once) by the worker.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('events', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('type', 64).notNullable();
    // JSON text: the event's `data`.
    t.text('data').notNullable();
    t.bigInteger('created_at').notNullable();
    // Set once the event has been fanned out to the subscribed webhooks.
    t.bigInteger('dispatched_at');
  });
  await db.raw('CREATE INDEX events_undispatched_idx ON events (created_at) WHERE dispatched_at IS NULL');
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('events');
}
