// The small websites of the detection corpus, as data: a site is its pages, its navigation, its
// redirects, robots.txt and sitemaps; a regression is a patch of that model. `publish` serves a
// model on a fixture site (test/support/fixture-site.ts), replacing whatever it served before.

import { htmlPage, sitemapIndexXml, sitemapXml, type FixtureSite } from '../../../test/support/fixture-site.ts';

export interface PageModel {
  /** null: no <title>. */
  title: string | null;
  /** null: no meta description. */
  description: string | null;
  /** `self` (the page's own URL), a path or an absolute URL; null: no canonical link. */
  canonical: string | null;
  /** Content of <meta name="robots">. */
  robots?: string;
  /** Response headers (X-Robots-Tag...). */
  headers?: Record<string, string>;
  h1: string[];
  /** Alternate languages: hrefs are paths or absolute URLs. */
  hreflang?: Array<{ lang: string; href: string }>;
  /** schema.org types printed as JSON-LD. */
  jsonLd?: string[];
  /** Links in the page's own body, after the site navigation. */
  links?: string[];
  /** Words of body text. */
  words: number;
  extraBody?: string;
  /** Default 200; a 5xx page is served as a bare error page. */
  status?: number;
  /** Time before the response headers, ms. */
  delayMs?: number;
}

export type SitemapModel = { urls: string[] } | { index: string[] };

export interface SiteModel {
  /** Header navigation, on every page. */
  nav: string[];
  /** Footer links, on every page. */
  footer: string[];
  pages: Record<string, PageModel>;
  /** 301 redirects, from path to path; they win over a page at the same path. */
  redirects: Record<string, string>;
  /** robots.txt; `{origin}` is replaced with the site's origin. */
  robotsTxt: string;
  sitemaps: Record<string, SitemapModel>;
}

/** A regression: what changes in the model. `null` removes a page, redirect or sitemap. */
export interface SitePatch {
  nav?: string[];
  footer?: string[];
  /** A partial page is merged into the page at that path (which must exist). */
  pages?: Record<string, Partial<PageModel> | null>;
  /** New pages. */
  add?: Record<string, PageModel>;
  redirects?: Record<string, string | null>;
  robotsTxt?: string;
  sitemaps?: Record<string, SitemapModel | null>;
}

/** An ordinary page: title with the brand, description, self canonical, one h1, 240 words. */
export function page(title: string, brand: string, o: Partial<PageModel> = {}): PageModel {
  return {
    title: `${title} | ${brand}`,
    description: `${title} at ${brand}: what it is, who it is for and how to get started.`,
    canonical: 'self',
    h1: [title],
    words: 240,
    ...o,
  };
}

export interface SiteOptions {
  brand: string;
  /** Every page but the home page, with its title (the h1; the <title> adds the brand). */
  pages: Array<[path: string, title: string]>;
  /** Overrides merged into the page at that path, including '/'. */
  overrides?: Record<string, Partial<PageModel>>;
  /** Default: home and every page. */
  nav?: string[];
  footer?: string[];
  redirects?: Record<string, string>;
  /** Default: /sitemap.xml with home and every page. */
  sitemaps?: Record<string, SitemapModel>;
  /** Lines of robots.txt before the Sitemap lines; default allow all. */
  robotsRules?: string[];
}

/** A site in its baseline version: home plus the pages, all linked from the navigation and in the sitemap. */
export function makeSite(o: SiteOptions): SiteModel {
  const paths = o.pages.map(([p]) => p);
  const pages: Record<string, PageModel> = {
    '/': { ...page(o.brand, o.brand), title: `${o.brand}: home`, h1: [`Welcome to ${o.brand}`], words: 180, jsonLd: ['Organization'] },
  };
  for (const [path, title] of o.pages) pages[path] = page(title, o.brand);
  for (const [path, extra] of Object.entries(o.overrides ?? {})) {
    if (!pages[path]) throw new Error(`${o.brand}: override of unknown page ${path}`);
    pages[path] = { ...pages[path], ...extra };
  }
  const sitemaps = o.sitemaps ?? { '/sitemap.xml': { urls: ['/', ...paths] } };
  const rules = o.robotsRules ?? ['User-agent: *', 'Allow: /'];
  const top = Object.keys(sitemaps).filter((p) => isTopSitemap(p, sitemaps));
  return { nav: o.nav ?? ['/', ...paths], footer: o.footer ?? [], pages, redirects: o.redirects ?? {}, robotsTxt: robotsTxt(rules, top), sitemaps };
}

/** robots.txt with these rules and `Sitemap:` lines for these paths. */
export function robotsTxt(rules: string[], sitemaps: string[] = ['/sitemap.xml']): string {
  return [...rules, '', ...sitemaps.map((p) => `Sitemap: {origin}${p}`), ''].join('\n');
}

