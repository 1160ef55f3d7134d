import type { Knex } from 'knex';

// The jobs table shared by every worker (see core/jobs/). Times are epoch ms (bigint).
//
// Indexes, all partial so they stay as small as the live part of the queue:
// - jobs_claim_idx: (run_at, id) over queued rows, the exact order of the claim query, so a
//   claim reads the first N due entries of the index and never scans the backlog.
// - jobs_running_idx: running rows by lease expiry, for recovery of expired leases.
// - jobs_dedupe_key_idx: at most one queued-or-running job per dedupe key; a finished
//   (done, failed, cancelled) job never blocks a new one with the same key.
// - jobs_finished_idx: finished rows by finish time, for the retention of old jobs.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('jobs', (t) => {
    t.uuid('id').primary();
    t.string('kind', 64).notNullable();
    t.text('payload').notNullable();
    t.enu('state', ['queued', 'running', 'done', 'failed', 'cancelled'], {
      useNative: false,
      enumName: 'jobs_state',
    })
      .notNullable()
      .defaultTo('queued');
    t.bigInteger('run_at').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('max_attempts').notNullable();
    t.bigInteger('lease_expires_at');
    t.string('locked_by', 128);
    t.text('last_error');
    t.string('dedupe_key', 255);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.bigInteger('started_at');
    t.bigInteger('finished_at');
  });
  await db.raw(`CREATE INDEX jobs_claim_idx ON jobs (run_at, id) WHERE state = 'queued'`);
  await db.raw(`CREATE INDEX jobs_running_idx ON jobs (lease_expires_at) WHERE state = 'running'`);
  await db.raw(
    `CREATE UNIQUE INDEX jobs_dedupe_key_idx ON jobs (dedupe_key)
     WHERE dedupe_key IS NOT NULL AND state IN ('queued', 'running')`,
  );
  await db.raw(
    `CREATE INDEX jobs_finished_idx ON jobs (finished_at) WHERE state IN ('done', 'failed', 'cancelled')`,
  );
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('jobs');
}
