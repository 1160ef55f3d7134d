// Recording a deploy from CI: where it runs, what changed (paths, categories and signals from
// `git diff`, never code), the `POST /v1/deploys` call, and optionally waiting for the deploy's
// site check and judging its findings. `sitehealth deploy` is a thin layer over `recordDeploy`.
import { createClient, NotFoundError, SiteHealthError, ApiError, ConnectionError, RateLimitError, MAX_CHANGES, type SiteHealth } from '@sitehealth/sdk';
import type { ChangeInput, Deploy, DeployCreate, DeployDetail, DeployFinding, PageRecord, RunState, Severity, SiteCheck, SiteCheckIssue } from '@sitehealth/sdk';
import { CATEGORY_PRIORITY, categorize, normalizePath } from '@sitehealth/sdk/signals';
import { buildDeployBody } from './body.js';
import { changesFromGit } from './changes-from-git.js';
import { resolveCommit } from './git.js';
import { detectCi, type CiInfo } from './provider.js';
import { VERSION } from './version.js';


/**
 * Maps changed file paths (e.g. from `git diff --name-only`) to `{path, category}` changes with
 * the heuristic of `categorize` (the table in `ci/categorize.ts`). Blank lines and duplicates are
 * dropped, `./` prefixes and `\` separators normalized. At most `MAX_CHANGES` (500) come back: when there
 * are more, those whose category is most likely to explain a regression (robots, sitemap,
 * redirects, headers, routing, templates, pages, ... tests last) are kept, in input order.
 */
export function changesFromPaths(paths: readonly string[]): ChangeInput[] {
  const seen = new Set<string>();
  const changes: ChangeInput[] = [];
  for (const raw of paths) {
    const path = normalizePath(raw);
    if (!path || seen.has(path)) continue;
    seen.add(path);
    changes.push({ path, category: categorize(path) });
  }
  if (changes.length <= MAX_CHANGES) return changes;
  const rank = (c: ChangeInput) => CATEGORY_PRIORITY.indexOf(c.category);
  const kept = new Set(
    changes
      .map((c, i) => ({ c, i }))
      .sort((a, b) => rank(a.c) - rank(b.c) || a.i - b.i)
      .slice(0, MAX_CHANGES)
      .map(({ c }) => c),
  );
  return changes.filter((c) => kept.has(c));
}

// ---------------------------------------------------------------------------------------------
// Severities and the gate.

/** Most severe first. */
export const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low'];

export function isSeverity(v: unknown): v is Severity {
  return typeof v === 'string' && (SEVERITIES as readonly string[]).includes(v);
}

/** The findings at or above `failOn` (`high` takes `critical` and `high`), most severe first. */
export function findingsAtOrAbove<F extends { severity: Severity }>(findings: readonly F[], failOn: Severity): F[] {
  const limit = SEVERITIES.indexOf(failOn);
  return sortBySeverity(findings.filter((f) => SEVERITIES.indexOf(f.severity) <= limit));
}

export function sortBySeverity<F extends { severity: Severity }>(findings: readonly F[]): F[] {
  return findings.map((f, i) => ({ f, i })).sort((a, b) => SEVERITIES.indexOf(a.f.severity) - SEVERITIES.indexOf(b.f.severity) || a.i - b.i).map(({ f }) => f);
}

// ---------------------------------------------------------------------------------------------
// Waiting for a deploy's site check.

/** What `waitForSiteCheck` and `recordDeploy` report as they go. */
export type DeployProgress =
  | { type: 'warning'; message: string }
  /** The body is ready (before anything is sent). */
  | { type: 'prepared'; body: DeployCreate; ci: CiInfo; totalFiles: number; baseMissing: boolean }
  | { type: 'recorded'; deploy: Deploy }
  /** The check's state changed (`pending`: the deploy has no check yet). */
  | { type: 'check'; state: RunState | 'pending'; siteCheck: SiteCheck | null; elapsedMs: number }
  /** A poll failed for a reason that may pass (network, 429, 5xx); polling goes on. */
  | { type: 'poll_error'; error: SiteHealthError; elapsedMs: number };

