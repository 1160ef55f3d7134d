// What kind of file a changed path is, from the path alone (the server ranks a deploy's changes
// as causes of a regression partly by category, so the rules know the common site frameworks).
import type { ChangeCategory } from '../types.js';

type Facts = { path: string; base: string; ext: string };
type Rule = readonly [ChangeCategory, (f: Facts) => boolean];

/** `(^|/)(a|b)/`: the path has a folder named `a` or `b` somewhere. */
const dir = (names: string) => new RegExp(`(^|/)(${names})/`);

const LOCKFILES = new Set([
  'package.json', 'package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml', 'pnpm-workspace.yaml',
  'bun.lock', 'bun.lockb', 'deno.json', 'deno.lock', 'composer.json', 'composer.lock', 'gemfile', 'gemfile.lock', 'gems.rb',
  'gems.locked', 'go.mod', 'go.sum', 'cargo.toml', 'cargo.lock', 'pipfile', 'pipfile.lock', 'poetry.lock', 'pyproject.toml',
  'requirements.txt', 'uv.lock', 'constraints.txt',
]);
const CONFIG_FILES = new Set([
  'netlify.toml', 'vercel.json', 'now.json', 'wrangler.toml', 'wrangler.json', 'wrangler.jsonc', 'firebase.json', 'app.yaml',
  '.htaccess', 'web.config', 'nginx.conf', 'caddyfile', 'serve.json', 'tsconfig.json', 'jsconfig.json', '.babelrc',
  '.browserslistrc', '.nvmrc', '.node-version', '.npmrc', '.editorconfig', '.dev.vars', 'angular.json', 'mkdocs.yml',
  // Static site generators' site configs (Hugo, Jekyll, Eleventy, Gatsby).
  'hugo.toml', 'hugo.yaml', 'hugo.yml', 'hugo.json', 'config.toml', 'config.yaml', 'config.yml', '.eleventy.js',
  'gatsby-config.js', 'gatsby-config.ts', 'gatsby-node.js', 'gatsby-node.ts', 'gatsby-ssr.js', 'gatsby-ssr.tsx', 'gatsby-browser.js',
]);
const STYLE_EXT = new Set(['css', 'scss', 'sass', 'less', 'styl', 'stylus', 'pcss', 'postcss']);
const ASSET_EXT = new Set([
  'png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'svg', 'ico', 'bmp', 'tif', 'tiff', 'heic',
  'woff', 'woff2', 'ttf', 'otf', 'eot', 'mp4', 'webm', 'mov', 'mp3', 'wav', 'ogg', 'pdf',
]);
const DOC_EXT = new Set(['md', 'mdx', 'markdown', 'rst', 'adoc', 'txt']);
const SCRIPT_EXT = new Set(['js', 'mjs', 'cjs', 'ts', 'mts', 'cts']);
const COMPONENT_EXT = new Set(['jsx', 'tsx', 'vue', 'svelte', 'astro']);
/** Server-side template languages: outside template folders such a file renders a page. */
const TEMPLATE_LANG_EXT = new Set(['erb', 'haml', 'slim', 'njk', 'liquid', 'hbs', 'handlebars', 'mustache', 'jinja', 'jinja2', 'j2', 'twig', 'ejs', 'pug']);
/** Server languages: in a website repository, code in these is server code. */
const SERVER_EXT = new Set(['py', 'rb', 'rake', 'php', 'go', 'java', 'kt', 'cs', 'rs', 'ex', 'exs', 'erl', 'clj', 'scala', 'lua', 'pl']);

