import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('activity', (t) => {
    t.uuid('id').primary();
    // No foreign keys: security rows outlive their workspace (docs/api.md#who-sees-which-rows).
    t.uuid('account_id');
    t.uuid('workspace_id');
    t.string('kind', 16).notNullable();
    t.string('action', 64).notNullable();
    t.string('actor_type', 16).notNullable();
    t.string('actor_id', 64);
    t.string('actor_label', 320);
    t.string('target_type', 32);
    t.string('target_id', 64);
    t.text('details').notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['workspace_id', 'created_at', 'id']);
    t.index(['account_id', 'created_at', 'id']);
    t.index(['created_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('activity');
}
