import type { Knex } from 'knex';
import { isPostgres } from '../connection.ts';

// Digests (core/digests, spec/digests.tsp).
//
// digest_preferences: a member's choice per workspace (weekly, daily or none); no row means the
// default (weekly). Kept when a member leaves (a member who comes back keeps their choice);
// recipients are always read through memberships.
//
// digests: one row per (workspace, member, frequency, period): the unique key that makes each
// digest go out once across workers, retries and restarts. `state` moves pending -> sending ->
// sent | skipped (nothing to say); `attempt_at` is when a worker took it to send, so a worker that
// died mid-send leaves a row another may take after a while. The unsubscribe token lives only in
// the mail; here is its SHA-256 digest, and `unsubscribed_at` makes it single use.
//
// monitor_slots (core/monitoring) also holds each workspace's digest slots, under the kinds
// `digest.daily` and `digest.weekly`: longer than the 8 characters `check` and `crawl` needed.
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('digest_preferences', (t) => {
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('digest', 8).notNullable();
    t.bigInteger('updated_at').notNullable();
    t.primary(['workspace_id', 'user_id']);
  });
  await db.schema.createTable('digests', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('frequency', 8).notNullable();
    t.bigInteger('period_start').notNullable();
    t.bigInteger('period_end').notNullable();
    t.string('state', 8).notNullable();
    t.bigInteger('attempt_at');
    t.bigInteger('sent_at');
    t.string('message_id', 255);
    t.string('token_hash', 64);
    t.bigInteger('unsubscribed_at');
    t.bigInteger('created_at').notNullable();
    t.unique(['workspace_id', 'user_id', 'frequency', 'period_end'], { indexName: 'digests_once' });
  });
  if (isPostgres(db)) await db.raw('ALTER TABLE monitor_slots ALTER COLUMN kind TYPE varchar(16)');
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('digests');
  await db.schema.dropTable('digest_preferences');
  await db('monitor_slots').where('kind', 'like', 'digest.%').delete();
  if (isPostgres(db)) await db.raw('ALTER TABLE monitor_slots ALTER COLUMN kind TYPE varchar(8)');
}