/**
 * The rules, first match wins (paths compared in lower case, `\` read as `/`). Framework notes in
 * brackets say which layout a rule is for; `dir/` means a folder of that name at any depth.
 *
 * | category | paths |
 * |---|---|
 * | robots | `robots.txt`; `robots.{ts,js,py,rb}` [Next `app/robots.ts`], `robots.txt.{ts,js}` [Astro endpoint] |
 * | sitemap | `sitemap*.xml(.gz)`; `sitemap*.{ts,js}` [Next `app/sitemap.ts`, Astro `sitemap.xml.ts`], `sitemaps.py` [Django], `sitemap.rb`; `next-sitemap.config.*` |
 * | redirects | `_redirects` [Netlify, Cloudflare Pages], `redirects.*` |
 * | headers | `_headers` [Netlify, Cloudflare Pages], `headers.{json,js,ts}` |
 * | dependencies | `package.json` and lockfiles (npm, yarn, pnpm, bun, deno, composer, bundler `Gemfile`, go, cargo, pip `requirements*.txt`, pipenv, poetry, uv) |
 * | test | `*.test.*`, `*.spec.*`, `*_test.{go,py,rb}`, `test_*.py`, `__tests__/`, `__mocks__/`, `test/`, `tests/`, `spec/`, `e2e/`, `cypress/`, `playwright/`, `fixtures/` |
 * | build | `.github/`, `.circleci/`, `.buildkite/`, `.gitlab-ci.yml`, other CI files, `Dockerfile*`, `docker-compose*`, `Makefile`, `Jenkinsfile`, `Procfile` |
 * | config | `*.config.*` [`next.config.*`, `nuxt.config.*`, `astro.config.*`, `svelte.config.js`, ...], `.env*`, `.*rc`, `tsconfig*.json`, hosting files (`netlify.toml`, `vercel.json`, `.htaccess`, `nginx.conf`, ...), site configs (`_config*.yml` [Jekyll], `hugo.*`, `config.{toml,yaml}` [Hugo]), `settings.py` / `settings/*.py` [Django], `gatsby-*.js` |
 * | style | `*.css`, `*.scss`, `*.sass`, `*.less`, `*.styl`, `*.pcss` |
 * | asset | images, fonts, video, audio, PDF; `opengraph-image.*`, `icon.*` [Next app router] |
 * | docs | a top-level `docs/` or `doc/`; `README*`, `CHANGELOG*`, `LICENSE*`, `CONTRIBUTING*` anywhere |
 * | other | mailer views `app/views/*_mailer/` [Rails]: e-mails, not pages |
 * | routing | `middleware.*` [Next], `middleware/` [Nuxt route middleware], `hooks.server.*`, `src/hooks.{ts,js}` [SvelteKit], `routes.*`, `config/routes/` [Rails], `router.*`, `router.options.*` [Nuxt], `urls.py` [Django], `_routes.json` |
 * | server | `server/`, `api/` [also Next `pages/api/`, `app/api/`], `functions/`, `edge-functions/`, `lambda/`, `backend/`, `controllers/` [Rails `app/controllers/`]; `route.{ts,js}` [Next route handlers], `+server.*` [SvelteKit], `views.py`, `views/*.py` [Django], `_worker.js` |
 * | component | `layouts/shortcodes/` [Hugo] |
 * | template | `layout/`, `layouts/` [Nuxt, Astro, Hugo, Rails `app/views/layouts/`], `template(s)/` [Django, Jinja, Flask], `jinja2/`, `_layouts/`, `_includes/` [Jekyll, Eleventy], `partials/` [Hugo], `includes/`, `snippets/`, `templatetags/`, `app/helpers/` [Rails view helpers]; `layout.*` [Next], `+layout.*` [SvelteKit], `template.*`, `_app.*`, `_document.*` [Next pages router], `app.vue` [Nuxt], `app.html` [SvelteKit]; `_*.{erb,haml,slim}` under `views/` [Rails partials] |
 * | page | `pages/` [Next, Nuxt, Astro `src/pages/`], `routes/` [SvelteKit `src/routes/`], `_pages/` [Jekyll], `views/` [Rails `app/views/`, Express]; `app/**\/{page,not-found,error,loading,default,global-error}.*` [Next app router], `+page.*`, `+error.*` [SvelteKit], `error.vue` [Nuxt]; `*.html`, `*.htm` [plain sites]; server template languages (`*.erb`, `*.njk`, `*.liquid`, ...) elsewhere |
 * | component | `component/`, `components/` [all], `islands/` |
 * | content | (not server languages, so a Django app named `blog` stays code) `content/` [Hugo, Nuxt Content, Astro `src/content/`], `posts/`, `_posts/`, `_drafts/`, `_data/` [Jekyll], `archetypes/` [Hugo], `blog/`, `articles/`, `data/`, `locales/`, `locale/`, `i18n/`, `messages/`, `translations/` |
 * | config | `config/` [Rails, Hugo `config/_default/`] |
 * | asset | anything else under `public/`, `static/` [Hugo, SvelteKit, Django], `assets/`, `images/`, `img/`, `fonts/`, `media/`, `uploads/` that is not a script |
 * | docs | `*.md`, `*.mdx`, `*.rst`, `*.adoc`, `*.txt` elsewhere |
 * | component | `*.jsx`, `*.tsx`, `*.vue`, `*.svelte`, `*.astro` elsewhere |
 * | script | `scripts/`, `js/`; `*.js`, `*.mjs`, `*.cjs`, `*.ts` elsewhere |
 * | server | `*.server.*` [Remix]; server languages (`*.py`, `*.rb`, `*.php`, `*.go`, ...) elsewhere |
 * | other | everything else |
 *
 * Style, asset and test rules come before folder rules, so `components/Button.module.scss` is a
 * style and `components/Nav.test.tsx` a test; component and content folders come before the file
 * type, so a `.tsx` under `components/` is a component and a `.md` under `content/` is content.
 */
