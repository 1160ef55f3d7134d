import { DAY_MS, type RetentionRule } from '../db/index.ts';

// Events are kept as long as the deliveries made of them (30 days).
export const eventRetention: RetentionRule[] = [{ name: 'events', table: 'events', column: 'created_at', maxAgeMs: 30 * DAY_MS }];
