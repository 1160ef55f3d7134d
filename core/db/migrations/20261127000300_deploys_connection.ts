import type { Knex } from 'knex';

// A deploy recorded from a connected repository: the connection (its commit status goes back
// through it), and whether its changes are partial or missing and why (spec/deploys.tsp).
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('deploys', (t) => {
    t.uuid('connection_id').references('repository_connections.id').onDelete('SET NULL');
    t.boolean('changes_truncated').notNullable().defaultTo(false);
    t.string('changes_note', 500);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('deploys', (t) => {
    t.dropColumn('connection_id');
    t.dropColumn('changes_truncated');
    t.dropColumn('changes_note');
  });
}
