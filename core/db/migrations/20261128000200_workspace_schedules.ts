import type { Knex } from 'knex';

// A schedule per workspace (spec/workspaces.tsp CheckSchedule, CrawlSchedule): the settings on
// the workspace (core/workspaces), with when they last changed (slots before that never run);
// and the newest slot of each kind a worker has claimed (core/monitoring), one row per workspace
// and kind, whose conditional upsert makes each slot run once across workers.
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('workspaces', (t) => {
    t.string('check_schedule', 8).notNullable().defaultTo('daily');
    t.string('check_time', 5).notNullable().defaultTo('06:00');
    t.string('crawl_schedule', 8).notNullable().defaultTo('weekly');
    t.bigInteger('schedule_changed_at');
  });
  await db.schema.createTable('monitor_slots', (t) => {
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    // `check` or `crawl`
    t.string('kind', 8).notNullable();
    // The slot (epoch ms) last claimed, and when it was claimed.
    t.bigInteger('slot_at').notNullable();
    t.bigInteger('claimed_at').notNullable();
    t.primary(['workspace_id', 'kind']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('monitor_slots');
  await db.schema.alterTable('workspaces', (t) => {
    t.dropColumn('check_schedule');
    t.dropColumn('check_time');
    t.dropColumn('crawl_schedule');
    t.dropColumn('schedule_changed_at');
  });
}
