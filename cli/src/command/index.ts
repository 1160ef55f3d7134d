// The `sitehealth` command line (bin/sitehealth.mjs; bin/sitehealth-deploy.mjs is `sitehealth
// deploy`). Arguments are parsed by commander; the work is `recordDeploy`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_BASE_URL, MAX_CHANGES, MAX_SIGNALS_PER_CHANGE, SiteHealthError, type Severity } from '@sitehealth/sdk';
import {
  DeployConfigError,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_WAIT_TIMEOUT_MS,
  SEVERITIES,
  recordDeploy,
  type DeployProgress,
  type RecordDeployResult,
} from '../deploy.js';
import { VERSION } from '../version.js';
import { formatFindings } from './format.js';
import { doctorAction, type DoctorFlags } from './doctor.js';
import { Progress, formatDuration, makeOut, type CliIO, type Out } from './output.js';

export type { CliIO } from './output.js';

/**
 * Exit codes of `sitehealth deploy`. 1 is what Node, `npx` or a bug exits with, so a verdict on
 * the deploy (a gate, a timeout) is never confused with a broken step.
 */
export const EXIT_CODES = {
  /** Recorded; with --wait, the check finished and no finding reached --fail-on. Also a dry run. */
  ok: 0,
  /** An unexpected failure (a bug, Node, `npx`): never a verdict on the deploy. */
  unexpected: 1,
  /** Bad usage or configuration, found before or by the API: a flag, a date, a base the clone lacks, no key or a key the API refuses, a workspace it cannot see, a value it rejects, --wait on a named non-production deploy, a key without `search`. Nothing was recorded. */
  usage: 2,
  /** Recording failed: the API could not be reached or could not serve (after retries). */
  recordFailed: 3,
  /** --wait: the site check did not finish within --timeout. The deploy is recorded. */
  timeout: 4,
  /** --fail-on: findings at or above that severity appeared, or, for a first check with nothing to compare with, issues at or above it. */
  gateFailed: 5,
  /** --wait: the website did not answer (no page of the check did), the site check itself failed, or the deploy could not be read back. */
  checkFailed: 6,
} as const;

/** `90`, `90s`, `15m`, `1h30m`, `500ms` -> milliseconds. */
export function parseDuration(text: string): number {
  const t = String(text).trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/gy;
  let ms = 0;
  let matched = 0;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    ms += Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
    matched = re.lastIndex;
  }
  if (t === '' || matched !== t.length) throw new InvalidArgumentError(`"${text}" is not a duration (e.g. 90s, 15m, 1h)`);
  return Math.round(ms);
}

function durationOption(value: string): number {
  const ms = parseDuration(value);
  if (ms <= 0) throw new InvalidArgumentError('must be more than zero');
  return ms;
}

interface DeployFlags {
  commit?: string;
  sha?: string;
  ref?: string;
  base?: string;
  environment?: string;
  message?: string;
  deployedAt?: string;
  workspace?: string;
  url?: string;
  cwd?: string;
  changedFilesFrom?: string;
  dryRun?: boolean;
  wait?: boolean;
  failOn?: Severity;
  skipPreviews?: boolean;
  timeout?: number;
  pollInterval?: number;
  json?: boolean;
}

const DEPLOY_HELP = `
Where it runs: the CI service (GitHub Actions, GitLab CI, CircleCI, and the others env-ci
knows) names the commit, the branch or tag and the base commit; flags win over SITEHEALTH_COMMIT,
SITEHEALTH_REF, SITEHEALTH_BASE and SITEHEALTH_ENVIRONMENT, which win over detection.

The environment: --environment, then SITEHEALTH_ENVIRONMENT, then the CI context: a pull or
merge request is "preview" (--skip-previews records nothing for one); GitLab's
CI_ENVIRONMENT_NAME, a GitHub deployment event's environment, VERCEL_ENV and Netlify's CONTEXT
are used as they are; otherwise production. Only production deploys are checked: with --wait, a
deploy the CI context puts elsewhere is recorded and nothing is waited for.

What is sent: the commit, ref, environment, and for each file changed between the base and the
commit (git diff) its path, category and SEO signals (kind, added or removed, line number).
Never a line of code. At most ${MAX_CHANGES} files and ${MAX_SIGNALS_PER_CHANGE} signals per file, with a warning past either.
A shallow clone without the base records the deploy without changes and warns.

Environment:
  SITEHEALTH_API_KEY       the API key (scopes: deploys; deploys and search with --wait).
                           Read from the environment only, never printed.
  SITEHEALTH_URL           the API's base URL (default ${DEFAULT_BASE_URL})
  SITEHEALTH_WORKSPACE_ID  the workspace (not needed with a key bound to one)

Exit codes:
  0  recorded (with --wait: the check finished; nothing reached --fail-on); a dry run; skipped
  2  usage or configuration error (a flag, a date, an unknown --base, the key, the
     workspace, a value the API refuses); nothing was recorded
  3  recording failed: the API could not be reached or could not serve (after retries)
  4  --wait: the site check did not finish within --timeout
  5  --fail-on: findings at or above that severity appeared, or, for a first check with
     nothing to compare with, issues at or above it
  6  --wait: the website did not answer (no page of the check did), the site check failed,
     or the deploy could not be read back
  1  an unexpected failure (a bug, Node, npx): never a verdict on the deploy

Examples:
  sitehealth deploy                              # in CI: detect everything, record
  sitehealth deploy --wait --fail-on high        # and fail the build on high or critical findings
  sitehealth deploy --dry-run                    # print the body, send nothing
`;

