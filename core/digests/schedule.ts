// When digests are due (spec/digests.tsp DigestFrequency): 09:00 in the workspace's zone, every
// day or on Mondays, on the slots and claims of core/monitoring, the same mechanism that runs
// each scheduled check once: one claim per workspace and frequency, committed with the job that
// sends that slot's digests. The job's own rows (send.ts) make each member's digest go out once.
import { Workspace, runSql, withTransaction, type Db } from '../db/index.ts';
import { enqueue } from '../jobs/index.ts';
import { claimSlot, claimedSlots, latestSlot, type SlotKind } from '../monitoring/index.ts';
import { nowMs } from '../platform/index.ts';
import { DEFAULT_DIGEST } from './preferences.ts';

export const DIGEST_TIME = '09:00';
export type DigestSchedule = 'daily' | 'weekly';

export interface QueuedDigest {
  workspaceId: string;
  frequency: DigestSchedule;
  slotAt: number;
  jobId: string;
}

const slotKind = (f: DigestSchedule): SlotKind => `digest.${f}`;

/** The period a digest due at `slotAt` is about: from the slot before it up to this one. */
export function digestPeriod(frequency: DigestSchedule, timeZone: string, slotAt: number): { from: number; to: number } {
  return { from: latestSlot(frequency, DIGEST_TIME, timeZone, slotAt - 1), to: slotAt };
}

/**
 * Queues the digests due at `now`: for each workspace with a member who wants a frequency, the
 * newest slot at or before `now`, unless claimed already or before the workspace was created.
 * Only the newest slot counts (a worker that was down sends once, not once per missed slot).
 */
export async function queueDueDigests(db: Db, now: number = nowMs()): Promise<QueuedDigest[]> {
  // Workspaces and the frequencies some member wants (the default counts for members without a row).
  const wanted = await runSql<{ workspace_id: string; digest: string }>(
    db,
    `SELECT DISTINCT m.workspace_id, COALESCE(p.digest, ?) AS digest FROM memberships m
       LEFT JOIN digest_preferences p ON p.workspace_id = m.workspace_id AND p.user_id = m.user_id
      WHERE COALESCE(p.digest, ?) <> 'none'`,
    [DEFAULT_DIGEST, DEFAULT_DIGEST],
  );
  if (wanted.length === 0) return [];
  const ids = [...new Set(wanted.map((w) => w.workspace_id))];
  const workspaces = new Map<string, { timezone: string; created_at: number }>();
  for (let i = 0; i < ids.length; i += 500) {
    for (const w of await Workspace.query(db).whereIn('id', ids.slice(i, i + 500)).select('id', 'timezone', 'created_at')) workspaces.set(w.id, { timezone: w.timezone, created_at: Number(w.created_at) });
  }
  const claimed = await claimedSlots(db, ['digest.daily', 'digest.weekly']);
  const out: QueuedDigest[] = [];
  for (const { workspace_id: id, digest } of wanted) {
    const w = workspaces.get(id);
    if (!w || (digest !== 'daily' && digest !== 'weekly')) continue;
    const frequency: DigestSchedule = digest;
    const slotAt = latestSlot(frequency, DIGEST_TIME, w.timezone, now);
    if (slotAt <= w.created_at || slotAt <= (claimed.get(`${id} ${slotKind(frequency)}`) ?? -Infinity)) continue;
    const jobId = await withTransaction(db, async (trx) => {
      if (!(await claimSlot(trx, id, slotKind(frequency), slotAt, now))) return null;
      return (await enqueue(trx, 'digest', { workspaceId: id, frequency, slotAt }, { workspaceId: id })).id;
    });
    if (jobId) out.push({ workspaceId: id, frequency, slotAt, jobId });
  }
  return out;
}
