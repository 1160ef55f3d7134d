// SEO-relevant signals in a file's changed lines. Only the signal's kind, whether it was added
// or removed, and the line number come out of here: never the line itself.
import { MAX_SIGNALS_PER_CHANGE } from '../limits.js';
import type { ChangeCategory, Signal, SignalKind } from '../types.js';
import { categorize, normalizePath } from './categorize.js';

export type ChangeSide = 'added' | 'removed';
export type FileStatus = 'added' | 'deleted' | 'modified' | 'renamed' | 'copied' | 'type_changed';

/**
 * One changed line: `line` is its number in the new file for added lines and in the old file for
 * removed ones; `section` is the hunk header's function context (the text after the second
 * `@@`), which `diff.ts` asks git to fill with the nearest enclosing section (`redirects() {`,
 * `"dependencies": {`, `[[redirects]]`, ...).
 */
export interface DiffLine {
  line: number;
  text: string;
  section?: string;
}

export interface SignalScanOptions {
  /** What happened to the file; `added`/`deleted`/`renamed` page files give `route` signals. */
  status?: FileStatus;
  /** The previous path of a renamed or copied file. */
  oldPath?: string;
  /** At most this many signals come back (default 50, the server's limit per file). */
  maxSignals?: number;
  /** Default `categorize(path)`. */
  category?: ChangeCategory;
}

export interface SignalScanResult {
  signals: Signal[];
  /** More signals were found than `maxSignals`; the most telling ones were kept. */
  truncated: boolean;
}

/** Default and server maximum of signals per file (`Change.signals` maxItems in the API document). */
export const MAX_SIGNALS_PER_FILE = MAX_SIGNALS_PER_CHANGE;

/**
 * Most telling first: when a file has more signals than the cap, these win. Crawl blockers and
 * URL changes explain regressions best; assets and dependencies least.
 */
export const SIGNAL_PRIORITY: readonly SignalKind[] = [
  'meta_robots', 'x_robots_tag', 'robots_rule', 'canonical', 'redirect', 'status_code', 'route', 'sitemap_entry',
  'hreflang', 'title', 'meta_description', 'structured_data', 'heading', 'link', 'script', 'stylesheet',
  'lazy_loading', 'image', 'font', 'dependency', 'env', 'other',
];

/** Lines are cut here: a minified file may be one line of megabytes, and its head is enough. */
const MAX_LINE_CHARS = 1 << 20;

// ---------------------------------------------------------------------------------------------
// File profiles: which detectors apply to a path.

type FileType =
  | 'code' | 'markup' | 'markdown' | 'python' | 'ruby' | 'style' | 'server_conf'
  | 'robots_txt' | 'xml' | 'redirects_file' | 'headers_file' | 'env_file' | 'dockerfile' | 'site_config'
  | 'hosting_json' | 'netlify_toml' | 'package_json' | 'package_lock' | 'yarn_lock' | 'pnpm_lock'
  | 'gemfile' | 'gemfile_lock' | 'requirements' | 'toml_deps' | 'toml_lock' | 'go_mod' | 'none';

type CommentStyle = 'hash' | 'slash' | 'markup';

/**
 * The section a line sits in. `metadata` is a head/SEO object (Next `metadata`, `useHead`,
 * `useSeoMeta`, `head: {}`), `robots`/`alternates`/`languages`/`social` live inside one,
 * `seoProps` are the props of a `<Layout>`/`<BaseHead>`/`<NextSeo>` element spread over lines.
 */
type Ctx =
  | 'metadata' | 'robots' | 'alternates' | 'languages' | 'social' | 'seoProps'
  | 'redirects' | 'rewrites' | 'headers' | 'routeRules' | 'deps' | 'env' | 'other';

interface Frame {
  ctx: Ctx;
  /** Lines indented at most this much are outside the section; -1 never closes by indentation. */
  indent: number;
  /** A TOML `[table]`: lasts until the next table header. */
  table?: boolean;
  /** Lives inside a metadata object (`robots: {` in `export const metadata = {`). */
  nested?: boolean;
}

interface Profile {
  path: string;
  ext: string;
  base: string;
  category: ChangeCategory;
  type: FileType;
  comments: readonly CommentStyle[];
  /** Vue/Svelte single-file components: `<script>`/`<style>` at column 0 are the component's own blocks. */
  sfc: boolean;
  frontMatter: boolean;
  robotsCode: boolean;
  sitemapCode: boolean;
  configCode: boolean;
  routes: 'rails' | 'django' | 'router' | null;
  opener: ((text: string) => Frame | null) | null;
}

const CODE_EXT = new Set(['js', 'mjs', 'cjs', 'ts', 'mts', 'cts', 'jsx', 'tsx', 'vue', 'svelte', 'astro']);
const MARKUP_EXT = new Set([
  'html', 'htm', 'xhtml', 'erb', 'haml', 'slim', 'njk', 'liquid', 'hbs', 'handlebars', 'mustache', 'jinja', 'jinja2', 'j2',
  'twig', 'ejs', 'pug', 'php', 'cshtml', 'razor', 'gohtml', 'tmpl',
]);
const MARKDOWN_EXT = new Set(['md', 'mdx', 'markdown', 'mdown', 'mkd']);
const STYLE_EXT = new Set(['css', 'scss', 'sass', 'less', 'styl', 'stylus', 'pcss', 'postcss']);
const IMAGE_EXT = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'svg', 'ico', 'bmp', 'tif', 'tiff', 'heic']);
const FONT_EXT = new Set(['woff', 'woff2', 'ttf', 'otf', 'eot']);

function profileOf(rawPath: string, category: ChangeCategory): Profile {
  const path = normalizePath(rawPath).toLowerCase();
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1) : '';
  const type = fileType(path, base, ext);
  const comments: CommentStyle[] =
    type === 'code' ? ['slash', 'markup'] :
    type === 'markup' ? (ext === 'php' ? ['markup', 'slash', 'hash'] : ['markup']) :
    type === 'markdown' ? ['markup'] :
    type === 'style' || type === 'hosting_json' || type === 'package_json' || type === 'package_lock' ? ['slash'] :
    type === 'xml' ? ['markup'] :
    type === 'none' ? [] : ['hash'];
  return {
    path, ext, base, category, type, comments,
    sfc: ext === 'vue' || ext === 'svelte',
    frontMatter: type === 'markdown' || type === 'markup',
    robotsCode: category === 'robots' && type !== 'robots_txt',
    sitemapCode: category === 'sitemap' && type !== 'xml',
    configCode: category === 'config' || category === 'routing',
    routes:
      base === 'routes.rb' || /(^|\/)config\/routes\//.test(path) ? 'rails' :
      base === 'urls.py' ? 'django' :
      category === 'routing' && type === 'code' ? 'router' : null,
    opener:
      type === 'code' ? jsOpener :
      type === 'package_json' ? packageJsonOpener :
      type === 'hosting_json' ? hostingJsonOpener :
      type === 'netlify_toml' ? netlifyTomlOpener :
      type === 'toml_deps' ? tomlDepsOpener : null,
  };
}

