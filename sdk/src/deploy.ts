// Helpers for CI scripts: turn the list of changed files into `changes` and record the deploy.
import type { SiteHealth } from './client.js';
import type { ChangeCategory, ChangeInput, Deploy } from './types.js';

/** The server accepts at most this many changes per deploy. */
export const MAX_CHANGES = 500;
/** The server's limit on `message`; `recordDeploy` shortens longer messages. */
export const MAX_MESSAGE_LENGTH = 2000;

type Rule = readonly [ChangeCategory, (p: { path: string; base: string; ext: string }) => boolean];

const dir = (re: string) => new RegExp(`(^|/)(${re})/`);
const LOCKFILES = new Set([
  'package.json', 'package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'pnpm-workspace.yaml',
  'bun.lock', 'bun.lockb', 'deno.json', 'deno.lock', 'composer.json', 'composer.lock', 'gemfile', 'gemfile.lock',
  'go.mod', 'go.sum', 'cargo.toml', 'cargo.lock', 'pipfile', 'pipfile.lock', 'poetry.lock', 'pyproject.toml',
  'requirements.txt', 'uv.lock',
]);
const CONFIG_FILES = new Set([
  'netlify.toml', 'vercel.json', 'wrangler.toml', 'wrangler.json', 'firebase.json', 'now.json', 'app.yaml', '.htaccess',
  'tsconfig.json', 'jsconfig.json', '.babelrc', '.browserslistrc', '.nvmrc', '.node-version', '.npmrc', '.editorconfig',
  'nginx.conf',
]);
const STYLE_EXT = new Set(['css', 'scss', 'sass', 'less', 'styl', 'stylus', 'pcss', 'postcss']);
const ASSET_EXT = new Set([
  'png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'svg', 'ico', 'bmp', 'tif', 'tiff', 'heic',
  'woff', 'woff2', 'ttf', 'otf', 'eot', 'mp4', 'webm', 'mov', 'mp3', 'wav', 'ogg', 'pdf',
]);
const DOC_EXT = new Set(['md', 'mdx', 'markdown', 'rst', 'adoc', 'txt']);
const SCRIPT_EXT = new Set(['js', 'mjs', 'cjs', 'ts', 'mts', 'cts']);
const COMPONENT_EXT = new Set(['jsx', 'tsx', 'vue', 'svelte', 'astro']);

/**
 * The heuristic, first match wins (paths compared in lower case, `\` read as `/`):
 *
 * | category | paths |
 * |---|---|
 * | robots | `robots.txt`, `robots.{ts,js}` |
 * | sitemap | `sitemap*.xml`, `sitemap.{ts,js}`, `next-sitemap.config.*` |
 * | redirects | `_redirects`, `redirects.*` |
 * | headers | `_headers`, `headers.{json,js,ts}` |
 * | dependencies | `package.json` and lockfiles (npm, yarn, pnpm, bun, composer, bundler, go, cargo, pip, poetry, uv) |
 * | test | `*.test.*`, `*.spec.*`, `__tests__/`, `__mocks__/`, `test/`, `tests/`, `e2e/`, `cypress/`, `playwright/` |
 * | build | `.github/`, `.gitlab-ci.yml`, `.circleci/`, `Dockerfile*`, `docker-compose*`, `Makefile`, `Jenkinsfile`, `Procfile` |
 * | config | `*.config.*`, `*rc`, `*rc.{json,js,cjs,yml}`, `.env*`, `tsconfig*.json`, hosting files (`netlify.toml`, `vercel.json`, ...) |
 * | style | `*.css`, `*.scss`, `*.sass`, `*.less`, `*.styl`, `*.pcss` |
 * | asset | images, fonts, video, audio, PDF |
 * | docs | a top-level `docs/` or `doc/`; `README*`, `CHANGELOG*`, `LICENSE*`, `CONTRIBUTING*` anywhere |
 * | server | `server/`, `api/` (so also Next's `pages/api/`, `app/api/`), `functions/`, `lambda/`, `backend/`, `middleware/`; `route.{ts,js}` |
 * | routing | `middleware.*`, `routes.*`, `router.*`, `_routes.json` |
 * | template | `layout/`, `layouts/`, `template/`, `templates/`, `_layouts/`, `_includes/`, `partials/`; `layout.*`, `+layout.*`, `template.*`, `_app.*`, `_document.*` |
 * | page | `pages/`, `routes/`, `app/**\/{page,not-found,error,loading}.*`, `+page.*`, `*.html` |
 * | component | `component/`, `components/`; `*.jsx`, `*.tsx`, `*.vue`, `*.svelte`, `*.astro` elsewhere |
 * | content | `content/`, `posts/`, `_posts/`, `blog/`, `articles/`, `data/`, `locales/`, `i18n/`, `messages/`, `translations/` |
 * | docs | `*.md`, `*.mdx`, `*.rst`, `*.adoc`, `*.txt` elsewhere |
 * | script | `scripts/`, `js/`; `*.js`, `*.mjs`, `*.cjs`, `*.ts` elsewhere |
 * | other | everything else |
 *
 * Component and content directories are checked before the file type, so a `.tsx` file under
 * `components/` is a component and a `.md` file under `content/` is content.
 */
