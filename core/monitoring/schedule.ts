import { Workspace, runSql, withTransaction, type Db, type DbOrTrx } from '../db/index.ts';
import { queueCheckNow } from '../checks/index.ts';
import { queueCrawlNow } from '../crawls/index.ts';
import { nowMs } from '../platform/index.ts';
import { queueSync, syncableConnections } from '../search-console/index.ts';
import { latestSlot, type SlotSchedule } from './slots.ts';

/** `search`: a Search Console sync (spec/search-console.tsp). */
export type RunKind = 'check' | 'crawl' | 'search';

/** When the daily Search Console sync of every connected workspace is due (UTC): Google has yesterday's first figures by then. */
export const SEARCH_SYNC_TIME = '05:00';

/** What a slot is claimed for: a workspace's scheduled check or crawl, or its digests (core/digests). */
export type SlotKind = RunKind | 'digest.daily' | 'digest.weekly';

export interface ScheduledRun {
  workspaceId: string;
  kind: RunKind;
  /** The slot it runs for (epoch ms). */
  slotAt: number;
  /** The check or crawl that serves it: a new one, or one already queued to run now (for a sync: its job). */
  runId: string;
}

/**
 * Claims a slot for one workspace and kind: a conditional upsert that only moves the row forward,
 * so of any number of workers evaluating the same slot exactly one gets the row back (PostgreSQL
 * makes the others wait for its commit and then see the newer slot; SQLite has one writer).
 */
export async function claimSlot(trx: DbOrTrx, workspaceId: string, kind: SlotKind, slotAt: number, now: number): Promise<boolean> {
  const rows = await runSql<{ slot_at: number }>(
    trx,
    `INSERT INTO monitor_slots (workspace_id, kind, slot_at, claimed_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (workspace_id, kind) DO UPDATE SET slot_at = excluded.slot_at, claimed_at = excluded.claimed_at
     WHERE monitor_slots.slot_at < excluded.slot_at
     RETURNING slot_at`,
    [workspaceId, kind, slotAt, now],
  );
  return rows.length === 1;
}

/**
 * The slots claimed already, keyed `<workspaceId> <kind>`, in one read: most ticks find nothing
 * new and write nothing.
 */
export async function claimedSlots(db: DbOrTrx, kinds: SlotKind[]): Promise<Map<string, number>> {
  const claimed = new Map<string, number>();
  const rows = await runSql<{ workspace_id: string; kind: string; slot_at: number }>(db, `SELECT workspace_id, kind, slot_at FROM monitor_slots WHERE kind IN (${kinds.map(() => '?').join(', ')})`, kinds);
  for (const r of rows) claimed.set(`${r.workspace_id} ${r.kind}`, Number(r.slot_at));
  return claimed;
}

/**
 * Queues the scheduled checks, crawls and Search Console syncs that are due at `now`: for each workspace whose schedule
 * is on, the newest slot at or before `now`, unless it was claimed already or comes before the
 * schedule was set (or the workspace created). Only the newest slot counts, so a worker that was
 * down catches up once, not once per missed slot. The claim and the queued run commit together.
 * Returns what this call queued (another worker's claims are not in it).
 */
export async function runSchedules(db: Db, now: number = nowMs()): Promise<ScheduledRun[]> {
  const workspaces = await Workspace.query(db)
    .where((w) => w.whereNot('check_schedule', 'off').orWhereNot('crawl_schedule', 'off'))
    .select('id', 'timezone', 'check_schedule', 'check_time', 'crawl_schedule', 'created_at', 'schedule_changed_at');
  const claimed = await claimedSlots(db, ['check', 'crawl', 'search']);
  const out: ScheduledRun[] = [];
  for (const w of workspaces) {
    const since = Math.max(Number(w.created_at), Number(w.schedule_changed_at ?? 0));
    const due: Array<[RunKind, SlotSchedule]> = [];
    if (w.check_schedule !== 'off') due.push(['check', w.check_schedule]);
    if (w.crawl_schedule !== 'off') due.push(['crawl', 'weekly']);
    for (const [kind, schedule] of due) {
      const slotAt = latestSlot(schedule, w.check_time, w.timezone, now);
      if (slotAt <= since || slotAt <= (claimed.get(`${w.id} ${kind}`) ?? -Infinity)) continue;
      const run = await withTransaction(db, async (trx) => {
        if (!(await claimSlot(trx, w.id, kind, slotAt, now))) return null;
        // A check or crawl already queued to run now (manual, or a slot before) serves this one too.
        return kind === 'check' ? (await queueCheckNow(trx, w.id, 'schedule')).check.id : (await queueCrawlNow(trx, w.id, 'schedule')).crawl.id;
      });
      if (run) out.push({ workspaceId: w.id, kind, slotAt, runId: run });
    }
  }
  // Search Console syncs: one slot a day for every connection that can sync, claimed like the others.
  const searchSlot = latestSlot('daily', SEARCH_SYNC_TIME, 'UTC', now);
  for (const c of await syncableConnections(db)) {
    if (searchSlot <= c.since || searchSlot <= (claimed.get(`${c.workspaceId} search`) ?? -Infinity)) continue;
    const job = await withTransaction(db, async (trx) => {
      if (!(await claimSlot(trx, c.workspaceId, 'search', searchSlot, now))) return null;
      return queueSync(trx, { id: c.id, workspace_id: c.workspaceId });
    });
    if (job) out.push({ workspaceId: c.workspaceId, kind: 'search', slotAt: searchSlot, runId: job });
  }
  return out;
}
