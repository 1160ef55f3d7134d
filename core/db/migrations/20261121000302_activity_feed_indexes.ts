import type { Knex } from 'knex';

// GET /v1/activity without workspace_id reads three disjoint sets, each newest first by
// (created_at, id): rows of the caller's workspaces (activity's own (workspace_id, created_at,
// id) index), account-level rows, and security rows of the account's deleted workspaces.
// These partial indexes keep the last two index-bound however many webhook rows the
// account's workspaces pile up. The queries repeat the predicates literally so both
// engines can prove the partial index applies.
export async function up(db: Knex): Promise<void> {
  await db.raw(
    'CREATE INDEX activity_account_level_idx ON activity (account_id, created_at DESC, id DESC) WHERE workspace_id IS NULL',
  );
  await db.raw(
    "CREATE INDEX activity_account_security_idx ON activity (account_id, created_at DESC, id DESC) WHERE kind = 'security'",
  );
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX activity_account_security_idx');
  await db.raw('DROP INDEX activity_account_level_idx');
}
