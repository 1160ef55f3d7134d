import type { Knex } from 'knex';

// The CI service and run that recorded a deploy (spec/deploys.tsp `ciProvider`, `ciRunUrl`).
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('deploys', (t) => {
    t.string('ci_provider', 32);
    t.string('ci_run_url', 2000);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('deploys', (t) => {
    t.dropColumn('ci_provider');
    t.dropColumn('ci_run_url');
  });
}
