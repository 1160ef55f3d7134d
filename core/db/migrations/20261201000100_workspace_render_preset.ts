import type { Knex } from 'knex';

// The Lighthouse preset of a workspace's rendered checks (spec/workspaces.tsp RenderPreset),
// read by core/checks when it renders. Existing workspaces keep what their renders used so far:
// Lighthouse's default, mobile.
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('workspaces', (t) => {
    t.string('render_preset', 8).notNullable().defaultTo('mobile');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('workspaces', (t) => {
    t.dropColumn('render_preset');
  });
}
