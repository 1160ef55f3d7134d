import type { Knex } from 'knex';

// Checks and crawls on demand and on a schedule (spec/site-checks.tsp): a crawl says what started
// it, like a check; a workspace has at most one check and one crawl queued to run now (manual or
// scheduled), which a partial unique index keeps true across concurrent requests and workers; and
// the lists page newest first by id.
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('site_crawls', (t) => {
    t.string('trigger_kind', 16).notNullable().defaultTo('deploy');
  });
  await db.raw(`CREATE UNIQUE INDEX site_checks_queued_now_idx ON site_checks (workspace_id) WHERE state = 'queued' AND trigger_kind IN ('manual', 'schedule')`);
  await db.raw(`CREATE UNIQUE INDEX site_crawls_queued_now_idx ON site_crawls (workspace_id) WHERE state = 'queued' AND trigger_kind IN ('manual', 'schedule')`);
  await db.raw('CREATE INDEX site_checks_list_idx ON site_checks (workspace_id, id DESC)');
  await db.raw('CREATE INDEX site_crawls_list_idx ON site_crawls (workspace_id, id DESC)');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX site_crawls_list_idx');
  await db.raw('DROP INDEX site_checks_list_idx');
  await db.raw('DROP INDEX site_crawls_queued_now_idx');
  await db.raw('DROP INDEX site_checks_queued_now_idx');
  await db.schema.alterTable('site_crawls', (t) => {
    t.dropColumn('trigger_kind');
  });
}
