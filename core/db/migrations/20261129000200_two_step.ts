import type { Knex } from 'knex';

// Two-step verification (spec/sign-in.tsp): the TOTP secret sealed with SECRETS_KEY (and the one
// being set up), the last time step a code was accepted for (a code works once), recovery codes
// as SHA-256 digests, and the second step of a sign-in in progress (its token as a digest).
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('users', (t) => {
    t.text('two_step_secret');
    t.bigInteger('two_step_enabled_at');
    t.bigInteger('two_step_last_step');
    t.text('two_step_pending_secret');
  });
  await db.schema.createTable('recovery_codes', (t) => {
    t.uuid('id').primary();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('code_hash', 64).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('used_at');
    t.unique(['user_id', 'code_hash'], { indexName: 'recovery_codes_user_code_unique' });
  });
  await db.schema.createTable('sign_in_challenges', (t) => {
    t.uuid('id').primary();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('token_hash', 64).notNullable().unique();
    t.string('user_agent', 512);
    t.string('ip', 64);
    t.integer('failures').notNullable().defaultTo(0);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('used_at');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('sign_in_challenges');
  await db.schema.dropTable('recovery_codes');
  await db.schema.alterTable('users', (t) => {
    t.dropColumn('two_step_secret');
    t.dropColumn('two_step_enabled_at');
    t.dropColumn('two_step_last_step');
    t.dropColumn('two_step_pending_secret');
  });
}