export interface WaitOptions {
  /** Give up after this long; default 15 minutes. */
  timeoutMs?: number;
  /** Time between polls; default 5 seconds. */
  pollIntervalMs?: number;
  onProgress?: (event: DeployProgress) => void;
  signal?: AbortSignal;
}

export interface WaitResult {
  /** `finished` or `failed`: the check's final state; `timeout`; `error`: a poll failed for good. */
  state: 'finished' | 'failed' | 'timeout' | 'error';
  /** The last `GET /v1/deploys/{id}` answer (null if none came). */
  detail: DeployDetail | null;
  error?: SiteHealthError;
  elapsedMs: number;
}

export const DEFAULT_WAIT_TIMEOUT_MS = 15 * 60_000;
export const DEFAULT_POLL_INTERVAL_MS = 5_000;

/** A poll error worth another poll: no answer, 429, or a 5xx (the client has retried already). */
function isTransient(err: SiteHealthError): boolean {
  return err instanceof ConnectionError || err instanceof RateLimitError || err instanceof ApiError;
}

/**
 * Polls `GET /v1/deploys/{id}` until its `siteCheck` is `finished` or `failed`, reporting each
 * state change, or until `timeoutMs`. A poll that fails for a passing reason (network, 429, 5xx)
 * is reported and polling goes on; any other error ends the wait (`state: 'error'`).
 */
export async function waitForSiteCheck(client: SiteHealth, deployId: string, options: WaitOptions = {}): Promise<WaitResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  const interval = Math.max(10, options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS);
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  let last: RunState | 'pending' | undefined;
  let detail: DeployDetail | null = null;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      detail = await client.deploys.get(deployId);
      const check = detail.siteCheck;
      const state: RunState | 'pending' = check ? check.state : 'pending';
      if (state !== last) {
        last = state;
        options.onProgress?.({ type: 'check', state, siteCheck: check, elapsedMs: elapsed() });
      }
      if (state === 'finished' || state === 'failed') return { state, detail, elapsedMs: elapsed() };
    } catch (err) {
      if (!(err instanceof SiteHealthError)) throw err;
      if (!isTransient(err)) return { state: 'error', detail, error: err, elapsedMs: elapsed() };
      options.onProgress?.({ type: 'poll_error', error: err, elapsedMs: elapsed() });
    }
    const left = timeoutMs - elapsed();
    if (left <= 0) return { state: 'timeout', detail, elapsedMs: elapsed() };
    await sleep(Math.min(interval, left), options.signal);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

// ---------------------------------------------------------------------------------------------
// Recording.

/**
 * A problem found before anything was recorded: no API key or commit, an unusable commit SHA,
 * `wait` for a deploy that gets no site check, or a key that cannot do what was asked (`cause`
 * holds the API's answer then).
 */
export class DeployConfigError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DeployConfigError';
  }
}

export interface RecordDeployOptions {
  /** The client to use; or give `apiKey` (and `baseUrl`) to make one. Not needed for a dry run. */
  client?: SiteHealth;
  /** An API key (`sh_...`) with the `deploys` scope, and `search` too to `wait`. */
  apiKey?: string;
  /** Where the API runs; default `http://127.0.0.1:3000`. */
  baseUrl?: string;
  /** The repository (any folder inside it); default `process.cwd()`. */
  cwd?: string;
  /** The environment variables to read the CI service from; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** The commit deployed; default: detected (then `SITEHEALTH_COMMIT`, the CI's commit, `HEAD`). */
  commit?: string;
  /** Branch or tag; default: detected (`SITEHEALTH_REF`, the CI's branch or tag). */
  ref?: string;
  /** What to diff against; default: detected (`SITEHEALTH_BASE`, the push's before, the PR's base, the parent). */
  base?: string;
  /** Default `SITEHEALTH_ENVIRONMENT`, else the server's default, `production` (the only one that is checked). */
  environment?: string;
  /** Shortened to 2,000 characters. Never read from git: only what you pass is sent. */
  message?: string;
  /** When the deploy went live; default now. */
  deployedAt?: string | Date;
  /** Needed for keys not bound to a workspace (default `SITEHEALTH_WORKSPACE_ID`). */
  workspaceId?: string;
  /** Changes you computed yourself, instead of reading git. */
  changes?: readonly ChangeInput[];
  /** Changed paths (e.g. `git diff --name-only`), categorized without signals, instead of reading git. */
  changedPaths?: readonly string[];
  /** Build the body and stop: nothing is sent. */
  dryRun?: boolean;
  /** Wait for the deploy's site check (needs the `search` scope; checked before recording). */
  wait?: boolean;
  /**
   * With `wait`: the outcome is `gate_failed` when findings at or above this severity appear,
   * or, when the check has no baseline to compare with, issues of the check at or above it.
   */
  failOn?: Severity;
  /** A pull or merge request build (environment `preview` from the CI context) is not recorded at all: outcome `skipped`. */
  skipPreviews?: boolean;
  /** With `wait`: default 15 minutes. */
  timeoutMs?: number;
  /** With `wait`: default 5 seconds. */
  pollIntervalMs?: number;
  onProgress?: (event: DeployProgress) => void;
  signal?: AbortSignal;
}

