// The soak's report, as Markdown: what ran, what the clients saw, the faults and their timings,
// then each check with its figures and, when it failed, why.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import type { LoadResult, Sample } from './load.ts';
import type { Check, DrainState } from './verify.ts';
import { ROOT } from './stack.ts';

export interface Timeline {
  loadSeconds: number;
  kill: { worker: string; pid: number; atMs: number; jobs: string[]; takenOverMs: number | null } | null;
  restart: { atMs: number; endMs: number; command: string } | null;
  drainMs: number | null;
  drainedState: DrainState | null;
}

export interface ReportInput {
  load: LoadResult;
  timeline: Timeline;
  checks: Check[];
  passed: boolean;
  cluster: string;
  options: { seconds: number; drainSeconds: number; clients: number; rate: number; productionPerSecond: number; sitePages: number };
  apis: Array<{ name: string; pid: number }>;
  /** Each process's log lines at warn and above, counted by message; and its lines that are not JSON. */
  logs: Array<{ name: string; counts: Map<string, number>; other: number }>;
  drained: boolean;
  logsDir: string | null;
}

/**
 * While the database was down, per API process: from the restart's beginning to the end of its
 * first 2xx answer to a request sent after pg_ctl returned. A 503 counts when it was answered
 * after the restart began and its request was sent before the window closed.
 */
export function outageWindows(load: LoadResult, t: Timeline, apiCount: number): Array<{ from: number; to: number }> {
  return Array.from({ length: apiCount }, (_, api) => {
    if (!t.restart) return { from: 0, to: -1 };
    const firstOk = load.samples.filter((x) => x.api === api && typeof x.outcome === 'number' && x.outcome < 300 && x.t > t.restart!.endMs).sort((a, b) => a.t - b.t)[0];
    return { from: t.restart.atMs, to: firstOk ? firstOk.t + firstOk.ms : t.restart.endMs };
  });
}

export function inOutage(x: Sample, w: { from: number; to: number }): boolean {
  return x.outcome === 503 && x.t + x.ms >= w.from && x.t <= w.to;
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function commit(): string {
  try {
    const hash = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'core', 'server', 'worker', 'bench', 'test', ':!bench/results'], { cwd: ROOT, encoding: 'utf8' }).trim();
    return dirty ? `${hash} (with uncommitted changes)` : hash;
  } catch {
    return 'unknown';
  }
}

const label = (o: Sample['outcome']) => String(o);

