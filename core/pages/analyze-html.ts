// The HTML-derived fields of a page record, from one streaming pass of htmlparser2's Parser.
//
// Why callbacks and not a DOM: the parser was chosen for measured speed, and the analyzer has to
// keep at least half of the raw parser's throughput. So the scanner keeps no tree and allocates
// little per tag: attributes are looked at only for the few elements that matter (a, base, link,
// meta, script) plus `itemtype` anywhere; a tag's attributes are acted on at the next parser
// event (we do not subscribe to `onopentag`, which would make the parser build an attribute
// object for every element).
//
// Decisions (the open points of the page contract):
// - title: the first <title> outside <svg> (SVG has its own <title>), whitespace collapsed,
//   entities decoded; null when absent or blank. Pages often omit <head>, so it is not required.
// - metaDescription: the content of the first <meta name="description">, collapsed; null when
//   absent or blank. Both fields keep at most MAX_TEXT_FIELD characters.
// - canonical: the first <link rel="canonical" href> (rel is a token list), resolved against
//   <base href> and the page URL; else the first `Link: <...>; rel="canonical"` header, resolved
//   against the page URL. An empty or unparsable href gives null.
// - robots: X-Robots-Tag header values first (they arrive first), then <meta name="robots"> and
//   <meta name="googlebot">, merged as described in robots-directives.ts.
// - hreflang: <link rel="alternate" hreflang href> then Link header alternates with hreflang;
//   lang trimmed and lower-cased, href absolute; exact duplicates dropped.
// - wordCount: visible text only: not in head, title, script, style, noscript, template or svg.
//   Text in <noscript> is left out as JavaScript-enabled visitors and Googlebot do not see it;
//   links inside it still count (they are in the HTML a crawler reads). See word-count.ts.
// - internalLinks: every <a href> (not <area>) whose URL resolves to the page's own origin
//   (scheme, host and port of `url`, i.e. after redirects), counted per anchor. Fragment-only
//   hrefs ("#top", "#") are in-page navigation or script hooks, not links, and are not counted.
// - links: those same anchors' URLs normalized (normalize-url.ts), unique, in document order.
//   Links with rel="nofollow" are in `links` too (a health crawl wants to find broken pages even
//   behind nofollow); `nofollowLinks` lists those whose every anchor on this page is nofollow,
//   for a caller that wants to skip them. A page-level meta robots nofollow is reported in
//   `robots` and left to the caller as well.
// - Non-HTML responses (see decode-body.ts) get empty HTML fields, but the header-derived ones
//   (X-Robots-Tag, Link canonical/hreflang) still apply: Google honours them on PDFs and the like.
// - Hostile input: the parser itself is linear except in nesting depth (its open-element stack
//   makes every push and unmatched close cost O(depth)): 200,000 nested <div>s take seconds. Past
//   FLATTEN_DEPTH open elements the rest of the document is parsed flat (new elements do not
//   nest and their closing tags are ignored), much as Chromium caps its DOM depth at 512. Text,
//   links and metadata are still read. The elements the scanner's state depends on (script,
//   title, svg...) keep nesting; past STOP_DEPTH (only reachable by nesting those) reading stops
//   and `truncated` is true. GuardedParser hooks the Parser's tokenizer callbacks, which
//   htmlparser2 marks internal: the depth tests in test/pages-analysis.test.ts guard that.

import { Parser } from 'htmlparser2';
import { decodeHtml, isHtmlResponse } from './decode-body.ts';
import { parseLinkHeader } from './link-header.ts';
import { normalizeParsedUrl } from './normalize-url.ts';
import { RobotsDirectives, headerValues } from './robots-directives.ts';
import { addItemtypes, addJsonLdTypes } from './structured-data.ts';
import { WordCounter } from './word-count.ts';

export type HeaderMap = Record<string, string | string[] | undefined>;

export interface AnalyzeHtmlOptions {
  /** The final URL of the page (after redirects): base for relative links and the origin of "internal". */
  url: string;
  /** Response headers, lower-case names. Used: content-type, x-robots-tag, link. */
  headers?: HeaderMap;
}

export interface Hreflang {
  lang: string;
  href: string;
}

