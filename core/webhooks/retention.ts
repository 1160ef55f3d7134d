import { DAY_MS, type RetentionRule } from '../db/index.ts';

// Deliveries are kept 30 days (docs/operating.md#retention). Attempts go with their message too.
export const webhookRetention: RetentionRule[] = [
  { name: 'webhook_deliveries', table: 'webhook_deliveries', column: 'created_at', maxAgeMs: 30 * DAY_MS },
  { name: 'webhook_messages', table: 'webhook_messages', column: 'created_at', maxAgeMs: 30 * DAY_MS, where: (q) => q.whereNot('state', 'pending') },
];
