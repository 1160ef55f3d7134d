import type { Schemas } from '../contract/index.ts';
import { pathAffinity } from './path-affinity.ts';

// Which of a deploy's changed files most likely caused a finding. Each change is scored by
//   0.45 x how well one of its signals explains the finding's kind (the table's `signals`)
// + 0.30 x how well its category explains it (the table's `categories`)
// + 0.25 x how much its path resembles the finding's URL (path-affinity.ts)
// and the five best with a score are the causes, best first. A change that neither its signals
// nor its category tie to the kind is never a cause, however its path looks. A change that acts
// on every page at once (dependencies, configuration, build, environment) explains a finding on
// one page less than one on most pages: its score is discounted by up to 40% as the finding's
// spread (the share of looked-at pages with the same kind) falls. The weights were tuned on the
// detection corpus (npm run bench:detection, bench/results/detection.md).

type Change = Schemas['Change'];
type SignalKind = Schemas['SignalKind'];
type Category = Schemas['ChangeCategory'];
export type FindingKind = Schemas['CheckFindingKind'] | Schemas['CrawlFindingKind'];

interface Explains {
  /** How much a change of this category can explain the kind, 0 to 1. */
  categories: Partial<Record<Category, number>>;
  /** How much a signal explains it, by the direction of the change. */
  signals: Partial<Record<SignalKind, { added?: number; removed?: number }>>;
}

const both = (w: number) => ({ added: w, removed: w });
const MARKUP = { template: 0.9, page: 0.9, component: 0.7, content: 0.5 } as const;