export interface PageAnalysis {
  /** False when the response is not HTML; the HTML-derived fields are then empty. */
  isHtml: boolean;
  title: string | null;
  metaDescription: string | null;
  canonical: string | null;
  robots: string[];
  h1Count: number;
  hreflang: Hreflang[];
  structuredDataTypes: string[];
  wordCount: number;
  internalLinks: number;
  /** Same-origin <a href> URLs, normalized, unique, in document order: the crawl frontier. */
  links: string[];
  /** The subset of `links` whose every anchor on this page has rel="nofollow". */
  nofollowLinks: string[];
  /** Reading stopped early at the nesting guard; the fields cover the document up to there. */
  truncated: boolean;
}

export const MAX_TEXT_FIELD = 2048;
/** Longer hrefs are not followed: no server reliably accepts URLs this long. */
export const MAX_HREF_LENGTH = 16 * 1024;
const MAX_RAW_TEXT = 4 * MAX_TEXT_FIELD;
const MAX_JSON_LD_BLOCK = 1024 * 1024;
const MAX_JSON_LD_TOTAL = 4 * 1024 * 1024;
export const FLATTEN_DEPTH = 512;
export const STOP_DEPTH = 1024;

// Element kinds the scanner distinguishes; everything else is OTHER (a block-level boundary).
const OTHER = 0;
const INLINE = 1;
const A = 2;
const BASE = 3;
const LINK = 4;
const META = 5;
const SCRIPT = 6;
const TITLE = 7;
const H1 = 8;
const HEAD = 9;
const HIDDEN = 10; // style, noscript, template: their text is not visible
const SVG = 11;
const HTML = 12;

const KINDS = new Map<string, number>([
  ['a', A], ['base', BASE], ['link', LINK], ['meta', META], ['script', SCRIPT], ['title', TITLE],
  ['h1', H1], ['head', HEAD], ['style', HIDDEN], ['noscript', HIDDEN], ['template', HIDDEN],
  ['svg', SVG], ['html', HTML],
  // Inline elements do not separate words: "un<b>believ</b>able" is one word.
  ...['abbr', 'b', 'bdi', 'bdo', 'big', 'cite', 'code', 'data', 'del', 'dfn', 'em', 'font', 'i', 'ins', 'kbd',
    'label', 'mark', 'nobr', 'q', 's', 'samp', 'small', 'span', 'strike', 'strong', 'sub', 'sup', 'time', 'tt', 'u',
    'var', 'wbr'].map((n): [string, number] => [n, INLINE]),
]);

/** Elements allowed in <head>; any other element ends the head (as in browsers). */
function staysInHead(kind: number): boolean {
  return kind === META || kind === LINK || kind === BASE || kind === SCRIPT || kind === TITLE || kind === HIDDEN || kind === HEAD || kind === HTML;
}

/** Elements whose open/close the scanner's state follows, so they keep nesting when flattened. */
const KEEP_NESTING = new Set(['head', 'title', 'script', 'style', 'noscript', 'template', 'svg']);

class GuardedParser extends Parser {
  /** Set by the scanner at any time; takes effect at the next tag boundary (see below). */
  flattenNext = false;
  private flatten = false;

  // The parser asks isVoidElement() about one tag several times (when it opens it, when it ends
  // its start tag); the answer must not change in between, or a pushed element would also get an
  // implied close. So the flag only changes where the tokenizer starts a new open or close tag.
  override onopentagname(start: number, endIndex: number): void {
    this.flatten = this.flattenNext;
    super.onopentagname(start, endIndex);
  }

  override onclosetag(start: number, endIndex: number): void {
    this.flatten = this.flattenNext;
    super.onclosetag(start, endIndex);
  }

  protected override isVoidElement(name: string): boolean {
    if (super.isVoidElement(name)) return true;
    return this.flatten && !KEEP_NESTING.has(name);
  }

  /** Whether the element being opened was pushed on the open-element stack. */
  nests(name: string): boolean {
    return !this.isVoidElement(name);
  }
}

class PageScanner {
  parser!: GuardedParser;

  constructor(private readonly robots: RobotsDirectives) {}

  truncated = false;

  // Element nesting, mirrored from the parser's stack for the depth guard.
  private depth = 0;
  /** Name of the element just opened without being pushed (void or flattened): its close is implied. */
  private unpushed: string | null = null;

