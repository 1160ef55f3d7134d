// How much a changed file's path resembles the URL of a finding: the file behind `/blog/hello`
// is far more likely `src/pages/blog/[slug].astro` or `content/blog/hello.md` than
// `src/pages/pricing.astro`. Route segments are read out of the path the way the frameworks do
// (Next.js, Nuxt, Astro, SvelteKit, Hugo, Jekyll, Django, Rails, plain HTML): root folders and
// file conventions are dropped, dynamic segments match any URL segment.

/** Folders that hold routes or content but are not part of the URL. */
const ROOTS = new Set([
  'src', 'app', 'pages', 'routes', 'views', 'templates', 'template', 'content', 'public', 'static', 'layouts', 'layout',
  '_layouts', '_includes', 'includes', 'partials', '_partials', 'components', 'component', 'lib', '_posts', 'resources',
  'frontend', 'client', '_default', 'theme', 'themes',
]);

/** File names that stand for their folder's route, or for none. */
const INDEX_NAMES = new Set(['index', '_index', 'page', '+page', '+page.server', 'route', 'default', 'show', 'home', 'list', 'single']);

/**
 * Files whose markup every page shares: a change there can break any URL. Matched on the last two
 * path segments, lower case.
 */
const SITE_WIDE = [
  /(^|\/)(app\/)?layout\.[a-z]+$/,
  /(^|\/)\+layout(\.server)?\.[a-z]+$/,
  /(^|\/)_(app|document)\.[a-z]+$/,
  /(^|\/)(_layouts|layouts)\/(default|base|baseof|main|application|app|page)\.[a-z.]+$/,
  /(^|\/)layouts\/_default\/baseof\.html$/,
  /(^|\/)(_includes|partials|includes|layouts\/partials)\/(head|header|footer|nav|navigation|seo|meta|base)[\w.-]*$/,
  /(^|\/)templates\/(base|layout|_base)\.html$/,
  /(^|\/)app\/views\/layouts\/[\w.-]+$/,
  /(^|\/)src\/layouts\/[\w.-]*layout[\w.-]*$/i,
  /(^|\/)components\/(header|footer|nav|navbar|navigation|seo|head|basehead|layout|sitehead)\.[a-z]+$/i,
];

export const SITE_WIDE_AFFINITY = 0.5;

const WILDCARD = '*';

/** Underscore names that are conventions of their own, not Nuxt's `_id` dynamic segments. */
const UNDERSCORE_FILES = new Set(['_redirects', '_headers', '_app', '_document', '_error', '_index', '_default', '_layout', '_middleware', '_config']);

function isDynamic(segment: string): boolean {
  if (/^_[a-z]+$/.test(segment)) return !UNDERSCORE_FILES.has(segment);
  return /^\[.*\]$/.test(segment) || /^:/.test(segment) || /^\{.*\}$/.test(segment) || /^<.*>$/.test(segment) || /^\$/.test(segment);
}

/** Folders of shared markup: a file there renders whatever route uses it, never one by itself. */
const TEMPLATE_DIRS = /(^|\/)(layouts|_layouts|_includes|includes|partials|_partials|templates)\//;

/** Route segments of a file path, lower case: `src/pages/blog/[slug].astro` -> ['blog', '*']. */
export function routeSegments(filePath: string): string[] {
  const parts = filePath.toLowerCase().replace(/\\/g, '/').split('/').filter(Boolean);
  const out: string[] = [];
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    // Extensions, including doubled ones (`show.html.erb`, `page.server.ts`).
    let seg = last ? part.replace(/(\.[a-z0-9]+)+$/, '') : part;
    // Next.js route groups `(marketing)` and parallel routes `@modal` are not in the URL.
    if (/^\(.*\)$/.test(seg) || seg.startsWith('@')) return;
    // Jekyll posts: `2026-11-20-hello.md` is /hello (the date goes elsewhere in the URL).
    seg = seg.replace(/^\d{4}-\d{2}-\d{2}-/, '');
    // Rails controllers: `customers_controller.rb` serves /customers.
    if (last) seg = seg.replace(/_controller$/, '');
    if (seg === 'controllers' && !last) return;
    if (ROOTS.has(seg) && !last) return;
    if (last && INDEX_NAMES.has(seg)) return;
    out.push(isDynamic(seg) ? WILDCARD : seg);
  });
  return out;
}

