// Helpers for CI scripts: turn the list of changed files into `changes` and record the deploy.
import type { SiteHealth } from './client.js';
import type { ChangeInput, Deploy } from './types.js';
import { CATEGORY_PRIORITY, categorize, normalizePath } from './ci/categorize.js';

/** The server accepts at most this many changes per deploy. */
export const MAX_CHANGES = 500;
/** The server's limit on `message`; `recordDeploy` shortens longer messages. */
export const MAX_MESSAGE_LENGTH = 2000;

export { categorize };

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

export interface RecordDeployInput {
  /** Required for keys not bound to a workspace. */
  workspaceId?: string;
  /** 7 to 64 hex characters (e.g. `$GITHUB_SHA`). */
  commitSha: string;
  /** Default `production` (only `production` triggers site checks and crawls). */
  environment?: string;
  /** Branch or tag. */
  ref?: string;
  /** Shortened to 2,000 characters. */
  message?: string;
  /** When the deploy went live; default now. A `Date` is sent as ISO 8601 UTC. */
  deployedAt?: string | Date;
  /** Changed files with categories (and signals, if you detect them). */
  changes?: ChangeInput[];
  /** Changed file paths, categorized with `changesFromPaths` and appended to `changes`. */
  changedPaths?: readonly string[];
}

/**
 * Records a deploy from a CI job: categorizes `changedPaths`, keeps at most 500 changes,
 * shortens an over-long message and sends `POST /v1/deploys`, which is safe to retry (the same
 * environment and commit update the same deploy) and is retried by the client on network
 * errors and 5xx.
 *
 * ```ts
 * const client = new SiteHealth({ apiKey: process.env.SITEHEALTH_API_KEY!, baseUrl: process.env.SITEHEALTH_URL });
 * const files = execSync('git diff --name-only HEAD~1', { encoding: 'utf8' }).split('\n');
 * await recordDeploy(client, { commitSha: process.env.GITHUB_SHA!, ref: process.env.GITHUB_REF_NAME, changedPaths: files });
 * ```
 */
export function recordDeploy(client: SiteHealth, input: RecordDeployInput): Promise<Deploy> {
  let changes: ChangeInput[] | undefined = input.changes ? [...input.changes] : undefined;
  if (input.changedPaths) {
    const known = new Set(changes?.map((c) => c.path));
    changes = [...(changes ?? []), ...changesFromPaths(input.changedPaths).filter((c) => !known.has(c.path))];
  }
  if (changes && changes.length > MAX_CHANGES) changes = changes.slice(0, MAX_CHANGES);
  const deployedAt = input.deployedAt instanceof Date ? input.deployedAt.toISOString() : input.deployedAt;
  const message = input.message !== undefined && input.message.length > MAX_MESSAGE_LENGTH
    ? `${input.message.slice(0, MAX_MESSAGE_LENGTH - 1)}…`
    : input.message;
  return client.deploys.create({
    commitSha: input.commitSha.trim(),
    ...(input.workspaceId !== undefined && { workspaceId: input.workspaceId }),
    ...(input.environment !== undefined && { environment: input.environment }),
    ...(input.ref !== undefined && { ref: input.ref }),
    ...(message !== undefined && { message }),
    ...(deployedAt !== undefined && { deployedAt }),
    ...(changes !== undefined && { changes }),
  });
}
