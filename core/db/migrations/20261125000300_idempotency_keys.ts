import type { Knex } from 'knex';

// The answers of POSTs sent with an Idempotency-Key (spec/common/errors.tsp `IdempotencyKey`),
// per API key, kept 24 hours.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('idempotency_keys', (t) => {
    t.uuid('api_key_id').notNullable().references('api_keys.id').onDelete('CASCADE');
    t.string('idempotency_key', 255).notNullable();
    // sha256 of the operation, path and body: a repeat must be the same request.
    t.string('fingerprint', 64).notNullable();
    t.string('state', 16).notNullable();
    // While running: when another request may take over (the first one's process died).
    t.bigInteger('locked_until');
    t.integer('status');
    t.text('response');
    t.bigInteger('created_at').notNullable();
    t.primary(['api_key_id', 'idempotency_key']);
  });
  await db.raw('CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)');
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('idempotency_keys');
}
