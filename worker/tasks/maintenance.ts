import { applyRetention, Job } from '../../core/db/index.ts';
import { maintenanceKey, scheduleMaintenance } from '../maintenance.ts';
import { retentionRules } from '../retention.ts';
import type { TaskHandler } from '../task.ts';

/** Retention of every domain (worker/retention.ts) and of finished jobs; then schedules the next period. */
export const maintenance: TaskHandler<'maintenance'> = async (payload, ctx) => {
  // A clock far off on some worker could enqueue a period again after it ran: run it once.
  const ran = await Job.query(ctx.db).where({ dedupe_key: maintenanceKey(payload.periodStart), state: 'done' }).select('id').first();
  if (ran) {
    ctx.logger.info({ periodStart: payload.periodStart }, 'maintenance already ran for this period');
  } else {
    const results = await applyRetention(ctx.db, { now: ctx.now(), rules: retentionRules, signal: ctx.signal });
    ctx.logger.info({ retention: results }, 'retention applied');
  }
  await scheduleMaintenance(ctx.db, ctx.now(), ctx.config.worker.maintenancePeriodMs);
};
