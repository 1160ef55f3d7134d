import type { Knex } from 'knex';

// What a check saw of the site as a whole (core/findings/site-kinds.ts SiteFacts: the
// certificate's expiry, robots.txt's text, the sitemap's URLs), JSON text, so the next check can
// tell what changed with no deploy behind it.
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('site_checks', (t) => {
    t.text('site');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('site_checks', (t) => {
    t.dropColumn('site');
  });
}