  // The element whose attributes are being collected (A, BASE, LINK, META, SCRIPT or OTHER).
  private pending = OTHER;
  private attrHref: string | null = null;
  private attrRel: string | null = null;
  private attrName: string | null = null;
  private attrContent: string | null = null;
  private attrHreflang: string | null = null;
  private attrType: string | null = null;

  private headDepth = 0;
  private hiddenDepth = 0;
  private svgDepth = 0;

  private titleState: 'before' | 'in' | 'done' = 'before';
  private titleText = '';
  private inJsonLd = false;
  private jsonLdText = '';
  private jsonLdOverflow = false;
  private jsonLdBudget = MAX_JSON_LD_TOTAL;

  readonly words = new WordCounter();
  readonly types = new Set<string>();
  h1Count = 0;
  metaDescription: string | null | undefined = undefined;
  title: string | null = null;
  baseHref: string | null = null;
  canonicalHref: string | null = null;
  readonly hreflangRaw: Array<{ lang: string; href: string }> = [];
  readonly anchorHrefs: string[] = [];
  readonly anchorNofollow: boolean[] = [];

  onopentagname(name: string): void {
    if (this.pending !== OTHER) this.flush();
    const parser = this.parser;
    if (parser.nests(name)) {
      this.unpushed = null;
      if (++this.depth >= FLATTEN_DEPTH) {
        parser.flattenNext = true;
        if (this.depth >= STOP_DEPTH) {
          this.truncated = true;
          parser.pause();
        }
      }
    } else {
      this.unpushed = name;
    }

    const kind = KINDS.get(name) ?? OTHER;
    if (kind !== INLINE) this.words.boundary();
    if (this.headDepth > 0 && !staysInHead(kind)) this.endHead();
    switch (kind) {
      case A:
      case BASE:
      case LINK:
      case META:
        this.startAttributes(kind);
        break;
      case SCRIPT:
        this.startAttributes(kind);
        this.hiddenDepth++;
        break;
      case TITLE:
        this.hiddenDepth++;
        if (this.titleState === 'before' && this.svgDepth === 0) this.titleState = 'in';
        break;
      case H1:
        this.h1Count++;
        break;
      case HEAD:
        this.headDepth++;
        break;
      case HIDDEN:
        this.hiddenDepth++;
        break;
      case SVG:
        this.hiddenDepth++;
        this.svgDepth++;
        break;
    }
  }

  onattribute(name: string, value: string): void {
    if (this.pending !== OTHER) {
      // The first occurrence of a repeated attribute wins, as in browsers.
      switch (name) {
        case 'href':
          if (this.attrHref === null) this.attrHref = value;
          break;
        case 'rel':
          if (this.attrRel === null) this.attrRel = value;
          break;
        case 'name':
          if (this.attrName === null) this.attrName = value;
          break;
        case 'content':
          if (this.attrContent === null) this.attrContent = value;
          break;
        case 'hreflang':
          if (this.attrHreflang === null) this.attrHreflang = value;
          break;
        case 'type':
          if (this.attrType === null) this.attrType = value;
          break;
      }
    }
    if (name === 'itemtype') addItemtypes(value, this.types);
  }

  ontext(text: string): void {
    if (this.pending !== OTHER) this.flush();
    this.unpushed = null;
    if (this.inJsonLd) {
      // Over the cap the block is dropped, not cut: a truncated block would fail to parse anyway.
      if (this.jsonLdText.length + text.length <= MAX_JSON_LD_BLOCK) this.jsonLdText += text;
      else this.jsonLdOverflow = true;
      return;
    }
    if (this.titleState === 'in') {
      if (this.titleText.length < MAX_RAW_TEXT) this.titleText += text;
      return;
    }
    if (this.hiddenDepth > 0) return;
    if (this.headDepth > 0) {
      // Text in <head> is whitespace in valid pages; anything else ends the head, as in browsers.
      if (!/\S/.test(text)) return;
      this.endHead();
    }
    this.words.add(text);
  }

