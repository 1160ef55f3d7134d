import { DAY_MS, type RetentionRule } from '../db/index.ts';
import { dayOf } from './days.ts';

// Search data is kept 16 months, the depth search consoles keep (16 months of 30.44 days: 487
// days). Rows go first, found through the per-day table (a workspace's old days, then their
// rows by primary key: no scan of the large table), then the days themselves.
export const SEARCH_DATA_MAX_AGE_MS = 487 * DAY_MS;

/** A table whose rows go with their day: found through search_data_days, deleted by primary key. */
function byDay(table: string, key: string[]): RetentionRule {
  return {
    name: table,
    table,
    column: 'date',
    key,
    maxAgeMs: SEARCH_DATA_MAX_AGE_MS,
    cutoffValue: dayOf,
    where: (q, cutoff) =>
      q.whereIn(['workspace_id', 'date'], (days) => days.from('search_data_days').select('workspace_id', 'date').where('date', '<', cutoff)),
  };
}

export const searchDataRetention: RetentionRule[] = [
  byDay('search_data', ['workspace_id', 'date', 'page']),
  byDay('search_performance', ['workspace_id', 'date', 'page', 'query', 'country', 'device']),
  byDay('search_rollups', ['workspace_id', 'dimension', 'date', 'key']),
  byDay('search_cube', ['workspace_id', 'date', 'country', 'device']),
  {
    name: 'search_data_days',
    table: 'search_data_days',
    column: 'date',
    key: ['workspace_id', 'date'],
    maxAgeMs: SEARCH_DATA_MAX_AGE_MS,
    cutoffValue: dayOf,
  },
];