const RULES: readonly Rule[] = [
  ['robots', ({ base }) => base === 'robots.txt' || /^robots(\.txt)?\.([cm]?[jt]s|py|rb)$/.test(base)],
  ['sitemap', ({ base }) =>
    /^sitemap[\w.-]*\.xml(\.gz)?$/.test(base) || /^sitemaps?[\w.-]*\.([cm]?[jt]sx?|py|rb)$/.test(base) || base.startsWith('next-sitemap.config.')],
  ['redirects', ({ base }) => base === '_redirects' || /^redirects\.[a-z]+$/.test(base)],
  ['headers', ({ base }) => base === '_headers' || /^headers\.(json|js|mjs|ts)$/.test(base)],
  ['dependencies', ({ base }) => LOCKFILES.has(base) || /^requirements[\w.-]*\.txt$/.test(base)],
  ['test', ({ path, base }) =>
    /\.(test|spec)\.[a-z0-9]+$/.test(base) || /_(test|spec)\.(go|py|rb|exs)$/.test(base) || /^test_[\w-]+\.py$/.test(base) ||
    dir('__tests__|__mocks__|tests?|spec|e2e|cypress|playwright|fixtures').test(path)],
  ['build', ({ path, base }) =>
    /^(\.github|\.circleci|\.buildkite)\//.test(path) || base === '.gitlab-ci.yml' || base.startsWith('dockerfile') ||
    base.startsWith('docker-compose') || base === 'makefile' || base === 'jenkinsfile' || base === 'procfile' ||
    ['.travis.yml', 'bitbucket-pipelines.yml', 'azure-pipelines.yml', 'cloudbuild.yaml', 'buildspec.yml', 'netlify.build.toml'].includes(base)],
  ['config', ({ path, base }) =>
    /\.config\.[a-z]+$/.test(base) || /^\.env(\..+)?$/.test(base) || /^\.[\w-]+rc(\.(json|js|cjs|mjs|ya?ml))?$/.test(base) ||
    /^tsconfig[\w.-]*\.json$/.test(base) || CONFIG_FILES.has(base) || /^_config[\w.-]*\.ya?ml$/.test(base) ||
    base === 'settings.py' || /(^|\/)settings\/[\w-]+\.py$/.test(path)],
  ['style', ({ ext }) => STYLE_EXT.has(ext)],
  ['asset', ({ ext, path, base }) =>
    ASSET_EXT.has(ext) || (/(^|\/)app\//.test(path) && /^(opengraph-image|twitter-image|icon|apple-icon)\.[a-z]+$/.test(base))],
  ['docs', ({ path, base }) => /^docs?\//.test(path) || /^(readme|changelog|license|licence|contributing|code_of_conduct)(\.|$)/.test(base)],
  ['other', ({ path }) => /(^|\/)app\/views\/[^/]*_mailer\//.test(path)],
  ['routing', ({ path, base }) =>
    /^(middleware|routes|router|urls)(\.[a-z]+)+$/.test(base) || base === '_routes.json' || /^hooks\.server\.[a-z]+$/.test(base) ||
    /(^|\/)src\/hooks\.(ts|js)$/.test(path) || (dir('middleware').test(path) && !dir('server').test(path)) ||
    /(^|\/)config\/routes\//.test(path)],
  ['server', ({ path, base, ext }) =>
    dir('server|api|functions|edge-functions|lambda|backend|controllers').test(path) || /^route\.(ts|js|mjs)$/.test(base) ||
    /^\+server\.[a-z]+$/.test(base) || base === 'views.py' || (dir('views').test(path) && ext === 'py') || base === '_worker.js'],
  ['component', ({ path }) => /(^|\/)layouts\/shortcodes\//.test(path)],
  ['template', ({ path, base }) =>
    dir('layouts?|templates?|jinja2|_layouts|_includes|partials|includes|snippets|templatetags').test(path) || /(^|\/)app\/helpers\//.test(path) ||
    /^\+?(layout|template)\.[a-z]+$/.test(base) || /^\+layout(\.server)?\.[a-z]+$/.test(base) || /^_(app|document)\.[a-z]+$/.test(base) ||
    base === 'app.vue' || base === 'app.html' || (/(^|\/)views\//.test(path) && /^_[^/]*\.(erb|haml|slim)$/.test(base))],
  ['page', ({ path, base, ext }) =>
    dir('pages|routes|_pages|views').test(path) ||
    (/(^|\/)app\//.test(path) && /^(page|not-found|error|loading|default|global-error|forbidden|unauthorized)\.[a-z]+$/.test(base)) ||
    /^\+(page|error)(\.server)?\.[a-z]+$/.test(base) || base === 'error.vue' || ext === 'html' || ext === 'htm' || TEMPLATE_LANG_EXT.has(ext)],
  ['component', ({ path }) => dir('components?|islands').test(path)],
  ['content', ({ path, ext }) =>
    dir('content|posts|_posts|_drafts|_data|archetypes|blog|articles|data|locales?|i18n|messages|translations').test(path) && !SERVER_EXT.has(ext)],
  ['config', ({ path }) => dir('config').test(path)],
  ['asset', ({ path, ext }) =>
    dir('public|static|assets|images|img|fonts|media|uploads').test(path) && !SCRIPT_EXT.has(ext) && !COMPONENT_EXT.has(ext) && !SERVER_EXT.has(ext)],
  ['docs', ({ ext }) => DOC_EXT.has(ext)],
  ['component', ({ ext }) => COMPONENT_EXT.has(ext)],
  ['script', ({ path, ext, base }) => !/\.server\.[a-z]+$/.test(base) && (dir('scripts?|js').test(path) || SCRIPT_EXT.has(ext))],
  ['server', ({ base, ext }) => /\.server\.[a-z]+$/.test(base) || SERVER_EXT.has(ext)],
];

/** The category of one changed path; see the table above `RULES` (exported as `categorize`). */
export function categorize(filePath: string): ChangeCategory {
  const path = normalizePath(filePath).toLowerCase();
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1) : '';
  for (const [category, test] of RULES) if (test({ path, base, ext })) return category;
  return 'other';
}

/**
 * How much a category can explain an SEO regression, most first: used only to choose which
 * changes to keep when a deploy has more files than the server accepts.
 */
export const CATEGORY_PRIORITY: readonly ChangeCategory[] = [
  'robots', 'sitemap', 'redirects', 'headers', 'routing', 'template', 'page', 'server', 'config', 'content',
  'component', 'script', 'dependencies', 'style', 'build', 'asset', 'other', 'docs', 'test',
];

/** Repository-relative form: `/` separators, no `./` prefix, no doubled slashes. */
export function normalizePath(p: string): string {
  return String(p).trim().replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/\/{2,}/g, '/');
}
