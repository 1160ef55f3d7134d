import type { Knex } from 'knex';

// Connected repositories (spec/connections.tsp). The token and the webhook secret are stored
// sealed (core/secrets): the secret must be read back to check each delivery's signature, the
// token to call the host. Deleting a workspace deletes its connections.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('repository_connections', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('provider', 16).notNullable();
    t.string('base_url', 500).notNullable();
    t.string('repository', 255).notNullable();
    // The host's own id of the repository (GitHub's repository id, GitLab's project id), as read when it was validated
    t.string('external_id', 64);
    // JSON text: { "<branch>": "<environment>" }
    t.text('branches').notNullable();
    t.string('trigger_kind', 16).notNullable();
    t.string('fail_on', 16).notNullable();
    t.text('token').notNullable();
    t.text('webhook_secret').notNullable();
    // GitLab's signing token (Standard Webhooks), when the user gave it
    t.text('signing_token');
    t.string('state', 16).notNullable();
    t.string('last_error', 500);
    t.bigInteger('last_error_at');
    t.bigInteger('verified_at');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.unique(['workspace_id', 'provider', 'base_url', 'repository'], { indexName: 'repository_connections_repo_key' });
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('repository_connections');
}
