// Sitemaps (<urlset> and <sitemapindex>, plain or gzip) read with the maintained `sax`
// package, streaming: the decompressed document is never held whole in memory.
//
// Sitemap bombs: a small gzip can expand to gigabytes, and an index can fan out to thousands of
// sitemaps. Limits (defaults in DEFAULT_SITEMAP_LIMITS): decompressed bytes per document,
// URLs per document and in total, child sitemaps read in total, and index nesting. Reading
// stops as soon as one is hit; what was read before stays, and an error says which limit.
// A document that has no <urlset>/<sitemapindex> root within its first MiB is not a sitemap
// (this also stops a gzip of zeros long before the byte limit).
//
// Decisions:
// - gzip is detected by its magic bytes (1f 8b), whatever the URL or Content-Type says.
// - Child sitemaps are followed only on the origin of the index that lists them (the sitemap
//   protocol's rule, and it keeps a hostile index from sending the reader elsewhere); others
//   are reported as errors. <loc> URLs are returned whatever their origin (valid http(s) only,
//   normalized, unique): the crawler filters them like links.
// - Only <loc> directly in <url> (or <sitemap> in an index) counts, so image and video
//   extensions (<image:loc>) are not taken for pages. Plain-text sitemaps are not supported.
// - `reachable`: at least one of the start URLs answered 2xx.
// - Documents are fetched one at a time: polite to the site, and simpler to bound.

import zlib from 'node:zlib';
import { StringDecoder } from 'node:string_decoder';
import sax from 'sax';
import { normalizeUrl, originOf } from './normalize-url.ts';

export interface SitemapLimits {
  /** Bytes of one sitemap document after decompression. */
  maxDecompressedBytes: number;
  /** <loc> entries read from one document (the protocol's own maximum is 50,000). */
  maxUrlsPerSitemap: number;
  /** Page URLs returned in total. */
  maxTotalUrls: number;
  /** Sitemaps read because an index listed them, in total (start URLs not counted). */
  maxChildSitemaps: number;
  /** Index levels under a start index: 1 lets a start index list indexes, whose children are read. */
  maxIndexNesting: number;
}

export const DEFAULT_SITEMAP_LIMITS: SitemapLimits = {
  maxDecompressedBytes: 50 * 1024 * 1024,
  maxUrlsPerSitemap: 50_000,
  maxTotalUrls: 100_000,
  maxChildSitemaps: 50,
  maxIndexNesting: 1,
};

export type SitemapFetch = (url: string) => Promise<{ status: number | null; body: Buffer }>;

export interface SitemapError {
  url: string;
  message: string;
}

export interface SitemapResult {
  urls: string[];
  errors: SitemapError[];
  reachable: boolean;
}

export interface ParsedSitemap {
  kind: 'urlset' | 'sitemapindex' | null;
  /** The <loc> values, trimmed, as written (not yet validated). */
  locs: string[];
  /** Why reading stopped early or failed; the locs before that point are kept. */
  error: string | null;
}

const CHUNK = 64 * 1024;
const ROOT_WITHIN_BYTES = 1024 * 1024;
const MAX_LOC_LENGTH = 8 * 1024;
const MAX_XML_DEPTH = 32;

/** Parses one sitemap document (gzip or not). Never throws; problems end up in `error`. */
export function parseSitemap(
  body: Buffer,
  limits: Pick<SitemapLimits, 'maxDecompressedBytes' | 'maxUrlsPerSitemap'> = DEFAULT_SITEMAP_LIMITS,
): Promise<ParsedSitemap> {
  return new Promise((resolve) => {
    const reader = new SitemapReader(limits);
    const finish = () => resolve(reader.result());
    if (!(body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b)) {
      for (let at = 0; at < body.length && !reader.stopped; at += CHUNK) reader.feed(body.subarray(at, at + CHUNK));
      reader.end();
      finish();
      return;
    }
    const gunzip = zlib.createGunzip({ chunkSize: CHUNK });
    let done = false;
    const settle = () => {
      if (done) return;
      done = true;
      gunzip.destroy();
      finish();
    };
    gunzip.on('data', (chunk: Buffer) => {
      if (done) return;
      reader.feed(chunk);
      if (reader.stopped) settle();
    });
    gunzip.on('end', () => {
      if (done) return;
      reader.end();
      settle();
    });
    gunzip.on('error', (err: Error) => {
      if (done) return;
      reader.fail(`invalid gzip: ${err.message}`);
      settle();
    });
    gunzip.end(body);
  });
}