export type DeployOutcome =
  /** `dryRun`: nothing was sent. */
  | 'dry_run'
  /** Recorded (without `wait`). */
  | 'recorded'
  /** The check finished and no finding reached `failOn` (or there was no `failOn`). */
  | 'passed'
  /** The check finished with findings (or, without a baseline, issues) at or above `failOn`. */
  | 'gate_failed'
  /** The check finished but no page of the website answered (a network error or a 5xx on every page). */
  | 'site_unreachable'
  /** `skipPreviews`: a pull or merge request build; nothing was sent. */
  | 'skipped'
  /** The check itself failed (`siteCheck.error` says why). */
  | 'check_failed'
  /** No final check state within `timeoutMs`. */
  | 'timed_out'
  /** Reading the deploy back failed for good (e.g. 401, 404). */
  | 'wait_failed';

export interface RecordDeployResult {
  outcome: DeployOutcome;
  /** What was (or, for a dry run, would be) sent: paths, categories, signals and commit metadata only. */
  body: DeployCreate;
  ci: CiInfo;
  /** Everything worth a line in the CI log: partial detection, missing history, caps. */
  warnings: string[];
  /** Files changed in all, before the 500 cap (0 when they could not be read). */
  totalFiles: number;
  /** The changes could not be read from git (no base, or a shallow clone without it): none were sent. */
  baseMissing: boolean;
  deploy: Deploy | null;
  /** With `wait`: the deploy as last read, with its check, baseline and findings. */
  detail: DeployDetail | null;
  /** With `wait`: every finding of the check, most severe first. */
  findings: DeployFinding[];
  /** With `wait` and `failOn`: the findings at or above it. */
  failing: DeployFinding[];
  /** With `wait` and `failOn`, when the check had no baseline: its issues at or above `failOn`. */
  failingIssues: SiteCheckIssue[];
  /** With `wait`: one line a person can act on, for the outcomes that are not `passed`. */
  reason?: string;
  /** With `wait`: how long it took. */
  waitedMs: number;
  /** `wait_failed`: why. */
  error?: SiteHealthError;
}

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/** What the API accepts as `deployedAt`: RFC 3339, a `Z` or `+hh:mm` offset required. */
const OFFSET_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * Makes sure the key can read deploys back (the `search` scope) before anything is recorded,
 * with a read that changes nothing. With a workspace: `GET /v1/deploys?workspace_id=W&limit=1`
 * (it also proves the key sees W). Without one (a key bound to its workspace): `GET
 * /v1/deploys/<nil UUID>`, which the server answers 403 `insufficient_scope` without the scope
 * and 404 with it (scopes are checked before anything is looked up).
 */
