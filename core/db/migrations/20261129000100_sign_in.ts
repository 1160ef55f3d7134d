import type { Knex } from 'knex';

// People signing in (spec/sign-in.tsp): a password digest and a verified-email time on the user;
// sessions (the cookie's token only as a SHA-256 digest); single-use email links (verification
// and password reset, digests only); failed sign-ins counted per account and per address in
// fixed windows.
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('users', (t) => {
    t.string('password_hash', 200);
    t.bigInteger('email_verified_at');
    t.bigInteger('password_changed_at');
  });
  await db.schema.createTable('sessions', (t) => {
    t.uuid('id').primary();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('token_hash', 64).notNullable().unique();
    /** How the session was signed in: password, passkey, sso or invitation. */
    t.string('method', 16).notNullable();
    t.string('user_agent', 512);
    t.string('ip', 64);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('last_seen_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('revoked_at');
    t.index(['user_id', 'created_at'], 'sessions_user_idx');
  });
  await db.schema.createTable('email_tokens', (t) => {
    t.uuid('id').primary();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    /** verify_email or reset_password. */
    t.string('purpose', 16).notNullable();
    t.string('token_hash', 64).notNullable().unique();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('used_at');
    t.index(['user_id', 'purpose'], 'email_tokens_user_idx');
  });
  await db.schema.createTable('sign_in_failures', (t) => {
    /** `account:<user id>` or `address:<ip>`. */
    t.string('subject', 100).notNullable();
    t.bigInteger('window_start').notNullable();
    t.integer('count').notNullable();
    t.primary(['subject', 'window_start']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('sign_in_failures');
  await db.schema.dropTable('email_tokens');
  await db.schema.dropTable('sessions');
  await db.schema.alterTable('users', (t) => {
    t.dropColumn('password_hash');
    t.dropColumn('email_verified_at');
    t.dropColumn('password_changed_at');
  });
}
