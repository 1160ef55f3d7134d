import type { DbOrTrx } from '../core/db/index.ts';
import { enqueue, type EnqueueResult } from '../core/jobs/index.ts';

// Exactly one maintenance job per period across all workers: the job for the period starting
// at P has the dedupe key `maintenance:P` and runs at P. Workers only ever enqueue the *next*
// period (ignore on duplicate), when they start, every half period, and when a maintenance job
// ends, so the key of a period that already ran is never enqueued again, and the partial unique
// index lets at most one job per key be queued or running.

export function maintenanceKey(periodStart: number): string {
  return `maintenance:${periodStart}`;
}

export function nextPeriodStart(now: number, periodMs: number): number {
  return (Math.floor(now / periodMs) + 1) * periodMs;
}

export async function scheduleMaintenance(db: DbOrTrx, now: number, periodMs: number): Promise<EnqueueResult> {
  const periodStart = nextPeriodStart(now, periodMs);
  return enqueue(db, 'maintenance', { periodStart }, { runAt: periodStart, dedupeKey: maintenanceKey(periodStart) });
}