  onclosetag(name: string): void {
    if (this.pending !== OTHER) this.flush();
    if (this.unpushed === name) {
      // The implied close of a void or flattened element, which never was on the stack.
      this.unpushed = null;
    } else {
      this.unpushed = null;
      this.depth--;
      if (this.depth < FLATTEN_DEPTH) this.parser.flattenNext = false;
    }

    const kind = KINDS.get(name) ?? OTHER;
    if (kind !== INLINE) this.words.boundary();
    switch (kind) {
      case SCRIPT:
        this.hiddenDepth--;
        if (this.inJsonLd) this.endJsonLd();
        break;
      case TITLE:
        this.hiddenDepth--;
        if (this.titleState === 'in') this.endTitle();
        break;
      case HEAD:
        if (this.headDepth > 0) this.headDepth--;
        break;
      case HIDDEN:
        this.hiddenDepth--;
        break;
      case SVG:
        this.hiddenDepth--;
        this.svgDepth--;
        break;
    }
  }

  /** After the last event, whether the parser reached the end or was stopped by the guard. */
  finish(): void {
    if (this.pending !== OTHER) this.flush();
    if (this.inJsonLd) this.endJsonLd();
    if (this.titleState === 'in') this.endTitle();
  }

  private endHead(): void {
    this.headDepth = 0;
  }

  private startAttributes(kind: number): void {
    this.pending = kind;
    this.attrHref = null;
    this.attrRel = null;
    this.attrName = null;
    this.attrContent = null;
    this.attrHreflang = null;
    this.attrType = null;
  }

  /** Acts on the collected attributes of the element opened last. */
  private flush(): void {
    const kind = this.pending;
    this.pending = OTHER;
    switch (kind) {
      case A: {
        const href = this.attrHref;
        if (href === null || href.length > MAX_HREF_LENGTH) return;
        const first = firstNonSpace(href);
        if (first === -1 || href.charCodeAt(first) === 0x23 /* # */) return;
        this.anchorHrefs.push(href);
        this.anchorNofollow.push(this.attrRel !== null && hasToken(this.attrRel, 'nofollow'));
        return;
      }
      case BASE:
        if (this.baseHref === null && this.attrHref !== null) this.baseHref = this.attrHref;
        return;
      case LINK: {
        const rel = this.attrRel;
        const href = this.attrHref;
        if (rel === null || href === null) return;
        if (this.canonicalHref === null && hasToken(rel, 'canonical')) this.canonicalHref = href;
        if (this.attrHreflang !== null && hasToken(rel, 'alternate')) this.hreflangRaw.push({ lang: this.attrHreflang, href });
        return;
      }
      case META: {
        const name = this.attrName;
        const content = this.attrContent;
        if (name === null || content === null) return;
        const n = name.trim().toLowerCase();
        if (n === 'robots' || n === 'googlebot') this.robots.addMeta(content);
        else if (n === 'description' && this.metaDescription === undefined) this.metaDescription = collapse(content);
        return;
      }
      case SCRIPT:
        if (this.attrType !== null && isJsonLdType(this.attrType)) {
          this.inJsonLd = true;
          this.jsonLdText = '';
          this.jsonLdOverflow = false;
        }
        return;
    }
  }

  private endJsonLd(): void {
    this.inJsonLd = false;
    const text = this.jsonLdText;
    this.jsonLdText = '';
    if (this.jsonLdOverflow || text.length > this.jsonLdBudget) return;
    this.jsonLdBudget -= text.length;
    addJsonLdTypes(text, this.types);
  }

  private endTitle(): void {
    this.titleState = 'done';
    this.title = collapse(this.titleText);
    this.titleText = '';
  }
}

function firstNonSpace(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x20) return i;
  }
  return -1;
}

/** Is `token` in the space-separated, case-insensitive list `list` (rel attributes)? */
function hasToken(list: string, token: string): boolean {
  const lower = list.toLowerCase();
  const at = lower.indexOf(token);
  if (at === -1) return false;
  return lower.split(/[\t\n\f\r ]+/).includes(token);
}

function isJsonLdType(type: string): boolean {
  const semi = type.indexOf(';');
  return (semi === -1 ? type : type.slice(0, semi)).trim().toLowerCase() === 'application/ld+json';
}

function collapse(text: string): string | null {
  const s = text.replace(/\s+/g, ' ').trim();
  if (s === '') return null;
  return s.length > MAX_TEXT_FIELD ? s.slice(0, MAX_TEXT_FIELD) : s;
}