function fileType(path: string, base: string, ext: string): FileType {
  if (base === 'robots.txt') return 'robots_txt';
  if (base === '_redirects') return 'redirects_file';
  if (base === '_headers') return 'headers_file';
  if (/^\.env(\..+)?$/.test(base) || base === '.dev.vars') return 'env_file';
  if (base === 'package.json' || base === 'composer.json') return 'package_json';
  if (base === 'package-lock.json' || base === 'npm-shrinkwrap.json') return 'package_lock';
  if (base === 'yarn.lock') return 'yarn_lock';
  if (base === 'pnpm-lock.yaml') return 'pnpm_lock';
  if (base === 'gemfile' || base === 'gems.rb') return 'gemfile';
  if (base === 'gemfile.lock' || base === 'gems.locked') return 'gemfile_lock';
  if (/^(requirements|constraints)[\w.-]*\.txt$/.test(base)) return 'requirements';
  if (base === 'pyproject.toml' || base === 'pipfile' || base === 'cargo.toml') return 'toml_deps';
  if (base === 'poetry.lock' || base === 'cargo.lock' || base === 'uv.lock') return 'toml_lock';
  if (base === 'go.mod') return 'go_mod';
  if (['vercel.json', 'now.json', 'firebase.json', 'staticwebapp.config.json', 'serve.json'].includes(base)) return 'hosting_json';
  if (base === 'netlify.toml') return 'netlify_toml';
  if (base === '.htaccess' || base === 'caddyfile' || base === 'web.config' || /(^|\/)nginx[^/]*\/|(^|\/)nginx\.conf$/.test(path) || (ext === 'conf' && /nginx|apache|httpd|site/.test(path))) return 'server_conf';
  if (base.startsWith('dockerfile')) return 'dockerfile';
  if (/^_config[\w.-]*\.ya?ml$/.test(base) || /^(hugo|config)\.(toml|ya?ml|json)$/.test(base) || /(^|\/)config\/_default\/[^/]+\.(toml|ya?ml)$/.test(path)) return 'site_config';
  if (ext === 'xml') return 'xml';
  if (MARKDOWN_EXT.has(ext)) return 'markdown';
  if (CODE_EXT.has(ext)) return 'code';
  if (MARKUP_EXT.has(ext)) return 'markup';
  if (STYLE_EXT.has(ext)) return 'style';
  if (ext === 'py') return 'python';
  if (ext === 'rb' || ext === 'rake') return 'ruby';
  return 'none';
}

// ---------------------------------------------------------------------------------------------
// Section openers. Each is also what `diff.ts` asks git to report as a hunk's function context
// (see `XFUNCNAME` there), so a change inside an existing section knows where it is.

const META_FAMILY = new Set<Ctx>(['metadata', 'robots', 'alternates', 'languages', 'social']);

