import { DAY_MS, type RetentionRule } from '../db/index.ts';

// Activity is kept 90 days; security rows (members, roles, keys) are never pruned: an audit
// trail that forgets is no audit trail.
export const activityRetention: RetentionRule[] = [
  { name: 'activity', table: 'activity', column: 'created_at', maxAgeMs: 90 * DAY_MS, where: (q) => q.whereNot('kind', 'security') },
];
