import type { Knex } from 'knex';

// Webhooks, their messages (one per event and webhook: the body sent, its delivery key) and the
// delivery attempts of each message. Deleting a webhook deletes its messages and attempts;
// deleting a workspace deletes its webhooks.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('webhooks', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('name', 120);
    t.text('url').notNullable();
    // JSON text: subscribed event names
    t.text('events').notNullable();
    // The signing secret is needed to sign, so it is stored (and never returned after creation
    // or rotation); the previous one signs too for 24 hours after a rotation.
    t.text('secret').notNullable();
    t.text('previous_secret');
    t.bigInteger('previous_secret_until');
    // JSON text: [[name, value], ...] in the order given
    t.text('headers').notNullable();
    t.boolean('active').notNullable();
    t.integer('failure_count').notNullable();
    // When the current streak of failed attempts began (the pause rule looks at its age)
    t.bigInteger('failing_since');
    t.bigInteger('last_triggered_at');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['workspace_id', 'created_at', 'id'], 'webhooks_workspace_idx');
  });
  await db.schema.createTable('webhook_messages', (t) => {
    t.uuid('id').primary();
    t.uuid('webhook_id').notNullable().references('webhooks.id').onDelete('CASCADE');
    t.uuid('workspace_id').notNullable();
    // null for a test message
    t.uuid('event_id');
    t.string('event', 64).notNullable();
    // webhook-id: the same for every attempt and redelivery of the message
    t.string('delivery_key', 64).notNullable().unique();
    // The body exactly as sent, and its hex SHA-256
    t.text('payload').notNullable();
    t.string('body_hash', 64).notNullable();
    // pending (an attempt is due), delivered, failed (gave up), cancelled (webhook paused), once (test)
    t.string('state', 16).notNullable();
    t.bigInteger('created_at').notNullable();
  });
  // One message per event and webhook, however often the fan-out runs.
  await db.raw('CREATE UNIQUE INDEX webhook_messages_event_idx ON webhook_messages (event_id, webhook_id)');
  await db.raw('CREATE INDEX webhook_messages_created_idx ON webhook_messages (created_at)');
  await db.schema.createTable('webhook_deliveries', (t) => {
    t.uuid('id').primary();
    t.uuid('message_id').notNullable().references('webhook_messages.id').onDelete('CASCADE');
    t.uuid('webhook_id').notNullable().references('webhooks.id').onDelete('CASCADE');
    t.string('event', 64).notNullable();
    t.string('delivery_key', 64).notNullable();
    t.integer('attempt').notNullable();
    // event (first attempt), retry (the schedule's), test, redelivery
    t.string('origin', 16).notNullable();
    t.string('status', 16).notNullable();
    t.integer('response_status');
    t.string('response_body', 500);
    t.integer('duration_ms').notNullable();
    t.string('body_hash', 64).notNullable();
    t.bigInteger('next_retry_at');
    t.bigInteger('created_at').notNullable();
    t.unique(['message_id', 'attempt'], { indexName: 'webhook_deliveries_attempt_key' });
  });
  await db.raw('CREATE INDEX webhook_deliveries_list_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC)');
  await db.raw('CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (created_at)');
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('webhook_deliveries');
  await db.schema.dropTable('webhook_messages');
  await db.schema.dropTable('webhooks');
}