const JS_OPENERS: ReadonlyArray<readonly [RegExp, Ctx, boolean?]> = [
  [/^\s*(export\s+)?(const|let|var)\s+metadata\b/, 'metadata'],
  [/\bgenerateMetadata\b/, 'metadata'],
  [/^\s*export\s+(const|let|async\s+function|function)\s+(meta|head)\b/, 'metadata'],
  [/\b(useHead|useHeadSafe|useSeoMeta|useServerSeoMeta|useServerHead)\s*\(/, 'metadata'],
  [/\b(siteMetadata|seo|head)\s*[:=]\s*\{/, 'metadata'],
  [/\bhead\s*\(\s*\)\s*\{/, 'metadata'],
  [/\brobots\s*:\s*\{/, 'robots', true],
  [/\balternates\s*:\s*\{/, 'alternates', true],
  [/\blanguages\s*:\s*\{/, 'languages', true],
  [/\b(openGraph|twitter)\s*:\s*\{/, 'social', true],
  [/\b(async\s+)?redirects\s*(\(\s*\)\s*\{|:\s*[[{])/, 'redirects'],
  [/\bredirect\s*:\s*\{/, 'redirects'],
  [/\b(async\s+)?rewrites\s*(\(\s*\)\s*\{|:\s*[[{])/, 'rewrites'],
  [/\b(async\s+)?headers\s*(\(\s*\)\s*\{|:\s*[[{])/, 'headers'],
  [/\brouteRules\s*:\s*\{/, 'routeRules'],
];
/** A JSX element that takes page-level SEO props, left open on this line (props follow below). */
const SEO_ELEMENT = /<(?:[A-Z]\w*)?(?:Layout|Head|Seo|SEO|Meta|MetaTags)(?=[\s/>]|$)/;
const SEO_ELEMENT_OPEN = /<(?:[A-Z]\w*)?(?:Layout|Head|Seo|SEO|Meta|MetaTags)(?:\s[^>]*)?$/;

function jsOpener(text: string): Frame | null {
  const indent = indentOf(text);
  for (const [re, ctx, nested] of JS_OPENERS) {
    if (re.test(text)) return { ctx, indent, nested };
  }
  if (SEO_ELEMENT_OPEN.test(text)) return { ctx: 'seoProps', indent };
  return null;
}

const DEP_KEYS = new Set([
  'dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies', 'bundledDependencies',
  'overrides', 'resolutions', 'require', 'require-dev',
]);
function packageJsonOpener(text: string): Frame | null {
  const m = /^\s*"([^"]*)"\s*:\s*[{[]/.exec(text);
  return m ? { ctx: DEP_KEYS.has(m[1]) ? 'deps' : 'other', indent: indentOf(text) } : null;
}

const HOSTING_KEYS: Record<string, Ctx> = { redirects: 'redirects', rewrites: 'rewrites', routes: 'rewrites', headers: 'headers', env: 'env' };
function hostingJsonOpener(text: string): Frame | null {
  const m = /^\s*"(redirects|rewrites|routes|headers|env)"\s*:\s*[{[]/.exec(text);
  return m ? { ctx: HOSTING_KEYS[m[1]], indent: indentOf(text) } : null;
}

const TOML_TABLE = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;
function netlifyTomlOpener(text: string): Frame | null {
  const m = TOML_TABLE.exec(text);
  if (!m) return null;
  const name = m[1].toLowerCase();
  const ctx: Ctx = name === 'redirects' ? 'redirects' : name.startsWith('headers') ? 'headers' : /(^|\.)environment$/.test(name) ? 'env' : 'other';
  return { ctx, indent: -1, table: true };
}
function tomlDepsOpener(text: string): Frame | null {
  const m = TOML_TABLE.exec(text);
  if (m) {
    const name = m[1].toLowerCase().replace(/["']/g, '');
    const deps = /(^|\.)((dev|build)-)?dependencies$/.test(name) || /(^|\.)dependencies\.[^.]+$/.test(name) ||
      name === 'packages' || name === 'dev-packages' || name === 'project.optional-dependencies' || /dependency-groups$/.test(name);
    return { ctx: deps ? 'deps' : 'other', indent: -1, table: true };
  }
  if (/^\s*[\w"'.-]*(dependencies|requires|dev)\s*=\s*\[\s*(#.*)?$/i.test(text)) return { ctx: 'deps', indent: indentOf(text) };
  return null;
}

// ---------------------------------------------------------------------------------------------
// Detectors. `emit(kind, weak)`: a weak signal is a part of a construct whose anchor line would
// give the same kind (a redirect's `destination:` under its `source:`), so it is dropped when the
// same run of changed lines has a strong one of that kind.

type Emit = (kind: SignalKind, weak?: boolean) => void;

const IMPORT_LINE = /^\s*(?:import\s|export\s+\*\s+from\s|export\s+\{[^}]*\}\s+from\s|(?:const|let|var)\s+[\w{}\s,]+=\s*require\s*\(|from\s+[\w.]+\s+import\s|require\s+['"]|require_relative\s)/;
const CSS_IMPORT = /['"][^'"]+\.(?:css|scss|sass|less|styl|pcss)['"]/;
const FONT_IMPORT = /['"](?:next\/font|@next\/font|@fontsource|typeface-)|\.(?:woff2?|ttf|otf|eot)['"]/;

const TAG = (names: string, flags = '') => new RegExp(`<(?:${names})(?=[\\s>/]|$)`, flags);
const RE = {
  titleTag: TAG('title', 'i'),
  heading: TAG('h[1-6]', 'i'),
  anchor: TAG('a', 'i'),
  linkComponent: TAG('Link|NuxtLink|RouterLink|NavLink|router-link|nuxt-link|Anchor'),
  scriptTag: TAG('script', 'i'),
  styleTag: TAG('style', 'i'),
  imgTag: TAG('img|picture', 'i'),
  imgComponent: TAG('Image|Img|NuxtImg|NuxtPicture|Picture|StaticImage|GatsbyImage|ResponsiveImage|CldImage|Figure'),
  srcset: /\bsrcset\s*=/i,
  redirectComponent: TAG('Redirect|Navigate'),
  routeComponent: TAG('Route'),
  lazyComponent: /<(?:ClientOnly|client-only|LazyHydrate|Lazy[A-Z]\w*)(?=[\s>/]|$)/,
  ldJson: /application\/ld\+json/i,
  structuredStrong: /\bitem(?:scope|type)\b|<(?:\w*JsonLd|JsonLD|JSONLD|StructuredData|SchemaOrg)(?=[\s>/]|$)|\buseSchemaOrg\s*\(/i,
  structuredWeak: /\bitemprop\s*=|["']@(?:context|type|graph|id)["']|schema\.org|\b(?:jsonLd|json_ld|ld_json|jsonld|structuredData|structured_data)\b/i,
  hreflang: /hreflang/i,
  canonical: /canonical/i,
  xRobots: /x-robots-tag/i,
  robotsToken: /\b(?:no-?index|nofollow|noarchive|nosnippet|noimageindex|max-snippet|max-image-preview|max-video-preview|unavailable_after|indexifembedded)\b/i,
  relAttr: /\brel\s*[=:]\s*\{?\s*["'`][^"'`]*["'`]/gi,
  relValue: /\brel\s*[=:]\s*\{?\s*["'`]?([\w\s-]+)/gi,
  preloadAs: /\bas\s*[=:]\s*\{?\s*["'`]?(font|style|script|image)\b/i,
  metaName: /\b(?:name|property|hid)\s*[=:]\s*\{?\s*["'`](robots|googlebot(?:-news)?|bingbot|description|og:image|twitter:image)["'`]/gi,
  metaTag: /<meta(?=[\s/>]|$)/i,
  contentAttr: /\bcontent\s*[=:]/,
  metaRefresh: /http-equiv\s*=\s*\{?\s*["']?refresh/i,
  docTitle: /\bdocument\.title\s*=(?!=)/,
  slot: /\{%-?\s*(?:block|include)\s+["']?([\w/.-]+)|\{\{-?\s*(?:block|define|partial|template)\s+"([\w/.-]+)"|\b(?:content_for\??|provide|yield)\s*\(?\s*:(\w+)|@(?:section|yield|push|stack)\s*\(\s*['"]([\w.-]+)/g,
  jekyllSeo: /\{%-?\s*seo\b/,
  erbHeading: /\bcontent_tag\s*\(?\s*:h[1-6]\b|\btag\.h[1-6]\b/,
  erbLink: /\b(?:link_to|button_to|link_to_unless_current)\b/,
  erbImage: /\b(?:image_tag|image_pack_tag|picture_tag)\b/,
  erbScript: /\b(?:javascript_include_tag|javascript_importmap_tags|javascript_pack_tag|javascript_packs_with_chunks_tag|vite_javascript_tag|vite_client_tag)\b/,
  erbStyle: /\b(?:stylesheet_link_tag|stylesheet_pack_tag|stylesheet_packs_with_chunks_tag|vite_stylesheet_tag)\b/,
  hrefKey: /\bhref\s*:\s*['"`]/,
  loading: /\bloading\s*[=:]\s*\{?\s*["'`]?(?:lazy|eager|auto)\b|\bfetch[pP]riority\s*[=:]|\blazyload\b|\bdata-src\s*=|\bcontent-visibility\s*:/,
  imagePriority: /<Image\b[^>]*\bpriority\b|^\s*priority(?:=\{?true\}?)?\s*$/,
  lazyCode: /\bReact\.lazy\s*\(|\blazy\s*\(\s*(?:async\s*)?\(\s*\)\s*=>|\bdynamic\s*\(\s*(?:async\s*)?\(\s*\)\s*=>|\bssr\s*:\s*false\b|\bclient:(?:only|visible|idle|media)\b|\bdefineAsyncComponent\s*\(/,
  fontCode: /@font-face|\bfont-display\s*:|fonts\.(?:googleapis|gstatic)\.com|use\.typekit\.net|fonts\.bunny\.net|kit\.fontawesome\.com|\.(?:woff2?|ttf|otf|eot)\b|\blocalFont\s*\(|\b[A-Z]\w*\(\s*\{\s*(?:subsets|weight)\s*:/,
  env: /\bprocess\.env\b|\bimport\.meta\.env\b|\b(?:Deno|Bun)\.env\b|\bos\.environ\b|\bos\.getenv\s*\(|\bENV\s*(?:\[|\.fetch\b)|\$env\/(?:static|dynamic)\/|\bgetenv\s*\(|\buseRuntimeConfig\s*\(|\bruntimeConfig\s*:|\benv(?:\.(?:str|bool|int|list|url|db|json))?\s*\(\s*['"][A-Z_]|\bRails\.application\.credentials\b/,
  robotsStrings: /(?:^|[\s"'`>\\n])(?:User-agent|Disallow|Allow)\s*:/,
  robotsKeys: /\b(?:disallow|allow|userAgent|user_agent|crawlDelay)\s*:/i,
  sitemapCall: /\bsitemap\s*\(/i,
  sitemapKey: /\bsitemaps?\s*:/i,
  sitemapStrong: /\b(?:url|loc|exclude|siteUrl|additionalPaths|items)\b\s*[:=(]|\bdef\s+items\b/,
  sitemapWeak: /\b(?:lastModified|lastmod|changeFrequency|changefreq|priority|location)\b/,
  redirectCall: /\b(?:permanentRedirect|redirect|redirect_to|redirect_permanent|redirect_back(?:_or_to)?|sendRedirect|temporaryRedirect|redirectTo)\s*\(|\bredirect_to\s+[\w:@'"]|\bRedirectView\b|\bHttpResponse(?:Permanent)?Redirect\b|\bRedirect(?:Response)?\s*\(/,
  redirectKey: /\bredirect(?:To|Code)?\s*:\s*[{'"`/\w]/,
  clientRedirect: /\b(?:window|document|top)\.location(?:\.href)?\s*=(?!=)|\blocation\.(?:replace|assign)\s*\(/,
  trailingSlash: /\btrailingSlash\b\s*[:=]|["'](?:trailingSlash|cleanUrls)["']\s*:/,
  basePath: /\bbasePath\b\s*[:=]|["']basePath["']\s*:/,
  jsRoute: /\b(?:app|router|server|api|fastify|hono|route|routes|r)\s*\.\s*(?:get|post|put|patch|delete|all|route|use|on)\s*\(\s*['"`]\//,
  pyRoute: /@[\w.]+\.(?:route|get|post|put|patch|delete|api_route)\s*\(/,
  staticParams: /\b(?:generateStaticParams|getStaticPaths|dynamicParams)\b/,
  rewriteCall: /\.rewrite\s*\(/,
  routerPath: /\bpath\s*:\s*['"`]/,
  djangoRoute: /\b(?:path|re_path|url)\s*\(/,
  railsRoute: /^\s*(?:get|post|put|patch|delete|match|root|resources?|namespace|scope|mount|direct|resolve|concern|constraints|draw)\b/,
  statusNum: [
    /\b(?:status|statusCode|status_code|StatusCode|http_status|httpStatus)\b["']?\s*(?:=>|[:=(])\s*["']?(\d{3})\b/,
    /\.(?:status|sendStatus|writeHead|setStatus|setStatusCode)\s*\(\s*(\d{3})\b/,
    /(?<![.\w])(?:error|abort|createError|HttpError|httpError)\s*\(\s*(?:\{\s*(?:statusCode|status)\s*:\s*)?(\d{3})\b/,
    /\bsetResponseStatus\s*\([^,)]*,\s*(\d{3})\b/,
    /\bhttp_response_code\s*\(\s*(\d{3})\b/,
    /\bHTTP\/[\d.]+\s+(\d{3})\b/,
  ],
  statusWord: /\bnotFound\s*(?:\(\s*\)|:\s*true)|(?<![.\w])(?:unauthorized|forbidden)\s*\(\s*\)|\bHttp404\b|\bHttpResponse(?:NotFound|Gone|ServerError|BadRequest|Forbidden|NotAllowed)\b|\bRoutingError\b|\bget_(?:object|list)_or_404\b/,
  statusSymbol: /\b(?:head\s*\(?|status:)\s*:([a-z_]+)\b/,
  frontMatter: [
    [/^title\s*[:=]/i, 'title'],
    [/^(?:description|meta_?description)\s*[:=]/i, 'meta_description'],
    [/^canonical(?:_?url)?\s*[:=]/i, 'canonical'],
    [/^(?:robots|no_?index|no_?follow|sitemap_exclude|search_?exclude|exclude_from_search)\s*[:=]/i, 'meta_robots'],
    [/^(?:aliases|redirect_from|redirect_to|redirects?)\s*[:=]/i, 'redirect'],
    [/^(?:slug|url|permalink|draft|published|publishDate|expiryDate)\s*[:=]/i, 'route'],
    [/^(?:image|images|cover|featured_image|thumbnail|og_?image|hero_?image)\s*[:=]/i, 'image'],
    [/^(?:hreflang|translationKey)\s*[:=]/i, 'hreflang'],
    [/^sitemap\s*[:=]/i, 'sitemap_entry'],
    [/^(?:schema|json_?ld|structured_data)\s*[:=]/i, 'structured_data'],
  ] as ReadonlyArray<readonly [RegExp, SignalKind]>,
} as const;

const REDIRECT_SYMBOLS = new Set(['moved_permanently', 'found', 'see_other', 'temporary_redirect', 'permanent_redirect']);
const PUNCTUATION_ONLY = /^[\s{}[\](),;]*$/;

function statusSignals(text: string, emit: Emit): void {
  for (const re of RE.statusNum) {
    const m = re.exec(text);
    if (m) emit(m[1].startsWith('3') ? 'redirect' : 'status_code');
  }
  if (RE.statusWord.test(text)) emit('status_code');
  const sym = RE.statusSymbol.exec(text);
  if (sym) emit(REDIRECT_SYMBOLS.has(sym[1]) ? 'redirect' : 'status_code');
}

/** A template block / partial / `content_for` name that says what it renders. */
function slotKind(name: string): SignalKind | null {
  const n = name.toLowerCase();
  if (/json_?ld|schema|structured/.test(n)) return 'structured_data';
  if (/canonical/.test(n)) return 'canonical';
  if (/robots|noindex/.test(n)) return 'meta_robots';
  if (/hreflang|alternates?\b/.test(n)) return 'hreflang';
  if (/description/.test(n)) return 'meta_description';
  if (/title/.test(n)) return 'title';
  if (/^h[1-6]$|heading/.test(n)) return 'heading';
  if (/scripts?$|(^|[/_-])js$/.test(n)) return 'script';
  if (/styles?$|stylesheets?$|(^|[/_-])css$/.test(n)) return 'stylesheet';
  return null;
}

function relSignals(text: string, emit: Emit): void {
  for (const m of text.matchAll(RE.relValue)) {
    for (const token of m[1].toLowerCase().split(/\s+/)) {
      if (token === 'canonical') emit('canonical');
      else if (token === 'stylesheet') emit('stylesheet');
      else if (token === 'modulepreload') emit('script');
      else if (token === 'icon' || token === 'apple-touch-icon' || token === 'mask-icon') emit('image');
      else if (token === 'nofollow' || token === 'sponsored' || token === 'ugc') emit('link');
      else if (token === 'preload' || token === 'prefetch') {
        const as = RE.preloadAs.exec(text)?.[1].toLowerCase();
        if (as) emit(as === 'style' ? 'stylesheet' : as as SignalKind);
      }
    }
  }
}

/** Markup, JSX and template detectors shared by code, templates and (raw HTML in) Markdown. */
function markupSignals(text: string, p: Profile, ctx: Ctx | undefined, emit: Emit): void {
  const hasTag = text.includes('<');
  if (hasTag) {
    if (RE.titleTag.test(text)) emit('title');
    if (RE.heading.test(text)) emit('heading');
    if (RE.anchor.test(text)) emit('link');
    if (RE.ldJson.test(text)) emit('structured_data');
    else if (RE.scriptTag.test(text) && !(p.sfc && /^<script/i.test(text))) emit('script');
    if (RE.styleTag.test(text) && !((p.sfc || p.ext === 'astro') && /^<style/i.test(text))) emit('stylesheet');
    if (RE.imgTag.test(text) || RE.imgComponent.test(text)) emit('image');
    if (RE.lazyComponent.test(text)) emit('lazy_loading');
    if (RE.redirectComponent.test(text)) emit('redirect');
    if (RE.routeComponent.test(text)) emit('route');
    if (RE.linkComponent.test(text) && !/\brel\s*=\s*\{?\s*["'`]?(?:canonical|alternate|stylesheet|preload|prefetch|modulepreload|icon)/i.test(text)) emit('link');
  }
  relSignals(text, emit);
  if (RE.srcset.test(text)) emit('image', true);
  if (RE.metaRefresh.test(text)) emit('redirect');
  const metaish = (hasTag && RE.metaTag.test(text)) || RE.contentAttr.test(text) || (ctx !== undefined && META_FAMILY.has(ctx));
  if (metaish) {
    for (const m of text.matchAll(RE.metaName)) {
      const v = m[1].toLowerCase();
      emit(v === 'description' ? 'meta_description' : v.endsWith(':image') ? 'image' : 'meta_robots');
    }
  }
  if (RE.hreflang.test(text)) emit('hreflang');
  if (RE.structuredStrong.test(text)) emit('structured_data');
  if (RE.structuredWeak.test(text)) emit('structured_data', true);
  if (RE.loading.test(text) || RE.imagePriority.test(text)) emit('lazy_loading');
  if (RE.jekyllSeo.test(text)) for (const k of ['title', 'meta_description', 'canonical', 'structured_data'] as const) emit(k);
  if (text.includes('{') || text.includes('@') || text.includes('content_for') || text.includes('provide') || text.includes('yield')) {
    for (const m of text.matchAll(RE.slot)) {
      const kind = slotKind(m[1] ?? m[2] ?? m[3] ?? m[4] ?? '');
      if (kind) emit(kind);
    }
  }
  if (RE.erbHeading.test(text)) emit('heading');
  if (RE.erbLink.test(text)) emit('link');
  if (RE.erbImage.test(text)) emit('image');
  if (RE.erbScript.test(text)) emit('script');
  if (RE.erbStyle.test(text)) emit('stylesheet');
  const seoElement = ctx === 'seoProps' || SEO_ELEMENT.test(text);
  if (seoElement) {
    if (/(?:^|[\s{])title\s*=/.test(text)) emit('title');
    if (/(?:^|[\s{])description\s*=/.test(text)) emit('meta_description');
    if (/(?:^|[\s{])(?:robots|noindex|nofollow)\b/.test(text)) emit('meta_robots');
    if (/(?:^|[\s{])(?:image|ogImage|og_image)\s*=/.test(text)) emit('image');
  }
}

/** Robots directives (meta robots, X-Robots-Tag), wherever they are written. */
function robotsSignals(text: string, ctx: Ctx | undefined, headerFile: boolean, emit: Emit): void {
  const xRobots = RE.xRobots.test(text);
  if (xRobots) emit('x_robots_tag');
  // `rel="nofollow"` is about one link, not the page.
  const withoutRel = text.includes('rel') ? text.replace(RE.relAttr, '') : text;
  if (RE.robotsToken.test(withoutRel)) emit(xRobots || headerFile || ctx === 'headers' ? 'x_robots_tag' : 'meta_robots');
}

/** JS/TS (and Vue/Svelte/Astro script) detectors that need the section context. */
function codeSignals(text: string, p: Profile, ctx: Ctx | undefined, emit: Emit): void {
  if (ctx === 'metadata' || ctx === 'seoProps') {
    if (/\btitle(?:Template)?\s*:/.test(text)) emit('title');
    if (/\bdescription\s*:/.test(text)) emit('meta_description');
    if (/\bscript\s*:\s*\[/.test(text)) emit('script');
  }
  if (ctx !== undefined && (META_FAMILY.has(ctx) || ctx === 'routeRules') && /\brobots\s*:/.test(text)) emit('meta_robots');
  if (ctx === 'robots' && /\b(?:index|follow|googleBot|noimageindex|nocache)\s*:/.test(text)) emit('meta_robots', true);
  if (ctx === 'languages' && /^\s*['"]?[a-z]{2,3}(?:-[A-Za-z]{2,4})?['"]?\s*:/.test(text)) emit('hreflang');
  if (ctx === 'social' && /\bimages?\s*:/.test(text)) emit('image');
  if (ctx === 'redirects') {
    if (/\b(?:source|from)\b["']?\s*:|^\s*['"`]\/[^'"`]*['"`]\s*:/.test(text)) emit('redirect');
    else emit('redirect', true);
  } else if (ctx === 'rewrites') {
    if (/\b(?:source|from)\b["']?\s*:/.test(text)) emit('route');
    else emit('route', true);
  } else if (ctx === 'routeRules' && /^\s*['"`]\/[^'"`]*['"`]\s*:/.test(text) && !/\bredirect\b/.test(text)) {
    emit('route');
  }
  if (RE.redirectKey.test(text) || RE.clientRedirect.test(text)) emit('redirect');
  if (RE.jsRoute.test(text) || RE.staticParams.test(text) || RE.rewriteCall.test(text)) emit('route');
  if (p.routes === 'router' && RE.routerPath.test(text)) emit('route');
  if (RE.hrefKey.test(text)) emit('link');
  if (RE.lazyCode.test(text)) emit('lazy_loading');
  if (RE.docTitle.test(text)) emit('title');
  if (p.configCode) {
    if (RE.trailingSlash.test(text)) emit('redirect');
    if (RE.basePath.test(text) || (p.base.startsWith('astro.config') && /^\s*base\s*:/.test(text))) emit('route');
    if (/\bcss\s*:\s*\[/.test(text)) emit('stylesheet');
    if (RE.sitemapCall.test(text) || RE.sitemapKey.test(text)) emit('sitemap_entry');
  }
  if (p.robotsCode && RE.sitemapKey.test(text)) emit('sitemap_entry');
  if (p.robotsCode || p.sitemapCode || ctx === 'robots') {
    if (RE.robotsKeys.test(text)) emit('robots_rule');
  }
  if (p.robotsCode && /\brules\s*:/.test(text)) emit('robots_rule', true);
  if (p.sitemapCode) {
    if (RE.sitemapStrong.test(text)) emit('sitemap_entry');
    else if (RE.sitemapWeak.test(text)) emit('sitemap_entry', true);
  }
}

/** Redirects, status codes, routes, env and robots strings in any server or page code. */
function serverCodeSignals(text: string, p: Profile, emit: Emit): void {
  const redirect = RE.redirectCall.test(text);
  if (redirect) emit('redirect');
  statusSignals(text, emit);
  if (p.routes === 'rails' && RE.railsRoute.test(text) && !/\bredirect\s*\(/.test(text)) emit('route');
  if (p.routes === 'django' && RE.djangoRoute.test(text) && !redirect) emit('route');
  if (RE.pyRoute.test(text)) emit('route');
  if (RE.env.test(text)) emit('env');
  if (RE.robotsStrings.test(text)) emit('robots_rule');
  if (RE.fontCode.test(text)) emit('font');
  if (p.sitemapCode) {
    if (RE.sitemapStrong.test(text)) emit('sitemap_entry');
    else if (RE.sitemapWeak.test(text)) emit('sitemap_entry', true);
  }
}

function markdownSignals(text: string, emit: Emit): void {
  if (/^#{1,6}\s+\S/.test(text)) emit('heading');
  if (/!\[[^\]]*\]\(/.test(text)) emit('image');
  if (/(?:^|[^!])\[[^\]]*\]\(\s*[^)\s]+/.test(text) || /^\s{0,3}\[[^\]]+\]:\s*\S/.test(text) || /<https?:\/\//.test(text)) emit('link');
}

function frontMatterSignals(text: string, emit: Emit): void {
  for (const [re, kind] of RE.frontMatter) if (re.test(text)) emit(kind);
}

function styleSignals(text: string, emit: Emit): void {
  if (/@import\b|@use\b|@forward\b/.test(text)) emit('stylesheet');
  if (/@font-face|\bfont-display\s*:|fonts\.(?:googleapis|gstatic)\.com|url\([^)]*\.(?:woff2?|ttf|otf|eot)\b/i.test(text)) emit('font');
  if (/url\([^)]*\.(?:png|jpe?g|gif|webp|avif|svg)\b|\bimage-set\s*\(/i.test(text)) emit('image');
  if (/\bcontent-visibility\s*:/.test(text)) emit('lazy_loading');
}

function serverConfSignals(text: string, emit: Emit): void {
  const ret = /^\s*return\s+(\d{3})\b/.exec(text);
  if (ret) emit(ret[1].startsWith('3') ? 'redirect' : 'status_code');
  if (/^\s*rewrite\s+\S+\s+\S+\s+(?:permanent|redirect)\b/.test(text) || /^\s*Redirect(?:Match|Permanent|Temp)?\s+(?!gone\b|410\b)/i.test(text) ||
    /^\s*RewriteRule\s.*\[[^\]]*\bR\b/i.test(text) || /^\s*redir\s/.test(text) || /\bredirectType\s*=|type\s*=\s*"Redirect"/.test(text)) {
    emit('redirect');
  } else if (/^\s*(?:rewrite|RewriteRule|location|try_files)\s/i.test(text) || /type\s*=\s*"Rewrite"/.test(text)) {
    emit('route');
  }
  if (/^\s*RewriteRule\s.*\[[^\]]*\b[GF]\b/i.test(text) || /^\s*Redirect(?:Match)?\s+(?:gone|410)\b/i.test(text) ||
    /^\s*(?:error_page|ErrorDocument)\s+\d{3}/i.test(text) || /^\s*respond\s.*\b\d{3}\b/.test(text) || /<httpErrors\b/.test(text)) {
    emit('status_code');
  }
}

/** The detectors for one non-blank, non-comment line. */
function detectLine(text: string, p: Profile, ctx: Ctx | undefined, emit: Emit): void {
  switch (p.type) {
    case 'robots_txt':
      if (/^\s*(?:user-agent|disallow|allow|crawl-delay|noindex|host|clean-param|request-rate|visit-time)\s*:/i.test(text)) emit('robots_rule');
      else if (/^\s*sitemap\s*:/i.test(text)) emit('sitemap_entry');
      return;
    case 'xml':
      if (/<loc>/i.test(text)) emit('sitemap_entry');
      else if (/<(?:url|sitemap)(?=[\s>]|$)/i.test(text)) emit('sitemap_entry', true);
      if (/<image:(?:image|loc)\b/i.test(text)) emit('image');
      if (RE.hreflang.test(text)) emit('hreflang');
      return;
    case 'redirects_file': {
      const tokens = text.trim().split(/\s+/);
      if (tokens.length < 2) return;
      const status = tokens.slice(2).find((t) => /^\d{3}!?$/.test(t));
      emit(!status || status.startsWith('3') ? 'redirect' : status.startsWith('2') ? 'route' : 'status_code');
      return;
    }
    case 'headers_file':
      robotsSignals(text, ctx, true, emit);
      if (/^\s*link\s*:/i.test(text)) relSignals(text, emit);
      return;
    case 'env_file':
      if (/^\s*(?:export\s+)?[A-Za-z_][\w.-]*\s*=/.test(text)) emit('env');
      return;
    case 'dockerfile':
      if (/^\s*(?:ENV|ARG)\s/i.test(text)) emit('env');
      return;
    case 'site_config':
      if (/^title\s*[:=]/i.test(text)) emit('title');
      if (/^(?:description|meta_?description)\s*[:=]/i.test(text)) emit('meta_description');
      if (/^(?:baseURL|baseurl|url)\s*[:=]/i.test(text) || RE.canonical.test(text)) emit('canonical');
      if (/^\s*\[?permalinks?\]?\s*[:=]?|^disableKinds\s*[:=]/i.test(text)) emit('route');
      if (/^\s*\[?languages\b|^defaultContentLanguage\b|hreflang/i.test(text)) emit('hreflang');
      if (/sitemap/i.test(text)) emit('sitemap_entry');
      if (/robots/i.test(text)) emit('robots_rule');
      if (/redirect/i.test(text)) emit('redirect');
      robotsSignals(text, ctx, false, emit);
      return;
    case 'package_json':
      if (ctx === 'deps' && /^\s*"[^"]+"\s*:\s*"/.test(text)) emit('dependency');
      return;
    case 'package_lock':
      if (/^\s*"(?:[^"]*\/)?node_modules\/[^"]+"\s*:\s*\{/.test(text)) emit('dependency');
      else if (/^\s*"version"\s*:\s*"/.test(text)) emit('dependency', true);
      return;
    case 'yarn_lock':
      if (/^"?@?[^\s"@#][^\s"]*@[^\n]*:\s*$/.test(text)) emit('dependency');
      else if (/^\s+(?:version|resolution)\s*:?\s+"?\S/.test(text)) emit('dependency', true);
      return;
    case 'pnpm_lock':
      if (/^ {2}['"]?\/?@?[\w.-]+(?:\/[\w.-]+)?@\d/.test(text) || /^ {6}['"]?@?[\w.-]+(?:\/[\w.-]+)?['"]?:\s*$/.test(text)) emit('dependency');
      else if (/^\s+(?:version|specifier):\s*\S/.test(text)) emit('dependency', true);
      return;
    case 'gemfile':
      if (/^\s*(?:gem|ruby)\s+['"]/.test(text)) emit('dependency');
      return;
    case 'gemfile_lock':
      if (/^ {4}[A-Za-z0-9][\w.-]*\s\(/.test(text) || /^ {2}[A-Za-z0-9][\w.-]*(?:\s\(.*\))?!?\s*$/.test(text)) emit('dependency');
      return;
    case 'requirements':
      if (/^\s*(?:-e\s+\S|[A-Za-z0-9][\w.[\],-]*\s*(?:[<>=!~;@]|$))/.test(text)) emit('dependency');
      return;
    case 'toml_deps':
      if (/^\s*(?:dependencies|requires)\s*=\s*\[.*\S.*\]/.test(text)) emit('dependency');
      else if (ctx === 'deps' && (/^\s*["']?[A-Za-z0-9][\w.-]*["']?\s*=/.test(text) || /^\s*["'][A-Za-z0-9][^"']*["']\s*,?\s*(#.*)?$/.test(text))) emit('dependency');
      return;
    case 'toml_lock':
      if (/^name\s*=\s*"/.test(text)) emit('dependency');
      else if (/^version\s*=\s*"/.test(text)) emit('dependency', true);
      return;
    case 'go_mod':
      if (/^\s*(?:require\s+)?[\w.-]+\.[a-z]{2,}\/\S+\s+v\d/.test(text)) emit('dependency');
      return;
    case 'hosting_json':
      robotsSignals(text, ctx, false, emit);
      if (RE.canonical.test(text)) emit('canonical');
      if (ctx === 'redirects') emit('redirect', !/"source"\s*:/.test(text));
      else if (ctx === 'rewrites') emit('route', !/"(?:source|src)"\s*:/.test(text));
      else if (ctx === 'env' && /^\s*"[A-Za-z_][\w]*"\s*:/.test(text)) emit('env');
      if (RE.trailingSlash.test(text)) emit('redirect');
      if (RE.basePath.test(text)) emit('route');
      statusSignals(text, emit);
      return;
    case 'netlify_toml': {
      robotsSignals(text, ctx, false, emit);
      if (RE.canonical.test(text)) emit('canonical');
      if (/^\s*\[\[\s*redirects\s*\]\]/.test(text)) {
        emit('redirect');
      } else if (ctx === 'redirects') {
        const status = /^\s*status\s*=\s*(\d{3})/.exec(text);
        if (!status || status[1].startsWith('3')) emit('redirect', true);
        else emit(status[1].startsWith('2') ? 'route' : 'status_code');
      } else if (ctx === 'env' && /^\s*[A-Za-z_]\w*\s*=/.test(text)) {
        emit('env');
      }
      return;
    }
    case 'server_conf':
      robotsSignals(text, ctx, false, emit);
      if (RE.canonical.test(text)) emit('canonical');
      serverConfSignals(text, emit);
      if (RE.robotsStrings.test(text)) emit('robots_rule');
      return;
    case 'style':
      styleSignals(text, emit);
      return;
    case 'markdown':
      markdownSignals(text, emit);
      if (p.frontMatter) frontMatterSignals(text, emit);
      // Prose may mention "noindex" or "hreflang"; only raw HTML or JSX in the file is evidence.
      if (/<[A-Za-z]/.test(text)) {
        markupSignals(text, p, ctx, emit);
        robotsSignals(text, ctx, false, emit);
      }
      return;
    case 'code':
    case 'markup':
    case 'python':
    case 'ruby': {
      if (IMPORT_LINE.test(text)) {
        // An import names a module, not a change to the page, except a global stylesheet or a font.
        if (CSS_IMPORT.test(text)) emit('stylesheet');
        if (FONT_IMPORT.test(text)) emit('font');
        return;
      }
      if (p.frontMatter) frontMatterSignals(text, emit);
      markupSignals(text, p, ctx, emit);
      robotsSignals(text, ctx, false, emit);
      if (RE.canonical.test(text)) emit('canonical');
      if (p.type === 'code') codeSignals(text, p, ctx, emit);
      else if (RE.redirectKey.test(text) || RE.clientRedirect.test(text)) emit('redirect');
      serverCodeSignals(text, p, emit);
      if ((p.robotsCode || p.sitemapCode) && RE.robotsKeys.test(text)) emit('robots_rule');
      return;
    }
    case 'none':
      return;
  }
}

function isComment(text: string, styles: readonly CommentStyle[]): boolean {
  for (const s of styles) {
    if (s === 'hash' && /^\s*#/.test(text)) return true;
    if (s === 'slash' && (/^\s*(?:\/\/|\/\*|\*\/|\*(?:\s|$))/.test(text) || /^\s*\{\s*\/\*.*\*\/\s*\}\s*$/.test(text))) return true;
    if (s === 'markup' && /^\s*(?:<!--|\{#|<%#|\{\{-?\s*\/\*|\{\{--|\{%-?\s*comment\b)/.test(text)) return true;
  }
  return false;
}

function indentOf(text: string): number {
  let i = 0;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
  return i;
}

// ---------------------------------------------------------------------------------------------
// File-level signals: a page file that appears or disappears is a route that does.

const ROUTED_FILE: readonly RegExp[] = [
  // Next app router pages and route handlers.
  /(^|\/)app\/(?:.+\/)?(?:page|route)\.(?:tsx|jsx|ts|js|mdx|md)$/,
  // SvelteKit.
  /(^|\/)\+(?:page\.svelte|server\.(?:ts|js))$/,
  // File-system routers: Next pages, Nuxt, Astro (not `_`-prefixed files or folders, not API routes).
  /(^|\/)pages\/(?!api\/)(?:[^_/][^/]*\/)*[^_/][^/]*\.(?:tsx|jsx|ts|js|vue|astro|svelte|md|mdx|html|markdown)$/,
  // Hugo, Jekyll, Astro content collections: each content file is a page.
  /(^|\/)(?:content|_posts|_pages)\/.+\.(?:md|mdx|markdown|html|htm|adoc|org|rst)$/,
];

function isRoutedFile(path: string): boolean {
  const lower = normalizePath(path).toLowerCase();
  const category = categorize(lower);
  if (category === 'test' || category === 'docs' || /(^|\/)app\/views\//.test(lower)) return false;
  if (ROUTED_FILE.some((re) => re.test(lower))) return true;
  // A plain HTML page (not a template or partial) is served at its own path.
  return category === 'page' && /\.html?$/.test(lower) && !/(^|\/)(?:routes|pages|views|_pages)\//.test(lower);
}

function assetKind(path: string): SignalKind | null {
  const lower = path.toLowerCase();
  const ext = lower.slice(lower.lastIndexOf('.') + 1);
  return IMAGE_EXT.has(ext) ? 'image' : FONT_EXT.has(ext) ? 'font' : null;
}

// ---------------------------------------------------------------------------------------------

interface Run {
  last: number;
  section: string | undefined;
  stack: Frame[];
  /** kind -> line numbers, strong and weak, in order. */
  strong: Map<SignalKind, number[]>;
  weak: Map<SignalKind, number[]>;
  /** `s:kind` / `w:kind` that had more lines than the file may keep. */
  overflow: Set<string>;
}

const KIND_RANK = new Map(SIGNAL_PRIORITY.map((k, i) => [k, i]));

/**
 * Finds signals in one file's changed lines, fed one line at a time in diff order, keeping only
 * signals (at most `maxSignals` per kind before the final cut), so a huge file costs no memory.
 */
export class SignalScanner {
  readonly path: string;
  readonly category: ChangeCategory;
  /** Read when `finish` runs, so a parser that learns more about the file may still set it. */
  status: FileStatus | undefined;
  oldPath: string | undefined;
  private readonly profile: Profile;
  private readonly max: number;
  private readonly runs: Record<ChangeSide, Run | null> = { added: null, removed: null };
  private readonly byKind = new Map<SignalKind, Signal[]>();
  private readonly seen = new Set<string>();
  private truncated = false;
  private finished: SignalScanResult | null = null;

  constructor(path: string, options: SignalScanOptions = {}) {
    this.path = normalizePath(path);
    this.status = options.status;
    this.oldPath = options.oldPath;
    this.category = options.category ?? categorize(this.path);
    this.profile = profileOf(this.path, this.category);
    this.max = options.maxSignals ?? MAX_SIGNALS_PER_FILE;
    if (!(this.max >= 0)) throw new RangeError('maxSignals must be >= 0');
  }

  /** Whether any line of this file can give a signal (tests and docs are not part of the site). */
  get scansLines(): boolean {
    return this.profile.type !== 'none' && this.category !== 'test' && this.category !== 'docs';
  }

  push(change: ChangeSide, line: number, rawText: string, section?: string): void {
    if (this.finished) throw new Error('SignalScanner: push after finish');
    if (!this.scansLines) return;
    let text = rawText.length > MAX_LINE_CHARS ? rawText.slice(0, MAX_LINE_CHARS) : rawText;
    if (text.endsWith('\r')) text = text.slice(0, -1);
    let run = this.runs[change];
    if (!run || line !== run.last + 1 || section !== run.section) {
      if (run) this.flush(run, change);
      run = { last: line - 1, section, stack: this.framesFromSection(section), strong: new Map(), weak: new Map(), overflow: new Set() };
      this.runs[change] = run;
    }
    run.last = line;
    if (text.trim() === '') return;
    const p = this.profile;
    if (isComment(text, p.comments)) return;

    const indent = indentOf(text);
    const stack = run.stack;
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.table || indent > top.indent) break;
      stack.pop();
    }
    const opened = p.opener ? p.opener(text) : null;
    const ctx = opened?.ctx ?? stack[stack.length - 1]?.ctx;
    if (!PUNCTUATION_ONLY.test(text)) {
      const emit: Emit = (kind, weak = false) => {
        const map = weak ? run.weak : run.strong;
        const lines = map.get(kind);
        if (!lines) map.set(kind, [line]);
        else if (lines[lines.length - 1] === line) return;
        else if (lines.length < this.max) lines.push(line);
        else run.overflow.add(`${weak ? 'w' : 's'}:${kind}`);
      };
      detectLine(text, p, ctx, emit);
    }
    if (opened) this.pushFrame(stack, opened);
  }

  /** The signals, sorted by line (file-level ones, without a line, first). */
  finish(): SignalScanResult {
    if (this.finished) return this.finished;
    for (const change of ['removed', 'added'] as const) {
      const run = this.runs[change];
      if (run) this.flush(run, change);
      this.runs[change] = null;
    }
    const { status, oldPath } = this;
    const fileLevel: Signal[] = [];
    if (status === 'deleted' || status === 'renamed') {
      const before = status === 'renamed' && oldPath ? oldPath : this.path;
      if (isRoutedFile(before)) fileLevel.push({ kind: 'route', change: 'removed' });
      const asset = assetKind(before);
      if (asset) fileLevel.push({ kind: asset, change: 'removed' });
    }
    if (status === 'added' || status === 'renamed' || status === 'copied') {
      if (isRoutedFile(this.path)) fileLevel.push({ kind: 'route', change: 'added' });
      const asset = assetKind(this.path);
      if (asset) fileLevel.push({ kind: asset, change: 'added' });
    }
    for (const s of fileLevel) this.add(s);

    let all = [...this.byKind.values()].flat();
    if (all.length > this.max) {
      this.truncated = true;
      all = all
        .map((s, i) => ({ s, i }))
        .sort((a, b) => rank(a.s) - rank(b.s) || a.i - b.i)
        .slice(0, this.max)
        .map(({ s }) => s);
    }
    all.sort((a, b) =>
      (a.line ?? 0) - (b.line ?? 0) || (a.change === b.change ? 0 : a.change === 'removed' ? -1 : 1) || rank(a) - rank(b));
    this.finished = { signals: all, truncated: this.truncated };
    return this.finished;
  }

  private framesFromSection(section: string | undefined): Frame[] {
    if (!section || !this.profile.opener) return [];
    const frame = this.profile.opener(section);
    if (!frame) return [];
    const stack: Frame[] = [];
    this.pushFrame(stack, frame);
    return stack;
  }

  private pushFrame(stack: Frame[], frame: Frame): void {
    if (frame.table) stack.length = 0;
    // A nested section (`robots: {`) lives inside a metadata object that began on a line we may
    // not see (the hunk's function context is only the nearest opener): assume one just outside.
    if (frame.nested && !stack.some((f) => f.ctx === 'metadata')) stack.push({ ctx: 'metadata', indent: frame.indent - 1 });
    stack.push(frame);
  }

  private flush(run: Run, change: ChangeSide): void {
    for (const [kind, lines] of run.strong) {
      if (run.overflow.has(`s:${kind}`)) this.truncated = true;
      for (const line of lines) this.add({ kind, change, line });
    }
    for (const [kind, lines] of run.weak) {
      if (run.strong.has(kind)) continue;
      if (run.overflow.has(`w:${kind}`)) this.truncated = true;
      for (const line of lines) this.add({ kind, change, line });
    }
    run.strong.clear();
    run.weak.clear();
    run.overflow.clear();
  }

  private add(signal: Signal): void {
    const key = `${signal.kind}|${signal.change}|${signal.line ?? ''}`;
    if (this.seen.has(key)) return;
    const list = this.byKind.get(signal.kind) ?? [];
    // One kind alone can fill the file's quota; more of it would never be kept.
    if (list.length >= this.max) {
      this.truncated = true;
      return;
    }
    this.seen.add(key);
    list.push(signal);
    this.byKind.set(signal.kind, list);
  }
}

function rank(s: Signal): number {
  return KIND_RANK.get(s.kind) ?? SIGNAL_PRIORITY.length;
}

/**
 * The signals of one file's change, from its added lines (new-file numbers) and removed lines
 * (old-file numbers). Identical (kind, change, line) are reported once; a kind removed at one
 * line and added at another are two signals (together, a change).
 *
 * ```ts
 * detectSignals('src/layouts/Base.astro', { removed: [{ line: 12, text: '<link rel="canonical" href={url} />' }] });
 * // [{ kind: 'canonical', change: 'removed', line: 12 }]
 * ```
 */
export function detectSignals(
  path: string,
  lines: { added?: readonly DiffLine[]; removed?: readonly DiffLine[] },
  options: SignalScanOptions = {},
): Signal[] {
  const scanner = new SignalScanner(path, options);
  for (const l of lines.removed ?? []) scanner.push('removed', l.line, l.text, l.section);
  for (const l of lines.added ?? []) scanner.push('added', l.line, l.text, l.section);
  return scanner.finish().signals;
}