/** Feeds bytes through a sax parser and keeps the <loc>s in the right place. */
class SitemapReader {
  stopped = false;
  private readonly parser: sax.SAXParser;
  private readonly decoder = new StringDecoder('utf8');
  private bytes = 0;
  private kind: ParsedSitemap['kind'] = null;
  private sawRoot = false;
  private prefix = '';
  private readonly path: string[] = [];
  private inLoc = false;
  private loc = '';
  private readonly locs: string[] = [];
  private error: string | null = null;

  constructor(private readonly limits: Pick<SitemapLimits, 'maxDecompressedBytes' | 'maxUrlsPerSitemap'>) {
    // Loose mode: real sitemaps have unescaped '&' and similar slips that a strict XML parser
    // rejects outright; tag names come lower-cased. Position tracking must stay on: sax only
    // flushes its text buffer (every 64 KiB) when it tracks positions; without it, whitespace
    // between tags accumulates in one string for the whole document.
    const p = sax.parser(false, { lowercase: true });
    p.onopentag = (tag) => this.open(tag.name);
    p.onclosetag = (name) => this.close(name);
    p.ontext = (t) => this.text(t);
    p.oncdata = (t) => this.text(t);
    p.onerror = (err) => this.fail(`invalid XML: ${err.message.split('\n')[0]}`);
    this.parser = p;
  }

  feed(chunk: Buffer): void {
    if (this.stopped) return;
    const allowed = this.limits.maxDecompressedBytes - this.bytes;
    if (chunk.length > allowed) {
      // Read up to the limit exactly, so the URLs before it are kept.
      this.bytes += allowed;
      this.write(this.decoder.write(chunk.subarray(0, allowed)));
      this.fail(`larger than ${this.limits.maxDecompressedBytes} bytes decompressed; the rest is not read`);
      return;
    }
    this.bytes += chunk.length;
    this.write(this.decoder.write(chunk));
    if (!this.stopped && !this.sawRoot && this.bytes > ROOT_WITHIN_BYTES) {
      this.fail('not a sitemap: no <urlset> or <sitemapindex> element');
    }
  }

  end(): void {
    if (this.stopped) return;
    this.write(this.decoder.end());
    if (this.stopped) return;
    try {
      this.parser.close();
    } catch (err) {
      this.fail(`invalid XML: ${(err as Error).message.split('\n')[0]}`);
    }
    if (!this.sawRoot && this.error === null) this.error = 'not a sitemap: no <urlset> or <sitemapindex> element';
    this.stopped = true;
  }

  fail(message: string): void {
    if (this.error === null) this.error = message;
    this.stopped = true;
  }

  result(): ParsedSitemap {
    return { kind: this.kind, locs: this.locs, error: this.error };
  }

  private write(text: string): void {
    if (text === '' || this.stopped) return;
    try {
      this.parser.write(text);
    } catch (err) {
      // sax throws from write() when an error handler leaves the error set; belt and braces.
      this.fail(`invalid XML: ${(err as Error).message.split('\n')[0]}`);
    }
  }

  private open(name: string): void {
    if (this.stopped) return;
    if (!this.sawRoot) {
      this.sawRoot = true;
      const colon = name.indexOf(':');
      const local = name.slice(colon + 1);
      if (local !== 'urlset' && local !== 'sitemapindex') {
        this.fail(`not a sitemap: root element <${name.slice(0, 64)}>`);
        return;
      }
      this.kind = local;
      this.prefix = name.slice(0, colon + 1);
    }
    this.path.push(name);
    if (this.path.length > MAX_XML_DEPTH) {
      this.fail('elements nested too deep');
      return;
    }
    const entry = this.kind === 'urlset' ? 'url' : 'sitemap';
    if (this.path.length === 3 && name === `${this.prefix}loc` && this.path[1] === `${this.prefix}${entry}`) {
      this.inLoc = true;
      this.loc = '';
    }
  }

  private text(t: string): void {
    if (!this.inLoc) return;
    if (this.loc.length <= MAX_LOC_LENGTH) this.loc += t;
  }