export async function checkSearchScope(client: SiteHealth, workspaceId?: string): Promise<void> {
  try {
    if (workspaceId) {
      await client.deploys.list({ workspace_id: workspaceId, limit: 1 });
    } else {
      try {
        await client.deploys.get(ZERO_UUID);
      } catch (err) {
        if (err instanceof NotFoundError) return; // the scope is there; the deploy is not
        throw err;
      }
    }
  } catch (err) {
    if (!(err instanceof SiteHealthError)) throw err;
    if (err.code === 'insufficient_scope') {
      throw new DeployConfigError(
        'waiting for the site check needs an API key with the `search` scope as well as `deploys`; this key lacks `search` ' +
          '(create one with `keys create --scopes deploys,search`); nothing was recorded',
        { cause: err },
      );
    }
    if (err.status === 401) throw new DeployConfigError(`the API key was not accepted (${err.message}); nothing was recorded`, { cause: err });
    if (err.status === 404 && workspaceId) {
      throw new DeployConfigError(`workspace ${workspaceId} does not exist or this key cannot see it; nothing was recorded`, { cause: err });
    }
    if (err.status === 403 || err.status === 400) throw new DeployConfigError(`${err.message}; nothing was recorded`, { cause: err });
    throw err;
  }
}

function envValue(env: Record<string, string | undefined>, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

/**
 * Where the value of a deploy body field came from, named as the person running the command
 * set it: the flag and its variable, not the API's JSON Pointer.
 */
const FIELD_SOURCES: Record<string, string> = {
  '/workspaceId': '--workspace (SITEHEALTH_WORKSPACE_ID)',
  '/commitSha': "--commit (SITEHEALTH_COMMIT, or the CI's commit)",
  '/ref': '--ref (SITEHEALTH_REF)',
  '/environment': '--environment (SITEHEALTH_ENVIRONMENT)',
  '/message': '--message',
  '/deployedAt': '--deployed-at',
  '/ciProvider': "the CI provider (from the CI's environment)",
  '/ciRunUrl': "the CI run URL (from the CI's environment)",
  '/changes': 'the changed files (git diff, or --changed-files-from)',
};

function whereFrom(pointer: string): string {
  const top = `/${pointer.split('/')[1] ?? ''}`;
  const source = FIELD_SOURCES[top];
  return source ? `${source}${pointer !== top ? ` at ${pointer}` : ''}` : pointer || 'the request';
}

/**
 * Records a deploy the way `sitehealth deploy` does: detects the CI service, the commit, the ref
 * and the base (`detectCi`), reads the changed files' categories and signals from `git diff`
 * between the base and the commit (`changesFromGit`: paths, signal kinds and line numbers only,
 * never code; a shallow clone without the base records the deploy without changes and says so
 * in `warnings`), builds the body (`buildDeployBody`) and sends `POST /v1/deploys`. With `wait`,
 * it first makes sure the key has the `search` scope, then polls the deploy until its site check
 * is finished or failed, and judges the findings against `failOn`.
 *
 * Throws `DeployConfigError` for a problem found before recording, and the API's
 * `SiteHealthError` when recording fails. What happens after recording is the `outcome`.
 *
 * ```ts
 * const result = await recordDeploy({ apiKey: process.env.SITEHEALTH_API_KEY!, baseUrl: 'https://sitehealth.example.com', wait: true, failOn: 'high' });
 * if (result.outcome === 'gate_failed') process.exitCode = 1;
 * ```
 */
export async function recordDeploy(options: RecordDeployOptions = {}): Promise<RecordDeployResult> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    options.onProgress?.({ type: 'warning', message });
  };

  const ci = await detectCi({ env, cwd, commit: options.commit, ref: options.ref, base: options.base, environment: options.environment });
  for (const w of ci.warnings) warn(w);
  if (!ci.commit) {
    throw new DeployConfigError('no commit to record: not in a CI service or git repository that names one; pass `commit` (--commit) or set SITEHEALTH_COMMIT');
  }
  if (!/^[0-9a-f]{7,64}$/i.test(ci.commit)) {
    // A revision such as `HEAD` or a tag: the API wants the SHA it names.
    const sha = await resolveCommit(cwd, ci.commit).catch(() => null);
    if (!sha) throw new DeployConfigError(`commit ${JSON.stringify(ci.commit)} is neither a SHA (7 to 64 hex characters) nor a revision of the repository in ${cwd}`);
    ci.commit = sha;
  }

  let changes: ChangeInput[] | undefined;
  let totalFiles = 0;
  let baseMissing = false;
  if (options.changes || options.changedPaths) {
    changes = [...(options.changes ?? [])];
    const known = new Set(changes.map((c) => c.path));
    for (const c of changesFromPaths(options.changedPaths ?? [])) if (!known.has(c.path)) changes.push(c);
    totalFiles = changes.length;
    if (changes.length > MAX_CHANGES) warn(`${changes.length} changed files given; kept the first ${MAX_CHANGES} (the most a deploy may list)`);
  } else {
    let found: Awaited<ReturnType<typeof changesFromGit>> | null = null;
    try {
      found = await changesFromGit({ cwd, base: ci.base, head: ci.commit });
    } catch (err) {
      baseMissing = true;
      warn(`could not read the changes from git (${(err as Error).message}): recording the deploy without changes`);
    }
    // A base someone named (a flag, SITEHEALTH_BASE) that the clone lacks is a typo or a missing
    // fetch, not a shallow checkout to live with: said before anything is sent.
    if (found?.baseMissing && (ci.baseSource === 'option' || ci.baseSource === 'SITEHEALTH_BASE')) {
      throw new DeployConfigError(`base ${JSON.stringify(ci.base)} (${ci.baseSource === 'option' ? '--base' : 'SITEHEALTH_BASE'}) is not a commit of the repository in ${cwd}; nothing was recorded`);
    }
    if (found) {
      for (const w of found.warnings) warn(w);
      totalFiles = found.totalFiles;
      baseMissing = found.baseMissing;
      if (!found.baseMissing) changes = found.changes;
    }
  }

  if (typeof options.deployedAt === 'string' && !OFFSET_DATE_TIME.test(options.deployedAt.trim())) {
    throw new DeployConfigError(`deployedAt (--deployed-at) must be an ISO 8601 date-time with an offset, e.g. 2026-11-21T10:00:00Z, got ${JSON.stringify(options.deployedAt)}`);
  }

  let body: DeployCreate;
  try {
    body = buildDeployBody({
      commitSha: ci.commit,
      ref: ci.ref,
      environment: ci.environment,
      message: options.message,
      deployedAt: options.deployedAt,
      workspaceId: options.workspaceId ?? envValue(env, 'SITEHEALTH_WORKSPACE_ID'),
      changes,
      ciProvider: ci.provider,
      ciRunUrl: ci.runUrl,
    });
  } catch (err) {
    throw new DeployConfigError((err as Error).message, { cause: err });
  }

  const result: RecordDeployResult = {
    outcome: 'dry_run', body, ci, warnings, totalFiles, baseMissing, deploy: null, detail: null, findings: [], failing: [], failingIssues: [], waitedMs: 0,
  };
  const preview = ci.environmentSource === 'pull-request';
  if (preview && options.skipPreviews && !options.dryRun) {
    result.outcome = 'skipped';
    result.reason = 'a pull or merge request build (environment preview): not recorded (skipPreviews)';
    return result;
  }
  options.onProgress?.({ type: 'prepared', body, ci, totalFiles, baseMissing });
  if (options.dryRun) return result;

  let client = options.client;
  if (!client) {
    const apiKey = options.apiKey ?? envValue(env, 'SITEHEALTH_API_KEY');
    if (!apiKey) throw new DeployConfigError('no API key: set SITEHEALTH_API_KEY (a key with the `deploys` scope)');
    try {
      client = createClient({ apiKey, baseUrl: options.baseUrl ?? envValue(env, 'SITEHEALTH_URL'), userAgent: `sitehealth-cli/${VERSION}` });
    } catch (err) {
      throw new DeployConfigError((err as Error).message, { cause: err });
    }
  }
  let wait = options.wait;
  const environment = body.environment ?? 'production';
  if (wait && environment !== 'production') {
    // Named by the CI context (a pull request, a staging job): the same pipeline line serves every
    // branch, so the deploy is recorded and there is simply no check to wait for.
    const named = ci.environmentSource === 'option' || ci.environmentSource === 'SITEHEALTH_ENVIRONMENT';
    if (named) {
      throw new DeployConfigError(`only production deploys get a site check, so there is nothing to wait for in environment "${environment}"; nothing was recorded`);
    }
    wait = false;
    warn(`environment ${environment} (from the CI context: ${ci.environmentSource}) gets no site check: recording without waiting`);
  }
  if (wait) await checkSearchScope(client, body.workspaceId);

  let deploy: Deploy;
  try {
    deploy = await client.deploys.create(body);
  } catch (err) {
    // What the API refuses for the pipeline's own settings (the key, the workspace, a value) is a
    // configuration error, not an outage: the same run would fail again.
    if (err instanceof SiteHealthError && [400, 401, 403, 404].includes(err.status)) {
      const why =
        err.status === 401 ? `the API key (SITEHEALTH_API_KEY) was not accepted: ${err.detail ?? err.message}`
        : err.status === 404 ? `the workspace ${body.workspaceId ?? "of the key's binding"} (--workspace, SITEHEALTH_WORKSPACE_ID) does not exist or this key cannot see it`
        : err.status === 400 && err.errors.length > 0 ? `${err.errors.map((e) => `${whereFrom(e.path)}: ${e.message}`).join('; ')} (the API answered ${err.message})`
        : err.message;
      throw new DeployConfigError(`${why}; nothing was recorded`, { cause: err });
    }
    throw err;
  }
  result.deploy = deploy;
  result.outcome = 'recorded';
  options.onProgress?.({ type: 'recorded', deploy });
  if (!wait) return result;

  const waited = await waitForSiteCheck(client, deploy.id, {
    timeoutMs: options.timeoutMs,
    pollIntervalMs: options.pollIntervalMs,
    onProgress: options.onProgress,
    signal: options.signal,
  });
  result.detail = waited.detail;
  result.waitedMs = waited.elapsedMs;
  if (waited.state === 'timeout') result.outcome = 'timed_out';
  else if (waited.state === 'error') {
    result.outcome = 'wait_failed';
    result.error = waited.error;
  } else if (waited.state === 'failed') {
    result.outcome = 'check_failed';
    result.reason = `the site check failed: ${waited.detail?.siteCheck?.error ?? 'no reason given'}`;
  } else {
    judge(result, waited.detail, options.failOn);
  }
  return result;
}

