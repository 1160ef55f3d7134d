import type { Knex } from 'knex';

// Ids are UUID strings (uuid on PostgreSQL, text on SQLite); times are epoch ms (bigint).
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('accounts', (t) => {
    t.uuid('id').primary();
    t.integer('workspace_limit').notNullable().defaultTo(10);
    t.bigInteger('created_at').notNullable();
  });
  await db.schema.createTable('users', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id');
    t.string('email', 320).notNullable().unique();
    t.bigInteger('created_at').notNullable();
  });
  await db.schema.createTable('workspaces', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id');
    t.string('name', 255).notNullable();
    t.string('slug', 300).notNullable().unique();
    t.string('type', 32).notNullable();
    t.text('logo');
    t.string('website', 500).notNullable();
    t.string('timezone', 64).notNullable();
    t.string('country', 2);
    t.text('description');
    t.string('language', 64).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['account_id']);
  });
  await db.schema.createTable('memberships', (t) => {
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('role', 16).notNullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['workspace_id', 'user_id']);
    t.index(['user_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('memberships');
  await db.schema.dropTable('workspaces');
  await db.schema.dropTable('users');
  await db.schema.dropTable('accounts');
}