  private close(_name: string): void {
    if (this.stopped) return;
    if (this.inLoc && this.path.length === 3) {
      this.inLoc = false;
      const loc = this.loc.trim();
      this.loc = '';
      if (loc !== '' && loc.length <= MAX_LOC_LENGTH) {
        if (this.locs.length >= this.limits.maxUrlsPerSitemap) {
          this.fail(`more than ${this.limits.maxUrlsPerSitemap} URLs; the rest is not read`);
          return;
        }
        this.locs.push(loc);
      }
    }
    this.path.pop();
  }
}

interface QueueItem {
  url: string;
  /** Number of sitemap indexes above this document. */
  nesting: number;
  start: boolean;
}

/**
 * Reads the sitemaps at `startUrls` (typically robots.txt's Sitemap lines, or /sitemap.xml) and
 * the sitemaps their indexes list, within `limits`. Never throws: fetch failures, HTTP errors,
 * garbage and limits are reported in `errors`.
 */
export async function readSitemaps(
  startUrls: string[],
  fetch: SitemapFetch,
  limits: Partial<SitemapLimits> = {},
): Promise<SitemapResult> {
  const lim: SitemapLimits = { ...DEFAULT_SITEMAP_LIMITS, ...limits };
  const urls: string[] = [];
  const seenUrls = new Set<string>();
  const errors: SitemapError[] = [];
  let reachable = false;

  const queued = new Set<string>();
  const queue: QueueItem[] = [];
  for (const raw of startUrls) {
    const url = normalizeUrl(raw);
    if (url === null) {
      errors.push({ url: raw, message: 'not an http(s) URL' });
      continue;
    }
    if (queued.has(url)) continue;
    queued.add(url);
    queue.push({ url, nesting: 0, start: true });
  }

  let children = 0;
  let childLimitReported = false;
  for (let i = 0; i < queue.length; i++) {
    const item = queue[i];
    let res: { status: number | null; body: Buffer };
    try {
      res = await fetch(item.url);
    } catch (err) {
      errors.push({ url: item.url, message: `fetch failed: ${(err as Error).message}` });
      continue;
    }
    if (res.status === null) {
      errors.push({ url: item.url, message: 'unreachable' });
      continue;
    }
    if (res.status < 200 || res.status >= 300) {
      errors.push({ url: item.url, message: `HTTP ${res.status}` });
      continue;
    }
    if (item.start) reachable = true;

    const parsed = await parseSitemap(res.body, lim);
    if (parsed.error !== null) errors.push({ url: item.url, message: parsed.error });

    if (parsed.kind === 'urlset') {
      let invalid = 0;
      for (const loc of parsed.locs) {
        const url = normalizeUrl(loc);
        if (url === null) {
          invalid++;
          continue;
        }
        if (seenUrls.has(url)) continue;
        if (urls.length >= lim.maxTotalUrls) {
          errors.push({ url: item.url, message: `more than ${lim.maxTotalUrls} URLs in total; the rest is not read` });
          return { urls, errors, reachable };
        }
        seenUrls.add(url);
        urls.push(url);
      }
      if (invalid > 0) errors.push({ url: item.url, message: `${invalid} <loc> value(s) are not http(s) URLs` });
      continue;
    }
    if (parsed.kind !== 'sitemapindex') continue;

    if (item.nesting > lim.maxIndexNesting) {
      errors.push({ url: item.url, message: `sitemap index nested more than ${lim.maxIndexNesting} level(s) deep; not followed` });
      continue;
    }
    const origin = originOf(item.url);
    let crossOrigin = 0;
    for (const loc of parsed.locs) {
      const child = normalizeUrl(loc, item.url);
      if (child === null || originOf(child) !== origin) {
        crossOrigin++;
        continue;
      }
      if (queued.has(child)) continue;
      if (children >= lim.maxChildSitemaps) {
        if (!childLimitReported) {
          childLimitReported = true;
          errors.push({ url: item.url, message: `more than ${lim.maxChildSitemaps} child sitemaps; the rest is not read` });
        }
        break;
      }
      children++;
      queued.add(child);
      queue.push({ url: child, nesting: item.nesting + 1, start: false });
    }
    if (crossOrigin > 0) {
      errors.push({ url: item.url, message: `${crossOrigin} child sitemap(s) not on this index's origin (or invalid); not followed` });
    }
  }
  return { urls, errors, reachable };
}