/** The cause table: finding kind -> the categories and signal kinds that explain it. */
export const CAUSES: Record<FindingKind, Explains> = {
  // The server answers 5xx or not at all: server code, a dependency or configuration broke it.
  page_error: {
    categories: { server: 1, dependencies: 0.8, config: 0.7, routing: 0.6, page: 0.6, template: 0.6, build: 0.6, component: 0.5, script: 0.3, headers: 0.3, content: 0.2 },
    signals: { status_code: both(1), dependency: both(0.8), env: both(0.8), route: { removed: 0.6, added: 0.3 }, script: { added: 0.3 } },
  },
  // The page is gone: its route or content file was removed or renamed.
  page_not_found: {
    categories: { routing: 1, page: 0.9, content: 0.7, redirects: 0.7, server: 0.6, config: 0.5, sitemap: 0.2 },
    signals: { route: { removed: 1, added: 0.3 }, status_code: both(0.8), redirect: { removed: 0.6, added: 0.4 }, link: { removed: 0.2 } },
  },
  // A noindex in the head (templates, pages, front matter) or in X-Robots-Tag (headers, config).
  noindex_added: {
    categories: { ...MARKUP, headers: 0.9, config: 0.7, server: 0.5, content: 0.4 },
    signals: { meta_robots: { added: 1, removed: 0.3 }, x_robots_tag: { added: 1, removed: 0.3 } },
  },
  // robots.txt disallows the page.
  robots_blocked: {
    categories: { robots: 1, config: 0.3, server: 0.2 },
    signals: { robots_rule: { added: 1, removed: 0.4 } },
  },
  nofollow_added: {
    categories: { ...MARKUP, headers: 0.9, config: 0.7, server: 0.5, content: 0.4 },
    signals: { meta_robots: { added: 1, removed: 0.3 }, x_robots_tag: { added: 1, removed: 0.3 }, link: { added: 0.2 } },
  },
  // A redirect rule, a route move or server code now sends the page elsewhere.
  redirect_added: {
    categories: { redirects: 1, config: 0.8, routing: 0.8, server: 0.7, headers: 0.2 },
    signals: { redirect: { added: 1, removed: 0.3 }, route: both(0.6), status_code: both(0.5) },
  },
  canonical_changed: {
    categories: { ...MARKUP, config: 0.5 },
    signals: { canonical: both(1) },
  },
  title_missing: {
    categories: { ...MARKUP, content: 0.6 },
    signals: { title: { removed: 1, added: 0.4 } },
  },
  canonical_removed: {
    categories: { ...MARKUP, config: 0.4 },
    signals: { canonical: { removed: 1, added: 0.3 } },
  },
  meta_description_missing: {
    categories: { ...MARKUP, content: 0.6 },
    signals: { meta_description: { removed: 1, added: 0.4 } },
  },
  // Headings live in page markup, components and content (markdown `#`).
  h1_missing: {
    categories: { page: 0.9, template: 0.8, component: 0.8, content: 0.7, style: 0.1 },
    signals: { heading: { removed: 1, added: 0.4 } },
  },
  // JSON-LD is printed by templates and components, sometimes by a script or an SEO package.
  structured_data_removed: {
    categories: { template: 0.9, page: 0.8, component: 0.8, script: 0.4, dependencies: 0.3, content: 0.3 },
    signals: { structured_data: { removed: 1, added: 0.4 }, script: { removed: 0.4 } },
  },
  // Alternate links come from templates, i18n configuration and localized routes.
  hreflang_removed: {
    categories: { template: 0.9, config: 0.8, page: 0.7, component: 0.6, routing: 0.5, content: 0.4 },
    signals: { hreflang: { removed: 1, added: 0.4 }, route: { removed: 0.3 } },
  },
  // Text went away: content files first, then the markup that renders it.
  content_shrunk: {
    categories: { content: 1, page: 0.9, component: 0.7, template: 0.7, script: 0.2 },
    signals: { heading: { removed: 0.5 }, link: { removed: 0.3 }, lazy_loading: { added: 0.2 } },
  },
  // Navigation and footers hold most internal links.
  internal_links_dropped: {
    categories: { component: 1, template: 0.9, page: 0.7, content: 0.5, routing: 0.3 },
    signals: { link: { removed: 1, added: 0.2 } },
  },
  slower_response: {
    categories: { server: 1, dependencies: 0.8, config: 0.6, script: 0.6, build: 0.5, page: 0.5, template: 0.4, asset: 0.4 },
    signals: { dependency: both(0.8), script: { added: 0.8 }, env: both(0.5), lazy_loading: { removed: 0.5 }, image: { added: 0.4 }, font: { added: 0.4 }, stylesheet: { added: 0.4 } },
  },
  page_weight_increased: {
    categories: { asset: 1, script: 0.9, style: 0.8, dependencies: 0.7, component: 0.5, template: 0.5, page: 0.4 },
    signals: { image: { added: 1 }, script: { added: 0.9 }, font: { added: 0.8 }, stylesheet: { added: 0.8 }, lazy_loading: { removed: 0.8 }, dependency: both(0.6) },
  },

  // Rendered metrics. The largest paint: images (and their lazy loading), fonts, render-blocking
  // styles and scripts, the components that place them.
  lcp_regressed: {
    categories: { asset: 1, script: 0.8, style: 0.8, component: 0.7, template: 0.7, page: 0.6, dependencies: 0.6, build: 0.4 },
    signals: { image: { added: 1, removed: 0.3 }, lazy_loading: both(0.9), font: { added: 0.8 }, stylesheet: { added: 0.7 }, script: { added: 0.7 }, dependency: both(0.5) },
  },
  // Layout shift: images without room kept, web fonts swapping, styles and late-injected markup.
  cls_regressed: {
    categories: { style: 1, component: 0.8, template: 0.8, asset: 0.6, page: 0.6, script: 0.6 },
    signals: { image: { added: 0.9 }, stylesheet: both(0.8), font: { added: 0.7, removed: 0.5 }, lazy_loading: both(0.5), script: { added: 0.6 } },
  },
  // Main-thread blocking: scripts and the packages they bundle.
  tbt_regressed: {
    categories: { script: 1, dependencies: 0.9, component: 0.6, build: 0.6, template: 0.4, page: 0.4 },
    signals: { script: { added: 1 }, dependency: both(0.9) },
  },
  // What the browser downloads: images, scripts, styles, fonts, packages.
  total_weight_increased: {
    categories: { asset: 1, script: 0.9, style: 0.8, dependencies: 0.8, component: 0.5, template: 0.5, page: 0.4, build: 0.4 },
    signals: { image: { added: 1 }, script: { added: 0.9 }, font: { added: 0.8 }, stylesheet: { added: 0.8 }, lazy_loading: { removed: 0.8 }, dependency: both(0.7) },
  },
  // A Lighthouse category: any of the above, or the markup the SEO and accessibility audits read.
  category_score_dropped: {
    categories: { script: 0.8, asset: 0.8, style: 0.7, component: 0.7, template: 0.7, page: 0.7, dependencies: 0.6, content: 0.4 },
    signals: { script: { added: 0.7 }, image: { added: 0.7 }, lazy_loading: { removed: 0.6 }, meta_robots: { added: 0.6 }, title: { removed: 0.5 }, stylesheet: { added: 0.5 }, font: { added: 0.5 }, dependency: both(0.5) },
  },

  // Crawl findings.
  // A link now points at a page that fails: a new link, or its target's route removed.
  broken_link: {
    categories: { content: 0.9, component: 0.8, page: 0.8, template: 0.7, routing: 0.7, redirects: 0.5 },
    signals: { link: { added: 1, removed: 0.2 }, route: { removed: 0.9 }, redirect: { removed: 0.6 } },
  },
  page_removed: {
    categories: { routing: 1, page: 1, content: 0.9, redirects: 0.6, sitemap: 0.3 },
    signals: { route: { removed: 1 }, status_code: both(0.5), sitemap_entry: { removed: 0.3 } },
  },
  redirect_chain: {
    categories: { redirects: 1, config: 0.8, routing: 0.6, server: 0.5 },
    signals: { redirect: { added: 1, removed: 0.2 } },
  },
  redirect_loop: {
    categories: { redirects: 1, config: 0.9, server: 0.7, routing: 0.6, headers: 0.2 },
    signals: { redirect: { added: 1, removed: 0.3 } },
  },
  duplicate_title: {
    categories: { template: 0.9, page: 0.8, content: 0.6, component: 0.6, config: 0.4 },
    signals: { title: both(1) },
  },
  // Linked from nowhere any more, yet in the sitemap: navigation lost it.
  orphan_page: {
    categories: { component: 0.9, template: 0.8, sitemap: 0.7, content: 0.6, page: 0.6, routing: 0.4 },
    signals: { link: { removed: 1 }, sitemap_entry: { added: 0.6 } },
  },
  noindex_page: {
    categories: { ...MARKUP, headers: 0.9, config: 0.7, server: 0.5, content: 0.4 },
    signals: { meta_robots: { added: 1, removed: 0.3 }, x_robots_tag: { added: 1, removed: 0.3 } },
  },
  blocked_by_robots: {
    categories: { robots: 1, config: 0.3 },
    signals: { robots_rule: { added: 1, removed: 0.4 } },
  },
  sitemap_unreachable: {
    categories: { sitemap: 1, robots: 0.6, config: 0.6, build: 0.5, server: 0.5, routing: 0.4 },
    signals: { sitemap_entry: both(0.6), robots_rule: both(0.5), route: { removed: 0.4 } },
  },
  // Site-level kinds (site-kinds.ts), reported for runs with no deploy behind them; a deploy in
  // between would explain them through these.
  certificate_expiring: {
    categories: { server: 0.8, config: 0.6, headers: 0.4 },
    signals: { env: both(0.5) },
  },
  robots_txt_changed: {
    categories: { robots: 1, config: 0.3 },
    signals: { robots_rule: both(1) },
  },
  sitemap_changed: {
    categories: { sitemap: 1, routing: 0.5, page: 0.4, content: 0.4 },
    signals: { sitemap_entry: both(1), route: both(0.5) },
  },
};

