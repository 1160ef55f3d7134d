// Which CI runs us, which commit it built, on which branch, and what to compare it with.
import { readFileSync } from 'node:fs';
import type { EnvCiResult } from 'env-ci';
import { resolveCommit } from './git.js';

/** Where `CiInfo.base` came from, for the CI log. */
export type BaseSource =
  | 'option'
  | 'SITEHEALTH_BASE'
  | 'github-push'
  | 'github-pull-request'
  | 'gitlab-merge-request'
  | 'gitlab-push'
  | 'circleci'
  | 'parent'
  | 'none';

export interface CiInfo {
  /** Running in a CI service (or `CI` is set). */
  isCi: boolean;
  /** env-ci's service id (`github`, `gitlab`, `circleci`, ...); undefined outside a known CI. */
  provider?: string;
  /** e.g. `GitHub Actions`. */
  providerName?: string;
  /** A pull or merge request build. */
  isPr: boolean;
  /** The commit built. */
  commit?: string;
  /** Branch or tag: the source branch for a pull or merge request. */
  ref?: string;
  /** The commit (or revision) to diff against; undefined when there is none. */
  base?: string;
  baseSource: BaseSource;
  /** The deploy's environment; undefined leaves it to the server (`production`). */
  environment?: string;
  /** Where `environment` came from, for the CI log. */
  environmentSource?: EnvironmentSource;
  /** The CI run's page, when the service says. */
  runUrl?: string;
  /** What could not be read (an unreadable event payload, ...). */
  warnings: string[];
}

export interface DetectCiOptions {
  /** Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** The repository; default `process.cwd()`. Used outside CI and for the `HEAD~1` fallback. */
  cwd?: string;
  /** Override the detected commit (also `SITEHEALTH_COMMIT`). */
  commit?: string;
  /** Override the detected branch or tag (also `SITEHEALTH_REF`). */
  ref?: string;
  /** Override the detected base (also `SITEHEALTH_BASE`). */
  base?: string;
  /** The deploy's environment (also `SITEHEALTH_ENVIRONMENT`); the server defaults to `production`. */
  environment?: string;
  /** When nothing names a base, use the commit's parent if the clone has it (default true). */
  fallbackToParent?: boolean;
}

/** Where `CiInfo.environment` came from. */
export type EnvironmentSource =
  | 'option'
  | 'SITEHEALTH_ENVIRONMENT'
  | 'pull-request'
  | 'CI_ENVIRONMENT_NAME'
  | 'github-deployment'
  | 'VERCEL_ENV'
  | 'CONTEXT';

/** The environment every pull or merge request build is recorded in, unless one is named. */
export const PREVIEW = 'preview';

/**
 * The environment the CI context names. A pull or merge request is always a preview: its build
 * is not what production serves, and recording it as production would queue production checks
 * and move their baseline.
 */
function providerEnvironment(
  service: string | undefined,
  isPr: boolean,
  env: Record<string, string | undefined>,
  event: Record<string, unknown> | undefined,
): { environment: string; source: EnvironmentSource } | undefined {
  if (isPr) return { environment: PREVIEW, source: 'pull-request' };
  const gitlab = str(env.CI_ENVIRONMENT_NAME);
  if (service === 'gitlab' && gitlab) return { environment: gitlab, source: 'CI_ENVIRONMENT_NAME' };
  const deployment = event?.deployment as { environment?: unknown } | undefined;
  const github = str(deployment?.environment);
  if (service === 'github' && github) return { environment: github, source: 'github-deployment' };
  // Vercel: production | preview | development.
  const vercel = str(env.VERCEL_ENV);
  if (vercel) return { environment: vercel, source: 'VERCEL_ENV' };
  // Netlify: production | deploy-preview | branch-deploy | dev.
  const netlify = env.NETLIFY ? str(env.CONTEXT) : undefined;
  if (netlify) return { environment: netlify === 'production' ? 'production' : netlify === 'dev' ? 'development' : PREVIEW, source: 'CONTEXT' };
  return undefined;
}

/** The page of the CI run, where the service has one: GitLab's job, else the service's run or pipeline (env-ci's `buildUrl`). */
function runUrlOf(service: string | undefined, env: Record<string, string | undefined>, buildUrl: string | undefined): string | undefined {
  const url = (service === 'gitlab' ? str(env.CI_JOB_URL) : undefined) ?? str(buildUrl);
  // env-ci assembles some from variables that may be missing ("undefined/..."): only a URL is kept.
  return url && /^https?:\/\/\S+$/i.test(url) ? url : undefined;
}

