import type { Knex } from 'knex';
import { isPostgres } from '../connection.ts';

// Two read paths of GET /v1/search-performance for filtered requests (core/search-data/performance.ts),
// measured by bench/search-performance.ts:
//
// search_cube: per workspace, day, country and device, the sums of the detailed rows (pw and pi
// as in search_rollups). A request whose filters and dimension are only country, device and date
// reads it (a few dozen rows a day) instead of every detailed row of the period. Written by
// core/search-data/rollups.ts in the same transaction as the rows it sums; no foreign key, as
// search_data.
//
// search_performance_query: the detailed rows of one query in date order, carrying the sums and
// the country and device, so a query filter reads that query's rows only (on PostgreSQL an
// index-only scan unless a page filter needs the row).
export async function up(db: Knex): Promise<void> {
  await db.raw(`CREATE TABLE search_cube (
    workspace_id ${isPostgres(db) ? 'uuid' : 'char(36)'} NOT NULL,
    date ${isPostgres(db) ? 'date' : 'text'} NOT NULL,
    country text NOT NULL,
    device text NOT NULL,
    clicks bigint NOT NULL,
    impressions bigint NOT NULL,
    pw ${isPostgres(db) ? 'double precision' : 'real'} NOT NULL,
    pi bigint NOT NULL,
    PRIMARY KEY (workspace_id, date, country, device)
  )${isPostgres(db) ? '' : ' WITHOUT ROWID'}`);
  if (isPostgres(db)) {
    await db.raw('CREATE INDEX search_performance_query ON search_performance (workspace_id, query, date) INCLUDE (country, device, clicks, impressions, position)');
  } else {
    await db.raw('CREATE INDEX search_performance_query ON search_performance (workspace_id, query, date)');
  }
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX search_performance_query');
  await db.schema.dropTable('search_cube');
}
