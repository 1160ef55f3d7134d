import type { Knex } from 'knex';

// Invitations to a workspace (spec/members.tsp): the token only as a SHA-256 digest; single use
// (accepted_at), withdrawable, 7 days to live.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('invitations', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('email', 320).notNullable();
    t.string('role', 16).notNullable();
    t.string('token_hash', 64).notNullable().unique();
    t.uuid('invited_by').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('accepted_at');
    t.uuid('accepted_user_id');
    t.bigInteger('withdrawn_at');
    t.index(['workspace_id', 'created_at'], 'invitations_workspace_idx');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('invitations');
}
