import type { Knex } from 'knex';
import { loadConfig } from '../../platform/index.ts';
import { Keyring, keyringFor } from '../../secrets/index.ts';

// Webhook signing secrets are sealed at rest with SECRETS_KEY from this release on when it is set,
// like every other stored credential (core/webhooks, docs/operating.md#rotating-secrets_key); the
// rows kept so far hold them as they were. Each is sealed in place under the context core/webhooks
// opens it with, so every webhook keeps signing with the same secret. Without SECRETS_KEY the rows
// are left as they are (core/webhooks reads both shapes; `secrets reseal` seals them once a key
// is set), so an upgrade never refuses to start (docs/operating.md#upgrades).
export async function up(db: Knex): Promise<void> {
  const keyring = keyringFor(loadConfig());
  if (!keyring.configured) return;
  const rows = (await db('webhooks').select('id', 'secret', 'previous_secret')) as Array<{ id: string; secret: string; previous_secret: string | null }>;
  const plain = (v: string | null): v is string => v !== null && !Keyring.isSealed(v);
  const todo = rows.filter((r) => plain(r.secret) || plain(r.previous_secret));
  for (const r of todo) {
    const seal = (v: string | null, column: 'secret' | 'previous_secret') => (plain(v) ? keyring.seal(v, `webhooks/${r.id}/${column}`) : v);
    await db('webhooks')
      .where({ id: r.id })
      .update({ secret: seal(r.secret, 'secret'), previous_secret: seal(r.previous_secret, 'previous_secret') });
  }
}

export async function down(): Promise<void> {
  // Nothing to undo: sealed secrets stay sealed (migrations are not rolled back in production).
}