type Prepared = Extract<DeployProgress, { type: 'prepared' }>;

function describeCi(p: Prepared): string {
  const ci = p.ci;
  const where = ci.providerName ?? (ci.isCi ? 'CI' : 'local');
  const parts = [`${where}: commit ${p.body.commitSha.slice(0, 12)}`];
  if (p.body.ref) parts.push(`on ${p.body.ref}`);
  if (p.body.environment) parts.push(`to ${p.body.environment}${ci.environmentSource && ci.environmentSource !== 'option' ? ` (${ci.environmentSource})` : ''}`);
  parts.push(ci.base ? `compared with ${ci.base.slice(0, 12)} (${ci.baseSource})` : 'no base commit');
  return parts.join(', ');
}

function describeChanges(p: Prepared): string {
  const changes = p.body.changes;
  if (!changes) return 'No changes sent.';
  const signals = changes.reduce((n, c) => n + (c.signals?.length ?? 0), 0);
  const capped = p.totalFiles > changes.length ? ` (of ${p.totalFiles} changed)` : '';
  return `${changes.length} changed file${changes.length === 1 ? '' : 's'}${capped}, ${signals} signal${signals === 1 ? '' : 's'}: only paths, categories, signal kinds and line numbers are sent.`;
}

async function deployAction(flags: DeployFlags, io: CliIO, out: Out): Promise<number> {
  const env = io.env;
  /** A failure before a verdict: one line on stderr and, with --json, one JSON object on stdout. */
  const fail = (exitCode: number, message: string, code?: string): number => {
    out.err(`sitehealth: ${message}`);
    if (flags.json) out.raw(`${JSON.stringify({ outcome: 'error', exitCode, error: { message, code: code ?? null } })}\n`);
    return exitCode;
  };
  if (flags.timeout !== undefined && !flags.wait) out.err('warning: --timeout applies only with --wait; ignored');
  let changedPaths: string[] | undefined;
  if (flags.changedFilesFrom !== undefined) {
    const from = flags.changedFilesFrom;
    try {
      changedPaths = readFileSync(from === '-' ? 0 : path.resolve(io.cwd, from), 'utf8').split(/\r?\n/);
    } catch (err) {
      return fail(EXIT_CODES.usage, `cannot read ${from}: ${(err as Error).message}`);
    }
  }

  const progress = new Progress(io, out);
  // With --json, stdout carries the JSON alone.
  const say = flags.json ? out.err : out.out;
  let waitStarted = 0;
  const onProgress = (e: DeployProgress) => {
    if (e.type === 'warning') progress.line(`warning: ${e.message}`);
    else if (e.type === 'prepared') {
      out.err(describeCi(e));
      out.err(describeChanges(e));
    } else if (e.type === 'recorded') {
      const n = e.deploy.changes.length;
      say(`Recorded deploy ${e.deploy.id} (${e.deploy.environment} ${e.deploy.commitSha.slice(0, 12)}, ${n} change${n === 1 ? '' : 's'})`);
      if (flags.wait) {
        waitStarted = Date.now();
        out.err(`Waiting for the site check (at most ${formatDuration(flags.timeout ?? DEFAULT_WAIT_TIMEOUT_MS)})...`);
        progress.start('site check: waiting', waitStarted);
      }
    } else if (e.type === 'check') {
      const what = e.state === 'pending' ? 'not scheduled yet' : e.state;
      progress.line(`site check ${what} (${formatDuration(Date.now() - waitStarted)})`);
      progress.update(`site check ${what}`);
    } else if (e.type === 'poll_error') {
      progress.line(`warning: reading the deploy failed (${e.error.message}); trying again`);
    }
  };

  const apiKey = env.SITEHEALTH_API_KEY?.trim() || undefined;
  let result: RecordDeployResult;
  try {
    result = await recordDeploy({
      apiKey,
      baseUrl: flags.url ?? (env.SITEHEALTH_URL?.trim() || undefined),
      cwd: flags.cwd ? path.resolve(io.cwd, flags.cwd) : io.cwd,
      env,
      commit: flags.commit ?? flags.sha,
      ref: flags.ref,
      base: flags.base,
      environment: flags.environment,
      message: flags.message,
      deployedAt: flags.deployedAt,
      workspaceId: flags.workspace,
      changedPaths,
      dryRun: flags.dryRun,
      wait: flags.wait,
      failOn: flags.failOn,
      skipPreviews: flags.skipPreviews,
      timeoutMs: flags.timeout,
      pollIntervalMs: flags.pollInterval ?? DEFAULT_POLL_INTERVAL_MS,
      onProgress,
    });
  } catch (err) {
    progress.stop();
    if (err instanceof DeployConfigError) {
      const api = err.cause instanceof SiteHealthError ? err.cause.code : undefined;
      return fail(EXIT_CODES.usage, err.message, api ?? 'configuration');
    }
    if (err instanceof SiteHealthError) return fail(EXIT_CODES.recordFailed, `recording the deploy failed: ${err.message}`, err.code);
    throw err;
  }
  progress.stop();

  if (result.outcome === 'skipped') {
    say(`Skipped: ${result.reason}`);
    if (flags.json) out.raw(`${JSON.stringify({ outcome: result.outcome, exitCode: EXIT_CODES.ok, reason: result.reason, warnings: result.warnings })}\n`);
    return EXIT_CODES.ok;
  }
  if (result.outcome === 'dry_run') {
    out.err('Dry run: nothing was sent. The body:');
    out.raw(`${JSON.stringify(result.body, null, 2)}\n`);
    return EXIT_CODES.ok;
  }

  const code = exitCodeOf(result);
  if (flags.wait) {
    const check = result.detail?.siteCheck ?? null;
    if (result.outcome === 'timed_out') {
      out.err(`sitehealth: timed out after ${formatDuration(result.waitedMs)}: the site check is ${check ? check.state : 'not scheduled yet'}`);
    } else if (result.outcome === 'wait_failed') {
      out.err(`sitehealth: reading the deploy back failed: ${result.error?.message ?? 'unknown error'}`);
    } else if (result.outcome === 'check_failed' || result.outcome === 'site_unreachable') {
      out.err(`sitehealth: ${result.reason}`);
    } else if (!flags.json && result.detail) {
      for (const l of formatFindings(result.findings, result.failing, flags.failOn, { baseline: result.detail.baseline !== null, issues: result.detail.issues ?? [], failingIssues: result.failingIssues })) out.out(l);
      if (result.outcome === 'gate_failed') out.err(`sitehealth: failing: ${result.reason}`);
    }
  }
  if (flags.json) {
    const check = result.detail?.siteCheck ?? null;
    out.raw(`${JSON.stringify({
      outcome: result.outcome,
      exitCode: code,
      deploy: result.deploy,
      siteCheck: check && { id: check.id, state: check.state, error: check.error, finishedAt: check.finishedAt },
      findings: result.findings,
      failing: result.failing,
      failingIssues: result.failingIssues,
      reason: result.reason ?? null,
      warnings: result.warnings,
    })}\n`);
  }
  return code;
}