export const WEIGHTS = { signal: 0.45, category: 0.3, path: 0.25 } as const;
export const MAX_CAUSES = 5;

/** Changes that act on every page at once, and the most their score loses for a one-page finding. */
const SITE_WIDE_CATEGORIES = new Set<Category>(['dependencies', 'config', 'build']);
const SITE_WIDE_SIGNALS = new Set<SignalKind>(['dependency', 'env']);
export const SITE_WIDE_DISCOUNT = 0.4;
/** Kinds about the site as a whole rather than one of its pages: never discounted. */
const SITE_LEVEL_KINDS = new Set<FindingKind>(['sitemap_unreachable', 'certificate_expiring', 'robots_txt_changed', 'sitemap_changed']);

const CATEGORY_LABEL: Partial<Record<Category, string>> = {
  template: 'template',
  page: 'page',
  component: 'component',
  content: 'content file',
  config: 'configuration file',
  routing: 'routing file',
  redirects: 'redirect rules',
  robots: 'robots.txt',
  sitemap: 'sitemap',
  headers: 'headers file',
  dependencies: 'dependency manifest',
  server: 'server file',
  script: 'script',
  style: 'stylesheet',
  asset: 'asset',
  build: 'build file',
};

function article(word: string): string {
  return /^[aeiou]/.test(word) ? 'an' : 'a';
}