/** A page that did not answer: a network error, or a server error. */
const unanswered = (p: PageRecord) => p.status === null || p.status >= 500;

/**
 * Judges a finished check: the absolute state first (a website none of whose pages answered is
 * down, whatever the baseline says: it may have been down then too), then what got worse, and,
 * with no baseline to compare with, what is wrong in the check on its own.
 */
export function judge(result: RecordDeployResult, detail: DeployDetail | null, failOn: Severity | undefined): void {
  result.findings = sortBySeverity(detail?.findings ?? []);
  const pages = detail?.siteCheck?.pages ?? [];
  if (pages.length > 0 && pages.every(unanswered)) {
    const home = pages[0];
    result.outcome = 'site_unreachable';
    result.reason = `the website did not answer: ${home.url} ${home.status === null ? 'could not be fetched (network error, timeout or refused connection)' : `answered ${home.status}`}${pages.length > 1 ? `, and so did the other ${pages.length - 1} page${pages.length > 2 ? 's' : ''} checked` : ''}`;
    return;
  }
  result.failing = failOn ? findingsAtOrAbove(result.findings, failOn) : [];
  result.failingIssues = failOn && !detail?.baseline ? findingsAtOrAbove(detail?.issues ?? [], failOn) : [];
  const failing = result.failing.length + result.failingIssues.length;
  result.outcome = failing > 0 ? 'gate_failed' : 'passed';
  if (failing > 0) {
    const parts = [];
    if (result.failing.length) parts.push(`${result.failing.length} new finding${result.failing.length > 1 ? 's' : ''}`);
    if (result.failingIssues.length) parts.push(`${result.failingIssues.length} issue${result.failingIssues.length > 1 ? 's' : ''} in the first check (no baseline to compare with)`);
    result.reason = `${parts.join(' and ')} at or above ${failOn}`;
  }
}

