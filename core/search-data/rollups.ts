// search_rollups (see its migration): the per-day sums by dimension that search performance reads
// for unfiltered requests, recomputed by SQL for the days a write touched, in the writer's
// transaction (an import, a synced day), from the rows just written.

import type { Knex } from 'knex';

export type RollupDimension = 'total' | 'detail' | 'query' | 'country' | 'device';

const SUMS = `SUM(clicks), SUM(impressions), COALESCE(SUM(CAST(position AS DOUBLE PRECISION) * impressions), 0),
  SUM(CASE WHEN position IS NULL THEN 0 ELSE impressions END)`;

/** Replaces the rollups of `days` for a workspace with sums of what search_data and search_performance now hold. */
export async function rollUp(trx: Knex.Transaction, workspaceId: string, days: string[]): Promise<void> {
  for (let i = 0; i < days.length; i += 100) {
    const chunk = days.slice(i, i + 100);
    const marks = chunk.map(() => '?').join(', ');
    const where = `workspace_id = ? AND date IN (${marks})`;
    await trx.raw(`DELETE FROM search_rollups WHERE ${where}`, [workspaceId, ...chunk]);
    await trx.raw(`DELETE FROM search_cube WHERE ${where}`, [workspaceId, ...chunk]);
    await trx.raw(
      `INSERT INTO search_rollups (workspace_id, dimension, date, key, clicks, impressions, pw, pi)
       SELECT workspace_id, 'total', date, '', ${SUMS} FROM search_data WHERE ${where} GROUP BY workspace_id, date`,
      [workspaceId, ...chunk],
    );
    // `detail`: the day's sums of the detailed rows, the totals of a request by query, country or device.
    await trx.raw(
      `INSERT INTO search_rollups (workspace_id, dimension, date, key, clicks, impressions, pw, pi)
       SELECT workspace_id, 'detail', date, '', ${SUMS} FROM search_performance WHERE ${where} GROUP BY workspace_id, date`,
      [workspaceId, ...chunk],
    );
    for (const d of ['query', 'country', 'device'] as const) {
      await trx.raw(
        `INSERT INTO search_rollups (workspace_id, dimension, date, key, clicks, impressions, pw, pi)
         SELECT workspace_id, '${d}', date, ${d}, ${SUMS} FROM search_performance WHERE ${where} GROUP BY workspace_id, date, ${d}`,
        [workspaceId, ...chunk],
      );
    }
    await trx.raw(
      `INSERT INTO search_cube (workspace_id, date, country, device, clicks, impressions, pw, pi)
       SELECT workspace_id, date, country, device, ${SUMS} FROM search_performance WHERE ${where} GROUP BY workspace_id, date, country, device`,
      [workspaceId, ...chunk],
    );
  }
}

/**
 * Derives every rollup of every workspace again from search_data and search_performance, as
 * rollUp does for some days (bench/search-performance.ts loads rows by COPY, then calls this).
 */
export async function rollUpAll(trx: Knex.Transaction): Promise<void> {
  await trx.raw('DELETE FROM search_rollups');
  await trx.raw('DELETE FROM search_cube');
  await trx.raw(`INSERT INTO search_rollups (workspace_id, dimension, date, key, clicks, impressions, pw, pi)
    SELECT workspace_id, 'total', date, '', ${SUMS} FROM search_data GROUP BY workspace_id, date`);
  await trx.raw(`INSERT INTO search_rollups (workspace_id, dimension, date, key, clicks, impressions, pw, pi)
    SELECT workspace_id, 'detail', date, '', ${SUMS} FROM search_performance GROUP BY workspace_id, date`);
  for (const d of ['query', 'country', 'device'] as const) {
    await trx.raw(`INSERT INTO search_rollups (workspace_id, dimension, date, key, clicks, impressions, pw, pi)
      SELECT workspace_id, '${d}', date, ${d}, ${SUMS} FROM search_performance GROUP BY workspace_id, date, ${d}`);
  }
  await trx.raw(`INSERT INTO search_cube (workspace_id, date, country, device, clicks, impressions, pw, pi)
    SELECT workspace_id, date, country, device, ${SUMS} FROM search_performance GROUP BY workspace_id, date, country, device`);
}
