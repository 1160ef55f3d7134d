import type { Knex } from 'knex';

// Every event carries the key of the fact it reports (e.g. `site_check.completed:<check id>`), so
// a job that runs twice (a worker killed after its commit, a lease taken over) writes it once.
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('events', (t) => {
    t.string('idempotency_key', 200);
  });
  await db.raw('CREATE UNIQUE INDEX events_idempotency_key_idx ON events (idempotency_key)');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX events_idempotency_key_idx');
  await db.schema.alterTable('events', (t) => {
    t.dropColumn('idempotency_key');
  });
}