const RULES: readonly Rule[] = [
  ['robots', ({ base }) => base === 'robots.txt' || /^robots\.(ts|js|mjs)$/.test(base)],
  ['sitemap', ({ base }) => /^sitemap[\w.-]*\.xml(\.gz)?$/.test(base) || /^sitemap\.(ts|js|mjs)$/.test(base) || base.startsWith('next-sitemap.config.')],
  ['redirects', ({ base }) => base === '_redirects' || /^redirects\.[a-z]+$/.test(base)],
  ['headers', ({ base }) => base === '_headers' || /^headers\.(json|js|mjs|ts)$/.test(base)],
  ['dependencies', ({ base }) => LOCKFILES.has(base) || /^requirements[\w.-]*\.txt$/.test(base)],
  ['test', ({ path, base }) => /\.(test|spec)\.[a-z0-9]+$/.test(base) || dir('__tests__|__mocks__|tests?|e2e|cypress|playwright').test(path)],
  ['build', ({ path, base }) =>
    /^(\.github|\.circleci|\.buildkite)\//.test(path) || base === '.gitlab-ci.yml' || base.startsWith('dockerfile') ||
    base.startsWith('docker-compose') || base === 'makefile' || base === 'jenkinsfile' || base === 'procfile'],
  ['config', ({ base }) =>
    /\.config\.[a-z]+$/.test(base) || /^\.env(\..+)?$/.test(base) || /^\.[\w-]+rc(\.(json|js|cjs|mjs|ya?ml))?$/.test(base) ||
    /^tsconfig[\w.-]*\.json$/.test(base) || CONFIG_FILES.has(base)],
  ['style', ({ ext }) => STYLE_EXT.has(ext)],
  ['asset', ({ ext }) => ASSET_EXT.has(ext)],
  ['docs', ({ path, base }) => /^docs?\//.test(path) || /^(readme|changelog|license|licence|contributing|code_of_conduct)(\.|$)/.test(base)],
  ['server', ({ path, base }) => dir('server|api|functions|lambda|backend|middleware').test(path) || /^route\.(ts|js|mjs)$/.test(base)],
  ['routing', ({ base }) => /^(middleware|routes|router)\.[a-z]+$/.test(base) || base === '_routes.json'],
  ['template', ({ path, base }) =>
    dir('layouts?|templates?|_layouts|_includes|partials').test(path) || /^\+?(layout|template)\.[a-z]+$/.test(base) || /^_(app|document)\.[a-z]+$/.test(base)],
  ['page', ({ path, base, ext }) =>
    dir('pages|routes').test(path) || (/(^|\/)app\//.test(path) && /^(page|not-found|error|loading)\.[a-z]+$/.test(base)) ||
    /^\+page\.[a-z]+$/.test(base) || ext === 'html' || ext === 'htm'],
  ['component', ({ path }) => dir('components?').test(path)],
  ['content', ({ path }) => dir('content|posts|_posts|blog|articles|data|locales|i18n|messages|translations').test(path)],
  ['docs', ({ ext }) => DOC_EXT.has(ext)],
  ['component', ({ ext }) => COMPONENT_EXT.has(ext)],
  ['script', ({ path, ext }) => dir('scripts?|js').test(path) || SCRIPT_EXT.has(ext)],
];

/** The category of one changed path (see `changesFromPaths` for the rules). */
export function categorize(filePath: string): ChangeCategory {
  const path = normalize(filePath).toLowerCase();
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1) : '';
  for (const [category, test] of RULES) if (test({ path, base, ext })) return category;
  return 'other';
}

/**
 * How much a category can explain an SEO regression, used only to choose which changes to keep
 * when there are more than `MAX_CHANGES`.
 */
const KEEP_FIRST: readonly ChangeCategory[] = [
  'robots', 'sitemap', 'redirects', 'headers', 'routing', 'template', 'page', 'server', 'config', 'content',
  'component', 'script', 'dependencies', 'style', 'build', 'asset', 'other', 'docs', 'test',
];

/**
 * Maps changed file paths (e.g. from `git diff --name-only`) to `{path, category}` changes with
 * the heuristic of `categorize` (the table above `RULES`). Blank lines and duplicates are dropped,
 * `./` prefixes and `\` separators normalized. At most `MAX_CHANGES` (500) come back: when there
 * are more, those whose category is most likely to explain a regression (robots, sitemap,
 * redirects, headers, routing, templates, pages, ... tests last) are kept, in input order.
 */
export function changesFromPaths(paths: readonly string[]): ChangeInput[] {
  const seen = new Set<string>();
  const changes: ChangeInput[] = [];
  for (const raw of paths) {
    const path = normalize(raw);
    if (!path || seen.has(path)) continue;
    seen.add(path);
    changes.push({ path, category: categorize(path) });
  }
  if (changes.length <= MAX_CHANGES) return changes;
  const rank = (c: ChangeInput) => KEEP_FIRST.indexOf(c.category);
  const kept = new Set(
    changes
      .map((c, i) => ({ c, i }))
      .sort((a, b) => rank(a.c) - rank(b.c) || a.i - b.i)
      .slice(0, MAX_CHANGES)
      .map(({ c }) => c),
  );
  return changes.filter((c) => kept.has(c));
}

function normalize(p: string): string {
  return String(p).trim().replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/\/{2,}/g, '/');
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
