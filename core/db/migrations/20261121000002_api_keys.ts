import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('api_keys', (t) => {
    t.uuid('id').primary();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    // A bound key dies with its workspace: it could never see anything again.
    t.uuid('workspace_id').references('workspaces.id').onDelete('CASCADE');
    t.string('name', 255);
    // SHA-256 hex of the full key; the key itself is never stored.
    t.string('key_hash', 64).notNullable().unique();
    // Display hint (e.g. "sh_live_AbCd…"), safe to show and log.
    t.string('key_hint', 32).notNullable();
    t.string('scopes', 255).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('last_used_at');
    t.bigInteger('revoked_at');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('api_keys');
}
