import type { Knex } from 'knex';

// Passkeys (spec/passkeys.tsp), owned by core/access: each user's WebAuthn credentials (public
// key, signature counter, transports, a name), and the challenges of registration and sign-in
// ceremonies, stored server-side so that each is used once and only within its lifetime.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('passkeys', (t) => {
    t.uuid('id').primary();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    /** The credential id, base64url: up to 1,023 bytes per WebAuthn. */
    t.string('credential_id', 1400).notNullable().unique();
    /** The COSE public key, base64url. A public key: nothing here signs in without the authenticator. */
    t.text('public_key').notNullable();
    t.bigInteger('counter').notNullable();
    /** JSON array of transport names. */
    t.string('transports', 400).notNullable();
    t.string('name', 100).notNullable();
    /** singleDevice or multiDevice. */
    t.string('device_type', 16).notNullable();
    t.boolean('backed_up').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('last_used_at');
    t.index(['user_id', 'created_at'], 'passkeys_user_idx');
  });
  await db.schema.createTable('webauthn_challenges', (t) => {
    t.uuid('id').primary();
    /** registration or sign_in. */
    t.string('purpose', 16).notNullable();
    /** The user a registration challenge was issued to; null for sign-in. */
    t.uuid('user_id').references('users.id').onDelete('CASCADE');
    /** The random challenge, base64url (32 bytes). */
    t.string('challenge', 64).notNullable();
    /** The client address that asked for a sign-in challenge, for the per-address cap. */
    t.string('ip', 64);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('used_at');
    t.index(['ip', 'created_at'], 'webauthn_challenges_ip_idx');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('webauthn_challenges');
  await db.schema.dropTable('passkeys');
}