/** `0000000…`: what CI services send as "before" for a new branch, meaning no previous commit. */
const ZERO_SHA = /^0+$/;

function firstValue(...values: Array<string | undefined | null>): string | undefined {
  for (const v of values) {
    const t = typeof v === 'string' ? v.trim() : '';
    if (t) return t;
  }
  return undefined;
}

interface EventPayload {
  event?: Record<string, unknown>;
  /** Why the payload could not be read, for whoever needed it. */
  warning?: string;
}

function readEvent(path: string | undefined): EventPayload {
  if (!path) return {};
  try {
    const event: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return event && typeof event === 'object' ? { event: event as Record<string, unknown> } : {};
  } catch (err) {
    return { warning: `cannot read the GitHub event payload ${path}: ${(err as Error).message}` };
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

/** The base the CI service names, before overrides and the fallback. */
function providerBase(
  service: string | undefined,
  isPr: boolean,
  env: Record<string, string | undefined>,
  warnings: string[],
  githubEvent: () => EventPayload,
): { base?: string; source: BaseSource } {
  if (service === 'github') {
    const { event, warning } = githubEvent();
    if (warning) warnings.push(warning);
    if (isPr) {
      const pr = event?.pull_request as { base?: { sha?: unknown } } | undefined;
      const sha = str(pr?.base?.sha);
      if (sha) return { base: sha, source: 'github-pull-request' };
      // Without the payload, the target branch as the checkout fetched it.
      const target = str(env.GITHUB_BASE_REF);
      return target ? { base: `origin/${target}`, source: 'github-pull-request' } : { source: 'none' };
    }
    const before = str(event?.before);
    return before ? { base: before, source: 'github-push' } : { source: 'none' };
  }
  if (service === 'gitlab') {
    const mr = str(env.CI_MERGE_REQUEST_DIFF_BASE_SHA);
    if (mr) return { base: mr, source: 'gitlab-merge-request' };
    const before = str(env.CI_COMMIT_BEFORE_SHA);
    return before ? { base: before, source: 'gitlab-push' } : { source: 'none' };
  }
  if (service === 'circleci') {
    // CircleCI has no such variable of its own: map `<< pipeline.git.base_revision >>` into one.
    const base = str(env.CIRCLE_BASE_REVISION) ?? str(env.PIPELINE_GIT_BASE_REVISION);
    return base ? { base, source: 'circleci' } : { source: 'none' };
  }
  return { source: 'none' };
}

/**
 * Detects the CI service (with env-ci), the commit, the branch or tag and the base commit to
 * diff against. Explicit options win, then `SITEHEALTH_COMMIT`, `SITEHEALTH_REF`,
 * `SITEHEALTH_BASE` and `SITEHEALTH_ENVIRONMENT`, then what the service says:
 *
 * | service | commit | ref | base |
 * |---|---|---|---|
 * | GitHub Actions, push | `GITHUB_SHA` | `GITHUB_REF_NAME` | the event payload's `before` (`GITHUB_EVENT_PATH`) |
 * | GitHub Actions, pull request | `GITHUB_SHA` | `GITHUB_HEAD_REF` | the payload's `pull_request.base.sha`, else `origin/$GITHUB_BASE_REF` |
 * | GitLab CI, push | `CI_COMMIT_SHA` | `CI_COMMIT_TAG` or `CI_COMMIT_REF_NAME` | `CI_COMMIT_BEFORE_SHA` |
 * | GitLab CI, merge request | `CI_COMMIT_SHA` | `CI_MERGE_REQUEST_SOURCE_BRANCH_NAME` | `CI_MERGE_REQUEST_DIFF_BASE_SHA` |
 * | CircleCI | `CIRCLE_SHA1` | `CIRCLE_TAG` or `CIRCLE_BRANCH` | `CIRCLE_BASE_REVISION` or `PIPELINE_GIT_BASE_REVISION`, if you map `<< pipeline.git.base_revision >>` into one |
 *
 * A zero SHA (a new branch's "before") means no base. Without a base, the commit's parent
 * (`HEAD~1`) is used when the clone has it (`baseSource: 'parent'`).
 *
 * The environment: the option, then `SITEHEALTH_ENVIRONMENT`, then the CI context: a pull or
 * merge request is `preview`; GitLab's `CI_ENVIRONMENT_NAME`, a GitHub `deployment` event's
 * environment, Vercel's `VERCEL_ENV` and Netlify's `CONTEXT` (`deploy-preview` and
 * `branch-deploy` are `preview`, `dev` is `development`) are used as they are. Otherwise none is
 * sent and the server records `production`.
 */
export async function detectCi(options: DetectCiOptions = {}): Promise<CiInfo> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const warnings: string[] = [];
  // Loaded here, not at the top: importing the SDK for its API client should not load env-ci.
  const { default: envCi } = await import('env-ci');
  let ci: EnvCiResult;
  try {
    ci = envCi({ env, cwd });
  } catch (err) {
    // env-ci reads GitHub's event payload for `pull_request_target` without a guard: without the
    // payload it still knows the service and the commit.
    warnings.push(`CI detection could not read everything: ${(err as Error).message}`);
    try {
      ci = envCi({ env: { ...env, GITHUB_EVENT_PATH: undefined }, cwd });
    } catch {
      ci = { isCi: Boolean(env.CI) };
    }
  }
  const service = ci.isCi ? ci.service : undefined;
  const isPr = Boolean(ci.isPr);
  // GitHub's event payload, read once for the environment and the base, when either needs it.
  let payload: EventPayload | undefined;
  const githubEvent = () => (payload ??= readEvent(env.GITHUB_EVENT_PATH));

  const detectedRef =
    service === 'github' ? firstValue(isPr ? env.GITHUB_HEAD_REF : env.GITHUB_REF_NAME) :
    isPr ? firstValue(ci.prBranch) : firstValue(ci.tag, ci.branch);
  const commit = firstValue(options.commit, env.SITEHEALTH_COMMIT, ci.commit);
  const ref = firstValue(options.ref, env.SITEHEALTH_REF, detectedRef, ci.isPr ? ci.prBranch : ci.branch);
  let environment: string | undefined;
  let environmentSource: EnvironmentSource | undefined;
  if (firstValue(options.environment)) [environment, environmentSource] = [firstValue(options.environment), 'option'];
  else if (firstValue(env.SITEHEALTH_ENVIRONMENT)) [environment, environmentSource] = [firstValue(env.SITEHEALTH_ENVIRONMENT), 'SITEHEALTH_ENVIRONMENT'];
  else if (ci.isCi) {
    const found = providerEnvironment(service, isPr, env, service === 'github' ? githubEvent().event : undefined);
    if (found) [environment, environmentSource] = [found.environment, found.source];
  }

  let base: string | undefined;
  let baseSource: BaseSource;
  const explicit = firstValue(options.base);
  const fromEnv = firstValue(env.SITEHEALTH_BASE);
  if (explicit) {
    base = explicit;
    baseSource = 'option';
  } else if (fromEnv) {
    base = fromEnv;
    baseSource = 'SITEHEALTH_BASE';
  } else {
    const found = providerBase(service, isPr, env, warnings, githubEvent);
    base = found.base;
    baseSource = found.source;
  }
  if (base !== undefined && ZERO_SHA.test(base)) {
    base = undefined;
    baseSource = 'none';
  }
  if (base === undefined && options.fallbackToParent !== false) {
    const parent = await parentOf(cwd, commit);
    if (parent) {
      base = parent;
      baseSource = 'parent';
    }
  }

  const info: CiInfo = { isCi: ci.isCi, isPr, baseSource, warnings };
  if (service) info.provider = service;
  if (ci.isCi && ci.name) info.providerName = ci.name;
  if (commit) info.commit = commit;
  if (ref) info.ref = ref;
  if (base) info.base = base;
  if (environment) {
    info.environment = environment;
    info.environmentSource = environmentSource;
  }
  const runUrl = ci.isCi ? runUrlOf(service, env, ci.buildUrl) : undefined;
  if (runUrl) info.runUrl = runUrl;
  return info;
}

/** The parent of `commit` (or of `HEAD` when the commit is unknown here), if the clone has it. */
async function parentOf(cwd: string, commit: string | undefined): Promise<string | null> {
  try {
    const usable = commit !== undefined && !commit.startsWith('-') && (await resolveCommit(cwd, commit)) !== null;
    return await resolveCommit(cwd, `${usable ? commit : 'HEAD'}~1`);
  } catch {
    // Not a repository, or git is missing: no fallback.
    return null;
  }
}
