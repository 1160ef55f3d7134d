import type { Knex } from 'knex';
import { isPostgres } from '../connection.ts';

// Search performance by date, page, query, country and device (core/search-data), from the
// Search Console sync (core/search-console) and from CSV imports that carry those columns; read by
// GET /v1/search-performance (spec/search-performance.tsp).
//
// search_performance: one row per workspace, date, page, query, country and device. A dimension
// the source did not give is '' (an old-style CSV has no query; Search Console leaves out
// anonymized queries), never null, so the primary key holds it. `country` is ISO 3166-1 alpha-3
// in lower case as Search Console writes it (`usa`), `device` is `desktop`, `mobile` or
// `tablet`. `position` is the average position of the row (impressions weight it when rows are
// summed). As in search_data there is no foreign key (its check would cost more than the insert):
// core/search-data deleteSearchData removes a deleted workspace's rows. The primary key starts
// with (workspace_id, date), the range every read of a period scans. `search_data` keeps the
// per-day-per-page totals that impact, findings' clicks and key pages read ("traffic").
//
// search_console_connections: one per workspace (core/search-console). The refresh token is sealed
// (core/secrets); `auth_state_hash` is the SHA-256 of the single-use `state` of a pending
// authorization. `synced_through` is the newest day the last sync read.
export async function up(db: Knex): Promise<void> {
  const pg = isPostgres(db);
  await db.raw(`CREATE TABLE search_performance (
    workspace_id ${pg ? 'uuid' : 'char(36)'} NOT NULL,
    date ${pg ? 'date' : 'text'} NOT NULL,
    clicks integer NOT NULL,
    impressions integer NOT NULL,
    position real,
    country text NOT NULL,
    device text NOT NULL,
    page text NOT NULL,
    query text NOT NULL,
    PRIMARY KEY (workspace_id, date, page, query, country, device)
  )${pg ? '' : ' WITHOUT ROWID'}`);
  await db.schema.createTable('search_console_connections', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable().unique().references('workspaces.id').onDelete('CASCADE');
    t.string('site_url', 2048).notNullable();
    // pending | connected | revoked | failing
    t.string('state', 16).notNullable();
    t.text('refresh_token');
    t.string('auth_state_hash', 64);
    t.bigInteger('auth_state_expires_at');
    t.bigInteger('connected_at');
    t.bigInteger('last_sync_at');
    t.specificType('synced_through', isPostgres(db) ? 'date' : 'text');
    t.integer('last_sync_rows');
    t.integer('last_sync_ms');
    t.string('last_error', 500);
    t.bigInteger('last_error_at');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['auth_state_hash'], 'search_console_connections_auth_state');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('search_console_connections');
  await db.schema.dropTable('search_performance');
}
