// Helpers shared by the jobs tests (test/jobs-*.test.ts).
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import type { Db, Job } from '../../core/db/index.ts';
import { Runner, type RunnerOptions } from '../../worker/runner.ts';
import { tasks } from '../../worker/tasks/index.ts';
import { testTasks } from './test-tasks.ts';

/** A logger that keeps its JSON lines in memory. */
export function memoryLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

export function testRunner(db: Db, o: Partial<RunnerOptions> = {}): Runner {
  return new Runner({
    db,
    tasks: { ...testTasks, ...tasks },
    logger: o.logger ?? memoryLogger().logger,
    concurrency: 4,
    pollMs: 60_000,
    leaseMs: 30_000,
    heartbeatMs: 10_000,
    maintenancePeriodMs: null,
    ...o,
  });
}

/** The table the `test_record` task writes to. */
export async function createTestRunsTable(db: Db): Promise<void> {
  await db.schema.createTable('job_test_runs', (t) => {
    t.increments('n');
    t.string('job_id', 64).notNullable();
    t.integer('attempt').notNullable();
    t.integer('pid').notNullable();
    t.string('phase', 8).notNullable();
    t.bigInteger('at').notNullable();
  });
}

export async function waitFor<T>(what: string, fn: () => Promise<T | false | null | undefined>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export type JobRowForTests = Omit<Job, 'payload'> & { payload: string };

export async function jobRow(db: Db, id: string): Promise<JobRowForTests> {
  const row = (await db('jobs').where({ id }).first()) as JobRowForTests | undefined;
  if (!row) throw new Error(`no job ${id}`);
  return { ...row, attempts: Number(row.attempts), max_attempts: Number(row.max_attempts), run_at: Number(row.run_at) };
}
