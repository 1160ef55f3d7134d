import type { Knex } from 'knex';

// Single sign-on per account (spec/sso.tsp): the account's OpenID Connect client (its secret
// sealed with SECRETS_KEY), the sign-in attempts in flight (state and browser binding as SHA-256
// digests, the PKCE verifier sealed; single use, 10 minutes), and the users who signed in through
// the provider (their first time is audited).
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('sso_settings', (t) => {
    t.uuid('account_id').primary().references('accounts.id').onDelete('CASCADE');
    t.string('issuer', 500).notNullable();
    t.string('client_id', 255).notNullable();
    t.text('client_secret').notNullable();
    t.boolean('required').notNullable().defaultTo(false);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
  });
  await db.schema.createTable('sso_attempts', (t) => {
    t.uuid('id').primary();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('state_hash', 64).notNullable().unique();
    t.string('binding_hash', 64).notNullable();
    t.string('nonce', 64).notNullable();
    t.text('code_verifier').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('used_at');
  });
  await db.schema.createTable('sso_identities', (t) => {
    t.uuid('user_id').primary().references('users.id').onDelete('CASCADE');
    t.string('issuer', 500).notNullable();
    t.string('subject', 255).notNullable();
    t.bigInteger('first_signed_in_at').notNullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('sso_identities');
  await db.schema.dropTable('sso_attempts');
  await db.schema.dropTable('sso_settings');
}
