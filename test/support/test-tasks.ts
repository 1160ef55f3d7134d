import { setTimeout as sleep } from 'node:timers/promises';
import type { TaskContext } from '../../worker/task.ts';

/**
 * Records a `start` row, optionally sleeps and fails until an attempt, then records a `done` row
 * in `job_test_runs` (a table the tests create), so tests can see which process ran which
 * attempt of which job, and how often.
 */
export async function test_record(payload: { sleepMs?: number; failUntilAttempt?: number }, ctx: TaskContext): Promise<void> {
  const row = { job_id: ctx.job.id, attempt: ctx.job.attempts, pid: process.pid };
  await ctx.db('job_test_runs').insert({ ...row, phase: 'start', at: Date.now() });
  if (payload.sleepMs) await sleep(payload.sleepMs, undefined, { signal: ctx.signal });
  if (payload.failUntilAttempt && ctx.job.attempts < payload.failUntilAttempt) {
    throw new Error(`planned failure on attempt ${ctx.job.attempts}`);
  }
  await ctx.db('job_test_runs').insert({ ...row, phase: 'done', at: Date.now() });
}

/** Does nothing: the queue's own cost. */
export async function noop(): Promise<void> {}

export const testTasks = { test_record, noop };
