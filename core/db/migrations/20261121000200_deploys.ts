import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('deploys', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    // Lower case, so the upsert key compares shas case-insensitively with a plain unique index.
    t.string('commit_sha', 64).notNullable();
    t.string('environment', 32).notNullable();
    t.string('ref', 255);
    t.text('message');
    t.string('source', 16).notNullable();
    t.bigInteger('deployed_at').notNullable();
    // JSON text: [{path, category, signals:[{kind, change, line?}]}]
    t.text('changes').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    // The upsert key, per workspace (docs/api.md#recording-a-deploy).
    t.unique(['workspace_id', 'environment', 'commit_sha'], { indexName: 'deploys_upsert_key' });
  });
  // Newest-first listing, index-bound however many deploys a workspace has.
  await db.raw('CREATE INDEX deploys_list_idx ON deploys (workspace_id, deployed_at DESC, id DESC)');
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('deploys');
}
