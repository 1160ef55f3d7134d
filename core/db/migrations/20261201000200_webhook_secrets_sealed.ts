import type { Knex } from 'knex';
import { loadConfig } from '../../platform/index.ts';
import { Keyring, keyringFor } from '../../secrets/index.ts';

// Webhook signing secrets are sealed at rest with SECRETS_KEY from this release on, like every
// other stored credential (core/webhooks, docs/operating.md#rotating-secrets_key); the rows kept
// so far hold them as they were. Each is sealed in place under the context core/webhooks opens it
// with, so every webhook keeps signing with the same secret. Without SECRETS_KEY nothing can be
// sealed: the migration then stops and changes nothing (docs/operating.md#upgrades), unless no
// webhook holds a secret yet.
export async function up(db: Knex): Promise<void> {
  const rows = (await db('webhooks').select('id', 'secret', 'previous_secret')) as Array<{ id: string; secret: string; previous_secret: string | null }>;
  const plain = (v: string | null): v is string => v !== null && !Keyring.isSealed(v);
  const todo = rows.filter((r) => plain(r.secret) || plain(r.previous_secret));
  if (todo.length === 0) return;
  const keyring = keyringFor(loadConfig());
  if (!keyring.configured) {
    throw new Error(
      `${todo.length} webhook(s) keep a signing secret that this release seals with SECRETS_KEY, which is not set: set it (openssl rand -base64 32) for every process and start again. Nothing was changed (docs/operating.md#upgrades).`,
    );
  }
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