/**
 * One line that says why: "removed `canonical` signal in a page template matching /blog",
 * "changed robots.txt", "added `script` signal in a component used by every page".
 */
function reason(change: Change, signal: { kind: SignalKind; change: 'added' | 'removed' } | null, affinity: ReturnType<typeof pathAffinity>): string {
  const label = CATEGORY_LABEL[change.category] ?? `${change.category} file`;
  const where = affinity.siteWide && affinity.score <= 0.5 ? ' used by every page' : affinity.matched ? ` matching ${affinity.matched}` : '';
  if (signal) return `${signal.change} \`${signal.kind}\` signal in ${article(label)} ${label}${where}`;
  return `changed ${label}${where}`;
}

export type Cause = Schemas['Cause'];

/**
 * Score of one change for one finding, with the signal that explains it best. `spread`: the share
 * (0 to 1) of the pages looked at that have a finding of this kind; 1 when unknown.
 */
export function scoreChange(kind: FindingKind, url: string, change: Change, spread = 1): { score: number; cause: Cause } | null {
  const table = CAUSES[kind];
  let best: { kind: SignalKind; change: 'added' | 'removed'; weight: number } | null = null;
  for (const s of change.signals ?? []) {
    const weight = table.signals[s.kind]?.[s.change] ?? 0;
    if (weight > (best?.weight ?? 0)) best = { kind: s.kind, change: s.change, weight };
  }
  const category = table.categories[change.category] ?? 0;
  if (!best && category === 0) return null;
  const affinity = pathAffinity(change.path, url);
  const siteWide = SITE_WIDE_CATEGORIES.has(change.category) || (best !== null && SITE_WIDE_SIGNALS.has(best.kind));
  const discount = siteWide && !SITE_LEVEL_KINDS.has(kind) ? 1 - SITE_WIDE_DISCOUNT * (1 - Math.min(1, Math.max(0, spread))) : 1;
  const score = Math.min(1, (WEIGHTS.signal * (best?.weight ?? 0) + WEIGHTS.category * category + WEIGHTS.path * affinity.score) * discount);
  const rounded = Math.round(score * 1000) / 1000;
  return {
    score: rounded,
    cause: { path: change.path, category: change.category, signals: change.signals ?? [], score: rounded, reason: reason(change, best, affinity) },
  };
}

/** The likely causes of a finding among a deploy's changes: at most five, best first. */
export function rankCauses(kind: FindingKind, url: string, changes: readonly Change[], opts: { spread?: number } = {}): Cause[] {
  const scored: Array<{ score: number; cause: Cause; index: number }> = [];
  changes.forEach((change, index) => {
    const s = scoreChange(kind, url, change, opts.spread);
    if (s && s.score > 0) scored.push({ ...s, index });
  });
  // Ties keep the deploy's own order.
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, MAX_CAUSES).map((s) => s.cause);
}
