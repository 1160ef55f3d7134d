import { DAY_MS, type RetentionRule } from '../db/index.ts';

// A digest's row is what its unsubscribe link finds: kept a year, so a year-old digest can still
// unsubscribe. Exactly-once needs no old rows: slots only move forward (core/monitoring).
export const digestRetention: RetentionRule[] = [{ name: 'digests', table: 'digests', column: 'created_at', maxAgeMs: 365 * DAY_MS }];
