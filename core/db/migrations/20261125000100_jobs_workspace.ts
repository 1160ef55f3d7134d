import type { Knex } from 'knex';

// The workspace a job works for, so a worker can share its slots fairly between workspaces
// (core/jobs/claim.ts). Null for jobs that belong to no workspace (maintenance), which the
// sharing rule leaves alone. No foreign key: a job may outlive its workspace by the moments it
// takes to notice the workspace is gone, and the check would cost every enqueue a lookup.
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('jobs', (t) => {
    t.uuid('workspace_id');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('jobs', (t) => {
    t.dropColumn('workspace_id');
  });
}
