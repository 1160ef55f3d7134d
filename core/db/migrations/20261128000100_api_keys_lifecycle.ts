import type { Knex } from 'knex';

// API keys over the API (spec/api-keys.tsp): the last 4 characters to show beside the prefix
// (unknown for keys created before: only their digest was kept), an expiry, the key that
// replaced one by rotation, and when its first use after expiring was written to the audit.
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('api_keys', (t) => {
    t.string('key_last4', 4);
    t.bigInteger('expires_at');
    t.uuid('replaced_by');
    t.bigInteger('expiry_recorded_at');
    // GET /v1/api-keys: a user's keys, newest first.
    t.index(['user_id', 'created_at', 'id'], 'api_keys_user_created_idx');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('api_keys', (t) => {
    t.dropIndex(['user_id', 'created_at', 'id'], 'api_keys_user_created_idx');
    t.dropColumn('key_last4');
    t.dropColumn('expires_at');
    t.dropColumn('replaced_by');
    t.dropColumn('expiry_recorded_at');
  });
}
