// The `POST /v1/deploys` body, rebuilt field by field so that nothing but paths, categories,
// signal kinds/changes/lines and the commit metadata can reach the server.
import { COMMIT_SHA_PATTERN, MAX_CHANGES, MAX_MESSAGE_LENGTH, MAX_PATH_LENGTH, MAX_REF_LENGTH, MAX_SIGNAL_LINE } from '@sitehealth/sdk';
import type { ChangeCategory, ChangeInput, DeployCreate, Signal, SignalKind } from '@sitehealth/sdk';
import { MAX_SIGNALS_PER_FILE } from '@sitehealth/sdk/signals';

// Records, so the compiler fails when the API gains or loses a value.
const CATEGORIES: Record<ChangeCategory, true> = {
  template: true, component: true, page: true, style: true, script: true, content: true, config: true, routing: true,
  redirects: true, robots: true, sitemap: true, headers: true, dependencies: true, asset: true, server: true, build: true,
  test: true, docs: true, other: true,
};
const KINDS: Record<SignalKind, true> = {
  title: true, meta_description: true, meta_robots: true, x_robots_tag: true, canonical: true, hreflang: true,
  structured_data: true, heading: true, link: true, redirect: true, robots_rule: true, sitemap_entry: true, route: true,
  script: true, stylesheet: true, image: true, font: true, lazy_loading: true, status_code: true, dependency: true,
  env: true, other: true,
};
const COMMIT_SHA = new RegExp(COMMIT_SHA_PATTERN);

export interface DeployBodyInput {
  /** 7 to 64 hex characters. */
  commitSha: string;
  /** Branch or tag; cut to 255 characters. */
  ref?: string | null;
  /** Default on the server: `production`. */
  environment?: string | null;
  /** Cut to 2,000 characters. */
  message?: string | null;
  /** A `Date` is sent as ISO 8601 UTC. */
  deployedAt?: string | Date | null;
  /** Needed only for API keys not bound to a workspace. */
  workspaceId?: string | null;
  /** E.g. `changesFromGit(...).changes`. */
  changes?: readonly ChangeInput[] | null;
  /** The CI service (`detectCi().provider`); dropped unless lower case letters, digits, `-`, `_` (up to 32). */
  ciProvider?: string | null;
  /** The CI run's page (`detectCi().runUrl`); dropped unless an http(s) URL of up to 2,000 characters. */
  ciRunUrl?: string | null;
}

const CI_PROVIDER = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const RUN_URL = /^https?:\/\/\S+$/i;

function isCategory(v: unknown): v is ChangeCategory {
  return typeof v === 'string' && Object.hasOwn(CATEGORIES, v);
}
function isKind(v: unknown): v is SignalKind {
  return typeof v === 'string' && Object.hasOwn(KINDS, v);
}

function cleanSignals(signals: readonly Signal[] | undefined): Signal[] {
  const out: Signal[] = [];
  const seen = new Set<string>();
  for (const s of signals ?? []) {
    if (!s || !isKind(s.kind) || (s.change !== 'added' && s.change !== 'removed')) continue;
    const line = typeof s.line === 'number' && Number.isInteger(s.line) && s.line >= 1 && s.line <= MAX_SIGNAL_LINE ? s.line : undefined;
    const key = `${s.kind}|${s.change}|${line ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(line === undefined ? { kind: s.kind, change: s.change } : { kind: s.kind, change: s.change, line });
    if (out.length === MAX_SIGNALS_PER_FILE) break;
  }
  return out;
}

/**
 * Assembles a `POST /v1/deploys` body within the server's limits. Every change is rebuilt from
 * its `path`, `category` and signals' `kind`, `change` and `line` only, so extra properties
 * (anything a caller or a future analyzer attached) never leave the machine. Unknown categories
 * become `other`; unknown signal kinds, duplicate signals and more than 50 per file are dropped;
 * so are changes with an empty or over-long (1,024+) path, repeated paths, and changes past 500.
 * Throws a `TypeError` for a commit SHA the server would reject.
 *
 * ```ts
 * const ci = await detectCi();
 * const { changes } = await changesFromGit({ base: ci.base, head: ci.commit });
 * const body = buildDeployBody({ commitSha: ci.commit!, ref: ci.ref, environment: ci.environment, changes });
 * await client.deploys.create(body);
 * ```
 */
export function buildDeployBody(input: DeployBodyInput): DeployCreate {
  const commitSha = typeof input.commitSha === 'string' ? input.commitSha.trim() : '';
  if (!COMMIT_SHA.test(commitSha)) throw new TypeError(`commitSha must be 7 to 64 hex characters, got ${JSON.stringify(input.commitSha)}`);
  const body: DeployCreate = { commitSha };
  const environment = input.environment?.trim();
  if (environment) body.environment = environment;
  const ref = input.ref?.trim();
  if (ref) body.ref = ref.slice(0, MAX_REF_LENGTH);
  if (typeof input.message === 'string' && input.message !== '') {
    body.message = input.message.length > MAX_MESSAGE_LENGTH ? `${input.message.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : input.message;
  }
  if (input.deployedAt instanceof Date) body.deployedAt = input.deployedAt.toISOString();
  else if (typeof input.deployedAt === 'string' && input.deployedAt.trim()) body.deployedAt = input.deployedAt.trim();
  const workspaceId = input.workspaceId?.trim();
  if (workspaceId) body.workspaceId = workspaceId;
  // What CI context comes with the deploy is a courtesy: a value the server would refuse is left out.
  const ciProvider = input.ciProvider?.trim().toLowerCase();
  if (ciProvider && CI_PROVIDER.test(ciProvider)) body.ciProvider = ciProvider;
  const ciRunUrl = input.ciRunUrl?.trim();
  if (ciRunUrl && ciRunUrl.length <= 2000 && RUN_URL.test(ciRunUrl)) body.ciRunUrl = ciRunUrl;
  if (input.changes) {
    const changes: Array<{ path: string; category: ChangeCategory; signals: Signal[] }> = [];
    const paths = new Set<string>();
    for (const c of input.changes) {
      if (!c || typeof c.path !== 'string' || c.path === '' || c.path.length > MAX_PATH_LENGTH || paths.has(c.path)) continue;
      paths.add(c.path);
      changes.push({ path: c.path, category: isCategory(c.category) ? c.category : 'other', signals: cleanSignals(c.signals) });
      if (changes.length === MAX_CHANGES) break;
    }
    body.changes = changes;
  }
  return body;
}