export function renderReport(r: ReportInput): string {
  const { load, timeline: t } = r;
  const out: string[] = [];
  const seconds = (load.endedAt - load.startedAt) / 1000;
  out.push('# Soak: two API processes and two workers on one PostgreSQL, a worker killed, the database restarted', '');
  out.push(`**${r.passed ? 'PASSED' : 'FAILED'}**: ${r.checks.filter((c) => c.ok).length} of ${r.checks.length} checks hold${r.drained ? '' : '; the queue did not drain in time'}.`, '');
  out.push(
    `Run ${new Date(load.startedAt).toISOString()} at commit ${commit()}; ${r.cluster}; Node ${process.version}; ${os.cpus().length} CPUs (shared). ` +
      `Load ${r.options.seconds} s: ${r.options.clients} clients, ~${r.options.rate} requests/s in all, at most ${r.options.productionPerSecond} new production deploys/s; ` +
      `fixture website of ${r.options.sitePages} pages; SITE_CHECK_DELAY_SECONDS=3, CRAWL_DELAY_SECONDS=6, WEBHOOK_RETRY_SCHEDULE=1,2,3,5,8, JOB_LEASE_MS=10000; ` +
      'the receiver answers 204 after 100 ms, 5% 500 and 3% 503 with Retry-After: 1.',
    '',
  );

  // Requests by status and process
  const outcomes = [...new Set(load.samples.map((x) => label(x.outcome)))].sort();
  out.push('## Requests', '');
  out.push(`${load.samples.length} requests in ${seconds.toFixed(1)} s (${(load.samples.length / seconds).toFixed(0)}/s).`, '');
  out.push(`| status | ${r.apis.map((a) => `${a.name} (pid ${a.pid})`).join(' | ')} | total |`, `|---|${r.apis.map(() => '---:').join('|')}|---:|`);
  for (const o of outcomes) {
    const per = r.apis.map((_, i) => load.samples.filter((x) => x.api === i && label(x.outcome) === o).length);
    out.push(`| ${o} | ${per.join(' | ')} | ${per.reduce((a, b) => a + b, 0)} |`);
  }
  out.push('');
  const ops = [...new Set(load.samples.map((x) => x.op))].sort();
  out.push('| operation | requests | 2xx | 503 | other | p50 ms | p99 ms |', '|---|---:|---:|---:|---:|---:|---:|');
  for (const op of ops) {
    const xs = load.samples.filter((x) => x.op === op);
    const ok = xs.filter((x) => typeof x.outcome === 'number' && x.outcome < 300);
    const u = xs.filter((x) => x.outcome === 503).length;
    out.push(`| ${op} | ${xs.length} | ${ok.length} | ${u} | ${xs.length - ok.length - u} | ${percentile(ok.map((x) => x.ms), 50).toFixed(1)} | ${percentile(ok.map((x) => x.ms), 99).toFixed(1)} |`);
  }
  out.push('');

  // Faults
  out.push('## Faults and timings', '');
  if (t.kill) {
    out.push(
      `- **Worker killed** at ${s(t.kill.atMs)}: \`kill -9\` ${t.kill.worker} (pid ${t.kill.pid}), which held ${t.kill.jobs.length} running jobs (${t.kill.jobs.join(', ') || 'none'}); ` +
        (t.kill.jobs.length ? (t.kill.takenOverMs !== null ? `the other worker took them over ${s(t.kill.takenOverMs)} later (lease 10 s).` : 'they were not taken over during the run.') : 'nothing to take over.'),
    );
  }
  if (t.restart) {
    out.push(`- **PostgreSQL restarted** at ${s(t.restart.atMs)} with \`${t.restart.command}\`; it accepted connections again ${s(t.restart.endMs - t.restart.atMs)} later.`);
    const windows = outageWindows(load, t, r.apis.length);
    r.apis.forEach((a, i) => {
      const u = load.samples.filter((x) => x.api === i && inOutage(x, windows[i]));
      const firstOk = load.samples.filter((x) => x.api === i && typeof x.outcome === 'number' && x.outcome < 300 && x.t > t.restart!.endMs).sort((p, q) => p.t - q.t)[0];
      const span = u.length ? `, answered from ${s(Math.min(...u.map((x) => x.t + x.ms)) - t.restart!.atMs)} to ${s(Math.max(...u.map((x) => x.t + x.ms)) - t.restart!.atMs)} after the restart began, p99 ${percentile(u.map((x) => x.ms), 99).toFixed(0)} ms` : '';
      out.push(`  - ${a.name}: ${u.length} answers 503 \`service_unavailable\` with Retry-After${span}; first 2xx after the restart ${firstOk ? `${s(firstOk.t + firstOk.ms - t.restart!.endMs)} after pg_ctl returned` : 'never'}.`);
    });
  }
  out.push(`- **Load stopped** at ${s(seconds * 1000)}; the queue ${r.drained ? `drained ${s(t.drainMs ?? 0)} later` : `had not drained after ${s(t.drainMs ?? 0)}: ${JSON.stringify(t.drainedState)}`} (every check and crawl ended, every event dispatched and delivered, no job queued or running but the maintenance job).`);
  out.push('');

  // Deploys
  const ledger = [...load.ledger.values()];
  const byEnv = new Map<string, number>();
  for (const a of ledger) byEnv.set(a.environment, (byEnv.get(a.environment) ?? 0) + 1);
  out.push('## Deploys', '');
  out.push(
    `${ledger.length} deploys acknowledged (${[...byEnv].map(([e, n]) => `${n} ${e}`).join(', ')}), ${ledger.reduce((n, a) => n + a.acks, 0)} acknowledgements in all (${ledger.reduce((n, a) => n + a.acks - 1, 0)} updates of an existing deploy).`,
    '',
  );

  out.push('## Process logs (warn and above)', '');
  out.push('| process | lines | messages | not JSON (knex, Node) |', '|---|---:|---|---:|');
  for (const l of r.logs) {
    const total = [...l.counts.values()].reduce((a, b) => a + b, 0);
    const top = [...l.counts].sort((a, b) => b[1] - a[1]).map(([m, n]) => `${n} x ${m}`).join('; ');
    out.push(`| ${l.name} | ${total} | ${top || '-'} | ${l.other} |`);
  }
  out.push('');

  out.push('## Checks', '');
  for (const c of r.checks) {
    out.push(`- **${c.ok ? 'PASS' : 'FAIL'}** ${c.name}`);
    for (const d of c.details) out.push(`  - ${d}`);
  }
  if (r.logsDir) out.push('', `Logs of every process are kept in \`${r.logsDir}\`.`);
  out.push('');
  return out.join('\n');
}