/** Path segments of a URL, lower case, without `index.html`-like endings. */
export function urlSegments(url: string): string[] {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    pathname = url;
  }
  const parts = decodeURIComponent(pathname).toLowerCase().split('/').filter(Boolean);
  if (parts.length && /^index\.(html?|php)$/.test(parts[parts.length - 1])) parts.pop();
  return parts.map((p) => p.replace(/\.(html?|php)$/, ''));
}

export function isSiteWide(filePath: string): boolean {
  const p = filePath.toLowerCase().replace(/\\/g, '/');
  return SITE_WIDE.some((re) => re.test(p));
}

export interface Affinity {
  /** 0 (unrelated) to 1 (the file is this URL's route or content). */
  score: number;
  /** The URL prefix the path matched, e.g. `/blog`, for the reason text; null for none. */
  matched: string | null;
  siteWide: boolean;
}

/** Points for one file segment against one URL segment: exact 1, dynamic 0.6, else 0. */
function segmentPoints(file: string, url: string): number {
  if (file === url) return 1;
  return file === WILDCARD ? 0.6 : 0;
}

/** Matching segments from the start, until the first mismatch. */
function prefixScore(file: string[], target: string[]): { points: number; depth: number } {
  let points = 0;
  let depth = 0;
  for (let i = 0; i < target.length && i < file.length; i++) {
    const p = segmentPoints(file[i], target[i]);
    if (p === 0) break;
    points += p;
    depth = i + 1;
  }
  return { points, depth };
}

/**
 * Matching segments from the end: content files whose folders are not the URL's
 * (`_posts/hello.md` for /blog/hello). At least one segment must match exactly: a dynamic
 * segment alone at the end would match every URL.
 */
function suffixScore(file: string[], target: string[]): number {
  let points = 0;
  let exact = false;
  for (let i = 1; i <= target.length && i <= file.length; i++) {
    const p = segmentPoints(file[file.length - i], target[target.length - i]);
    if (p === 0) break;
    if (p === 1) exact = true;
    points += p;
  }
  return exact ? points : 0;
}

/**
 * The share of the URL's segments the file's route segments explain, from the start (a route)
 * or from the end (a content file), lowered when the file names more segments than the URL has
 * (a deeper route is a different page). The home page matches index files only. Files every page
 * shares (layouts, head and nav partials) get at least SITE_WIDE_AFFINITY for any URL.
 */
export function pathAffinity(filePath: string, url: string): Affinity {
  const siteWide = isSiteWide(filePath);
  const file = routeSegments(filePath);
  const target = urlSegments(url);
  const floor = siteWide ? SITE_WIDE_AFFINITY : 0;
  if (target.length === 0) {
    // A shared template with no route of its own is not the home page's file.
    const home = file.length === 0 && !TEMPLATE_DIRS.test(filePath.toLowerCase().replace(/\\/g, '/'));
    return home ? { score: 1, matched: '/', siteWide } : { score: floor, matched: null, siteWide };
  }
  const extraPenalty = file.length > target.length ? 0.5 : 1;
  const prefix = prefixScore(file, target);
  const fromStart = (prefix.points / target.length) * extraPenalty;
  const fromEnd = (suffixScore(file, target) / target.length) * 0.8 * extraPenalty;
  const best = Math.max(fromStart, fromEnd);
  if (best === 0) return { score: floor, matched: null, siteWide };
  const matched = fromStart >= fromEnd ? `/${target.slice(0, prefix.depth).join('/')}` : `/${target.join('/')}`;
  return { score: Math.max(best, floor), matched, siteWide };
}
