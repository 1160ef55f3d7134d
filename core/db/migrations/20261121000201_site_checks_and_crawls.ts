import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('site_checks', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('deploy_id').references('deploys.id').onDelete('CASCADE');
    t.string('state', 16).notNullable();
    t.string('trigger_kind', 16).notNullable();
    t.bigInteger('scheduled_at').notNullable();
    t.bigInteger('started_at');
    t.bigInteger('finished_at');
    // JSON text: page records, and the findings/issues computed when the check finishes.
    t.text('pages').notNullable();
    t.text('findings');
    t.text('error');
    t.bigInteger('created_at').notNullable();
  });
  // "Newest check triggered by a deploy": one index probe per deploy, newest id first.
  await db.raw('CREATE INDEX site_checks_deploy_idx ON site_checks (deploy_id, id DESC)');
  // Baselines and the latest check of a workspace.
  await db.raw('CREATE INDEX site_checks_workspace_idx ON site_checks (workspace_id, state, scheduled_at DESC)');

  await db.schema.createTable('site_crawls', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('deploy_id').references('deploys.id').onDelete('CASCADE');
    t.string('state', 16).notNullable();
    t.bigInteger('scheduled_at').notNullable();
    t.bigInteger('started_at');
    t.bigInteger('finished_at');
    t.integer('pages_crawled').notNullable().defaultTo(0);
    // JSON text, internal: the crawl's page list and findings are not part of the API shape.
    t.text('pages');
    t.text('findings');
    t.text('error');
    t.bigInteger('created_at').notNullable();
  });
  await db.raw('CREATE INDEX site_crawls_deploy_idx ON site_crawls (deploy_id, id DESC)');
  await db.raw('CREATE INDEX site_crawls_workspace_idx ON site_crawls (workspace_id, state, scheduled_at DESC)');
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('site_crawls');
  await db.schema.dropTable('site_checks');
}
