import type { Knex } from 'knex';
import { isPostgres } from '../connection.ts';

// search_rollups: per workspace, day and value of one dimension, the sums GET
// /v1/search-performance reads when a request has no filter narrower than a workspace and period
// (core/search-data/rollups.ts). `dimension` is `total` (key '': the day's totals, from the
// per-page totals in search_data, so anonymized queries and old-style imports count), `detail`
// (key '': the day's sums of its detailed rows), `query`, `country` or `device` (from
// search_performance). `pw` is SUM(position x impressions) and `pi`
// the impressions of the rows that carry a position, so an average position can be summed again.
// Written in the same transaction as the rows they sum (an import, a synced day). The key starts
// (workspace_id, dimension, date): one dimension's period is one contiguous range. No foreign key,
// as search_data (deleting a workspace deletes these explicitly).
export async function up(db: Knex): Promise<void> {
  await db.raw(`CREATE TABLE search_rollups (
    workspace_id ${isPostgres(db) ? 'uuid' : 'char(36)'} NOT NULL,
    dimension text NOT NULL,
    date ${isPostgres(db) ? 'date' : 'text'} NOT NULL,
    clicks bigint NOT NULL,
    impressions bigint NOT NULL,
    pw ${isPostgres(db) ? 'double precision' : 'real'} NOT NULL,
    pi bigint NOT NULL,
    key text NOT NULL,
    PRIMARY KEY (workspace_id, dimension, date, key)
  )${isPostgres(db) ? '' : ' WITHOUT ROWID'}`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('search_rollups');
}