function firstHeader(headers: HeaderMap | undefined, name: string): string | undefined {
  const v = headers?.[name];
  return Array.isArray(v) ? v[0] : v;
}

function parseUrl(href: string, base?: string | URL): URL | null {
  try {
    return new URL(href, base);
  } catch {
    return null;
  }
}

export function analyzeHtml(body: Buffer | string, opts: AnalyzeHtmlOptions): PageAnalysis {
  const headers = opts.headers;
  const contentType = firstHeader(headers, 'content-type');
  const parsedPageUrl = parseUrl(opts.url);
  const pageUrl = parsedPageUrl === null ? null : parsedPageUrl.href;
  const pageOrigin = parsedPageUrl === null ? null : httpOrigin(parsedPageUrl);

  const robots = new RobotsDirectives();
  for (const v of headerValues(headers?.['x-robots-tag'])) robots.addHeader(v);
  const linkValues = headerValues(headers?.['link']).flatMap(parseLinkHeader);

  const result: PageAnalysis = {
    isHtml: false,
    title: null,
    metaDescription: null,
    canonical: null,
    robots: robots.list,
    h1Count: 0,
    hreflang: [],
    structuredDataTypes: [],
    wordCount: 0,
    internalLinks: 0,
    links: [],
    nofollowLinks: [],
    truncated: false,
  };

  let scanner: PageScanner | null = null;
  if (isHtmlResponse(body, contentType)) {
    scanner = new PageScanner(robots);
    const parser = new GuardedParser(scanner);
    scanner.parser = parser;
    parser.end(decodeHtml(body, contentType));
    scanner.finish();
    result.isHtml = true;
    result.title = scanner.title;
    result.metaDescription = scanner.metaDescription ?? null;
    result.h1Count = scanner.h1Count;
    result.structuredDataTypes = [...scanner.types].sort();
    result.wordCount = scanner.words.count;
    result.truncated = scanner.truncated;
  }
  if (pageUrl === null) return result;

  // <base href> is resolved against the page URL; it applies to every URL in the document, even
  // those before it, which is why hrefs are kept raw until the end.
  const base = (scanner?.baseHref != null ? parseUrl(scanner.baseHref, pageUrl) : null) ?? new URL(pageUrl);

  const canonicalTag = scanner?.canonicalHref ?? null;
  if (canonicalTag !== null) {
    result.canonical = resolveNonEmpty(canonicalTag, base);
  } else {
    const header = linkValues.find((l) => l.rel.includes('canonical'));
    if (header !== undefined) result.canonical = resolveNonEmpty(header.target, pageUrl);
  }

  const seenHreflang = new Set<string>();
  const addHreflang = (lang: string, href: string, against: string | URL) => {
    const l = lang.trim().toLowerCase();
    const abs = resolveNonEmpty(href, against);
    if (l === '' || abs === null) return;
    const key = `${l} ${abs}`;
    if (seenHreflang.has(key)) return;
    seenHreflang.add(key);
    result.hreflang.push({ lang: l, href: abs });
  };
  for (const h of scanner?.hreflangRaw ?? []) addHreflang(h.lang, h.href, base);
  for (const l of linkValues) if (l.hreflang !== null && l.rel.includes('alternate')) addHreflang(l.hreflang, l.target, pageUrl);

  if (scanner !== null && pageOrigin !== null) {
    const allNofollow = new Map<string, boolean>();
    const hrefs = scanner.anchorHrefs;
    for (let i = 0; i < hrefs.length; i++) {
      const url = parseUrl(hrefs[i], base);
      if (url === null || url.origin !== pageOrigin) continue;
      const normalized = normalizeParsedUrl(url);
      if (normalized === null) continue;
      result.internalLinks++;
      const nofollow = scanner.anchorNofollow[i];
      const before = allNofollow.get(normalized);
      allNofollow.set(normalized, before === undefined ? nofollow : before && nofollow);
    }
    for (const [url, nofollow] of allNofollow) {
      result.links.push(url);
      if (nofollow) result.nofollowLinks.push(url);
    }
  }
  return result;
}

function httpOrigin(u: URL): string | null {
  return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
}

function resolveNonEmpty(href: string, base: string | URL): string | null {
  if (href.trim() === '') return null;
  return parseUrl(href, base)?.href ?? null;
}
