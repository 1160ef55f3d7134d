import type { Knex } from 'knex';
import { isPostgres } from '../connection.ts';

// Search-console data per workspace, date and page (core/search-data), imported by
// `npm run admin -- search import` and kept 16 months.
//
// search_data: one row per workspace, date and page. `date` is a calendar day, `YYYY-MM-DD`:
// a DATE on PostgreSQL (4 bytes; read back as the same string, see connection.ts) and TEXT on
// SQLite, so comparisons, ranges and what is read back are the same on both engines. `page` is
// the URL normalised (core/pages normalizeUrl), the key findings' URLs are matched on;
// `page_given` keeps the URL exactly as the file gave it when normalising changed it (null
// otherwise, which costs nothing). The primary key (workspace_id, date, page) is the index for
// window sums: a 7-day window over every page of a workspace is one range of it, and a page's
// days are direct lookups in it. On SQLite the table is WITHOUT ROWID, clustered on that key, so
// a window is read from one contiguous stretch of the table.
//
// There is deliberately no foreign key here: its check costs about 6 µs a row on PostgreSQL,
// more than the insert itself (1M rows: 3.9 s COPY without, 9.9 s with). The per-day table
// below carries the foreign key, and deleting a workspace deletes its rows here explicitly
// (core/workspaces deleteWorkspace).
//
// search_data_days: one row per workspace and imported date, written by the import in the same
// transaction as the rows: how many rows, their totals (impact reads its window totals here,
// 7 rows instead of 70,000 for a 10,000-page site), and whether the day is provisional (search
// consoles revise their most recent days; impact never uses such a day).
export async function up(db: Knex): Promise<void> {
  if (isPostgres(db)) {
    // Fixed-width columns first (no alignment padding), then the text.
    await db.raw(`CREATE TABLE search_data (
      workspace_id uuid NOT NULL,
      date date NOT NULL,
      clicks integer NOT NULL,
      impressions integer NOT NULL,
      position real,
      ctr real,
      page text NOT NULL,
      page_given text,
      PRIMARY KEY (workspace_id, date, page)
    )`);
  } else {
    await db.raw(`CREATE TABLE search_data (
      workspace_id char(36) NOT NULL,
      date text NOT NULL,
      clicks integer NOT NULL,
      impressions integer NOT NULL,
      position real,
      ctr real,
      page text NOT NULL,
      page_given text,
      PRIMARY KEY (workspace_id, date, page)
    ) WITHOUT ROWID`);
  }
  await db.schema.createTable('search_data_days', (t) => {
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.specificType('date', isPostgres(db) ? 'date' : 'text').notNullable();
    t.integer('row_count').notNullable();
    t.bigInteger('clicks').notNullable();
    t.bigInteger('impressions').notNullable();
    t.boolean('provisional').notNullable();
    t.bigInteger('imported_at').notNullable();
    t.primary(['workspace_id', 'date']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('search_data_days');
  await db.schema.dropTable('search_data');
}