/** The list with `from` replaced by `to` (a renamed page in the navigation or a sitemap). */
export function swap(list: readonly string[], from: string, to: string): string[] {
  if (!list.includes(from)) throw new Error(`${from} is not in ${list.join(', ')}`);
  return list.map((x) => (x === from ? to : x));
}

/** Sitemaps that no sitemap index lists are the ones robots.txt names. */
function isTopSitemap(path: string, all: Record<string, SitemapModel>): boolean {
  return !Object.values(all).some((s) => 'index' in s && s.index.includes(path));
}

/** The model after a regression (the baseline is left as it was). */
export function applyPatch(base: SiteModel, patch: SitePatch): SiteModel {
  const m: SiteModel = structuredClone(base);
  if (patch.nav) m.nav = [...patch.nav];
  if (patch.footer) m.footer = [...patch.footer];
  for (const [path, p] of Object.entries(patch.pages ?? {})) {
    if (!m.pages[path]) throw new Error(`patch of unknown page ${path}`);
    if (p === null) delete m.pages[path];
    else m.pages[path] = { ...m.pages[path], ...p };
  }
  for (const [path, p] of Object.entries(patch.add ?? {})) m.pages[path] = structuredClone(p);
  for (const [from, to] of Object.entries(patch.redirects ?? {})) {
    if (to === null) delete m.redirects[from];
    else m.redirects[from] = to;
  }
  if (patch.robotsTxt !== undefined) m.robotsTxt = patch.robotsTxt;
  for (const [path, s] of Object.entries(patch.sitemaps ?? {})) {
    if (s === null) delete m.sitemaps[path];
    else m.sitemaps[path] = s;
  }
  return m;
}

/** Number of pages besides the home page. */
export function pageCount(m: SiteModel): number {
  return Object.keys(m.pages).filter((p) => p !== '/').length;
}

const ERROR_PAGE = '<!DOCTYPE html><html><head><title>Internal Server Error</title></head><body><h1>Internal Server Error</h1></body></html>';

/** The HTML of one page of the model, served from `origin`. */
export function renderPage(m: SiteModel, path: string, origin: string): string {
  const p = m.pages[path];
  if (p.status !== undefined && p.status >= 500) return ERROR_PAGE;
  const abs = (href: string) => (href === 'self' ? null : new URL(href, origin).href);
  return htmlPage({
    title: p.title ?? undefined,
    description: p.description ?? undefined,
    canonical: p.canonical === null ? undefined : (abs(p.canonical) ?? new URL(path, origin).href),
    robots: p.robots,
    h1: p.h1,
    hreflang: p.hreflang?.map((h) => ({ lang: h.lang, href: abs(h.href)! })),
    jsonLd: p.jsonLd?.map((type) => ({ '@context': 'https://schema.org', '@type': type, name: p.title ?? path })),
    links: [...m.nav, ...(p.links ?? []), ...m.footer],
    words: p.words,
    extraBody: p.extraBody,
  });
}

/** About how many bytes a page of the model weighs when served (the fixture's origin changes a few). */
export function pageBytes(m: SiteModel, path: string): number {
  return Buffer.byteLength(renderPage(m, path, 'http://127.0.0.1:40000'));
}

/** Serves the model on the fixture site, replacing everything it served before. */
export function publish(site: FixtureSite, m: SiteModel): void {
  site.reset();
  for (const [path, p] of Object.entries(m.pages)) {
    const html = renderPage(m, path, site.origin);
    site.set(path, { status: p.status, html, headers: p.status !== undefined && p.status >= 500 ? undefined : p.headers, delayMs: p.delayMs });
  }
  for (const [from, to] of Object.entries(m.redirects)) site.set(from, { redirectTo: to });
  site.set('/robots.txt', { body: m.robotsTxt.replaceAll('{origin}', site.origin), contentType: 'text/plain' });
  for (const [path, s] of Object.entries(m.sitemaps)) {
    const body = 'urls' in s ? sitemapXml(s.urls.map((u) => site.url(u))) : sitemapIndexXml(s.index.map((u) => site.url(u)));
    site.set(path, { body, contentType: 'application/xml' });
  }
}

/** An <img> with about `bytes` of base64 PNG inlined in its src: a hero image pasted into the markup. */
export function inlineImage(bytes: number, alt: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let seed = 7;
  let data = 'iVBORw0KGgoAAAANSUhEUgAAB4AAAAQ4CAYAAADo08FDAAAAAXNSR0IArs4c6QAAIABJREFUeF7s';
  const chunk: string[] = [];
  for (let i = 0; i < 4096; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    chunk.push(alphabet[seed % 64]);
  }
  const block = chunk.join('');
  while (data.length < bytes) data += block;
  return `<section class="hero"><img src="data:image/png;base64,${data.slice(0, bytes)}" alt="${alt}" width="1280" height="720"></section>`;
}