export function exitCodeOf(result: RecordDeployResult): number {
  switch (result.outcome) {
    case 'gate_failed':
      return EXIT_CODES.gateFailed;
    case 'timed_out':
      return EXIT_CODES.timeout;
    case 'check_failed':
    case 'site_unreachable':
    case 'wait_failed':
      return EXIT_CODES.checkFailed;
    default:
      return EXIT_CODES.ok;
  }
}

function buildProgram(io: CliIO, out: Out, setCode: (code: number) => void): Command {
  const program = new Command('sitehealth')
    .description('The sitehealth command line: record deploys from CI and gate builds on their site check.')
    .version(VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(out.redact(s)), writeErr: (s) => io.stderr.write(out.redact(s)) })
    .showHelpAfterError('(run with --help for usage)');

  program
    .command('deploy')
    .description('Record a deploy with its changed files, their categories and SEO signals; optionally wait for its site check and fail on findings.')
    .option('--commit <sha>', 'the commit deployed (default: SITEHEALTH_COMMIT, the CI\'s commit, HEAD)')
    .addOption(new Option('--sha <sha>', 'the same as --commit').hideHelp())
    .option('--ref <ref>', 'branch or tag (default: SITEHEALTH_REF, detected)')
    .option('--base <rev>', 'the commit to diff against (default: SITEHEALTH_BASE, the push\'s before, the pull request\'s base, the parent)')
    .option('-e, --environment <name>', 'the deploy\'s environment (default: SITEHEALTH_ENVIRONMENT, else production; only production is checked)')
    .option('-m, --message <text>', 'a message (release notes, commit subject); never read from git')
    .option('--deployed-at <iso>', 'when it went live, ISO 8601 with an offset (default: now)')
    .option('-w, --workspace <id>', 'the workspace (default: SITEHEALTH_WORKSPACE_ID; not needed with a key bound to one)')
    .option('--url <url>', `the API's base URL (default: SITEHEALTH_URL, else ${DEFAULT_BASE_URL})`)
    .option('-C, --cwd <dir>', 'the repository (default: the current folder)')
    .option('--changed-files-from <file>', 'changed paths, one per line ("-": stdin), instead of git diff: categories only, no signals')
    .option('--dry-run', 'print the body that would be sent, and send nothing (needs no key)')
    .option('--wait', 'wait for the deploy\'s site check and print its findings (the key needs the search scope)')
    .option('--skip-previews', 'record nothing for a pull or merge request build (exit 0)')
    .addOption(new Option('--fail-on <severity>', 'with --wait: exit 5 when findings at or above this severity appear, or issues of a first check with no baseline (implies --wait)').choices(SEVERITIES).implies({ wait: true }))
    .addOption(new Option('--timeout <duration>', 'with --wait: give up after this long (exit 4), e.g. 90s, 15m, 1h (default: 15m)').argParser(durationOption))
    .addOption(new Option('--poll-interval <duration>', 'with --wait: time between reads of the deploy (default: 5s)').argParser(durationOption))
    .option('--json', 'print the result as one JSON object on stdout')
    .addHelpText('after', DEPLOY_HELP)
    .action(async (flags: DeployFlags) => {
      setCode(await deployAction(flags, io, out));
    });

  program
    .command('doctor')
    .description('Check the key, its scopes, the workspace and the git state in one go; records nothing. Exit 0 when all is well, 2 otherwise.')
    .option('-w, --workspace <id>', 'the workspace (default: SITEHEALTH_WORKSPACE_ID)')
    .option('--url <url>', `the API's base URL (default: SITEHEALTH_URL, else ${DEFAULT_BASE_URL})`)
    .option('-C, --cwd <dir>', 'the repository (default: the current folder)')
    .option('--base <rev>', 'the commit deploys will be compared with (default: as `deploy` detects it)')
    .option('--json', 'print {ok, checks: [{name, ok, detail}]} on stdout')
    .action(async (flags: DoctorFlags) => {
      setCode(await doctorAction(flags, io, out));
    });

  return program;
}

/**
 * Runs the command line with `argv` (without `node` and the script) and returns the exit code.
 * Nothing it prints contains `SITEHEALTH_API_KEY`.
 */
export async function run(argv: readonly string[], io: Partial<CliIO> = {}): Promise<number> {
  const full: CliIO = {
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    env: io.env ?? process.env,
    cwd: io.cwd ?? process.cwd(),
  };
  const out = makeOut(full, [full.env.SITEHEALTH_API_KEY, full.env.SITEHEALTH_API_KEY?.trim()]);
  let code: number = EXIT_CODES.ok;
  const program = buildProgram(full, out, (c) => (code = c));
  if (argv.length === 0) {
    program.outputHelp({ error: true });
    return EXIT_CODES.usage;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT_CODES.ok;
      return EXIT_CODES.usage;
    }
    out.err(`sitehealth: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return EXIT_CODES.unexpected;
  }
}
