import type { DbOrTrx } from '../db/index.ts';
import { nowMs } from '../platform/index.ts';

/**
 * Cancel queued jobs (by id or by dedupe key), inside the caller's transaction. Running jobs are
 * left alone: their handler decides. Returns how many were cancelled.
 */
export async function cancelJobs(trx: DbOrTrx, by: { ids?: string[]; dedupeKey?: string }): Promise<number> {
  if (!by.ids?.length && by.dedupeKey === undefined) return 0;
  const now = nowMs();
  const q = trx('jobs').where({ state: 'queued' });
  if (by.ids?.length) q.whereIn('id', by.ids);
  if (by.dedupeKey !== undefined) q.where({ dedupe_key: by.dedupeKey });
  return q.update({ state: 'cancelled', finished_at: now, updated_at: now, lease_expires_at: null });
}
