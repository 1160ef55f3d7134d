// Operator commands for the jobs table: `jobs stats`, `jobs list`, `jobs retry`.
import { jobStats, listJobs, retryJob, type JobView, JOB_KINDS, JOB_STATES, isJobKind, isJobState } from '../../core/jobs/index.ts';
import { Conflict, NotFound } from '../../core/platform/index.ts';
import { defineCommand, lines, optional, limitFlag, registerCommand, required, uuid, UsageError, type RegisteredCommand } from '../command.ts';

function jobLine(j: JobView): string {
  const err = j.lastError ? `  ${j.lastError.split('\n')[0].slice(0, 100)}` : '';
  return `${j.id}  ${j.kind.padEnd(16)} ${j.state.padEnd(9)} attempt ${j.attempts}/${j.maxAttempts}  run at ${j.runAt}${err}`;
}

export const jobsStats = defineCommand({
  name: 'jobs stats',
  summary: 'count jobs per state and kind',
  help: `Usage: npm run admin -- jobs stats [--json]

Counts the jobs in the table per state (queued, running, done, failed, cancelled) and per
kind, and shows when the oldest due job was due (a growing lag means the workers do not
keep up).

--json prints {states: {queued, running, done, failed, cancelled}, kinds: {<kind>: {<state>: n}}, oldestDueAt}.`,
  options: {},
  parse: () => ({}),
  run: (db) => jobStats(db),
  json: (r) => r,
  text(r) {
    const rows: Array<[string, string]> = JOB_STATES.map((s) => [s, String(r.states[s])]);
    rows.push(['oldest due', r.oldestDueAt ?? '-']);
    const kinds = Object.entries(r.kinds)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, counts]) => `  ${k}: ${Object.entries(counts).map(([s, n]) => `${s} ${n}`).join(', ')}`);
    return `${lines(rows)}${kinds.length ? `\n\nper kind:\n${kinds.join('\n')}` : ''}`;
  },
});

export const jobsList = defineCommand({
  name: 'jobs list',
  summary: 'list jobs, newest first',
  help: `Usage: npm run admin -- jobs list [--state S] [--kind K] [--limit N] [--json]

  --state S   one of ${JOB_STATES.join(', ')}
  --kind K    one of ${JOB_KINDS.join(', ')}
  --limit N   at most N jobs (1 to 1000, default 50)

--json prints {jobs: [{id, kind, state, payload, attempts, maxAttempts, runAt, lockedBy,
leaseExpiresAt, lastError, dedupeKey, createdAt, updatedAt, startedAt, finishedAt}]}.`,
  options: {
    state: { type: 'string' },
    kind: { type: 'string' },
    limit: { type: 'string' },
  },
  parse(values) {
    const state = optional(values, 'state');
    if (state !== undefined && !isJobState(state)) {
      throw new UsageError(`--state must be one of ${JOB_STATES.join(', ')}, got "${state}"`);
    }
    const kind = optional(values, 'kind');
    if (kind !== undefined && !isJobKind(kind)) throw new UsageError(`--kind must be one of ${JOB_KINDS.join(', ')}, got "${kind}"`);
    const limit = limitFlag(values, 50);
    return { state, kind, limit };
  },
  async run(db, input) {
    return { jobs: await listJobs(db, input) };
  },
  json: (r) => r,
  text(r) {
    return r.jobs.length ? r.jobs.map(jobLine).join('\n') : 'No jobs.';
  },
});

export const jobsRetry = defineCommand({
  name: 'jobs retry',
  summary: 're-queue a failed or cancelled job',
  help: `Usage: npm run admin -- jobs retry --id ID [--json]

Puts a failed or cancelled job back in the queue, due now, with its attempts reset to 0.
Refused (exit 1) for a job in another state, or when another job with the same dedupe key
is queued or running.

  --id ID   job id (UUID), as shown by jobs list

--json prints {id, kind, state, attempts, runAt}.`,
  options: {
    id: { type: 'string' },
  },
  parse(values) {
    return { id: uuid('id', required(values, 'id')) };
  },
  async run(db, input) {
    const r = await retryJob(db, input.id);
    if (!r.ok) {
      if (r.reason === 'not_found') throw new NotFound(r.detail);
      throw new Conflict(r.reason === 'duplicate' ? 'job_duplicate' : 'job_not_retryable', r.detail);
    }
    const { id, kind, state, attempts, runAt } = r.job;
    return { id, kind, state, attempts, runAt };
  },
  json: (r) => r,
  text(r) {
    return `Job ${r.id} (${r.kind}) is ${r.state} again, due ${r.runAt}.`;
  },
});

/** Registered in admin/admin.ts's command table. */
export const jobsCommands: RegisteredCommand[] = [registerCommand(jobsStats), registerCommand(jobsList), registerCommand(jobsRetry)];
