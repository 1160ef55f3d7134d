import type { DbOrTrx } from '../db/index.ts';
import { nowMs } from '../platform/index.ts';

/**
 * Cancel queued jobs (by id or by dedupe key), inside the caller's transaction. Running jobs are
 * left alone: their handler decides. Returns how many were cancelled.
 */
export async function cancelJobs(
  trx: DbOrTrx,
  by: { ids?: string[]; dedupeKey?: string; dedupeKeys?: string[]; dedupePrefixes?: string[] },
): Promise<number> {
  if (!by.ids?.length && by.dedupeKey === undefined && !by.dedupeKeys?.length && !by.dedupePrefixes?.length) return 0;
  const now = nowMs();
  const q = trx('jobs').where({ state: 'queued' });
  if (by.ids?.length) q.whereIn('id', by.ids);
  if (by.dedupeKey !== undefined) q.where({ dedupe_key: by.dedupeKey });
  if (by.dedupeKeys?.length) q.whereIn('dedupe_key', by.dedupeKeys);
  if (by.dedupePrefixes?.length) {
    const prefixes = by.dedupePrefixes;
    q.where((w) => {
      // Prefixes are ours (kind and ids): a `_` matching any character can only widen the match to
      // keys of the same shape, which no other kind uses.
      for (const p of prefixes) w.orWhere('dedupe_key', 'like', `${p}%`);
    });
  }
  return q.update({ state: 'cancelled', finished_at: now, updated_at: now, lease_expires_at: null });
}
