import type { Knex } from 'knex';

// Idempotent answers are sealed from this release on (core/idempotency, docs/api.md#idempotent-requests):
// the rows kept so far hold answers in plain text, some with a secret shown once (a webhook's or a
// connection's secret). Sealing them needs the API key that sent each request, which is not
// stored, so they are removed: a repeat of a request answered before the upgrade runs again.
// While servers of the previous release still run (docs/operating.md#upgrades), a repeat on a new
// server of a request one of them answered is 409 idempotency_key_reused: nothing runs twice.
export async function up(db: Knex): Promise<void> {
  await db.raw('DELETE FROM idempotency_keys');
}

export async function down(): Promise<void> {
  // Nothing to restore: the removed answers were meant to be gone.
}
