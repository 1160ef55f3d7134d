// A real website on 127.0.0.1 for end-to-end tests and benchmarks of site checks and crawls.
// Pages live in memory and can change between checks (set/remove/reset); each can misbehave
// the way real servers do: slow headers, redirects, a connection cut mid-body, a response that
// never finishes, a huge streamed body.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import zlib from 'node:zlib';

export interface PageSpec {
  /** Default 200 (301 with redirectTo). */
  status?: number;
  headers?: Record<string, string | string[]>;
  html?: string;
  body?: Buffer | string;
  /** Default: text/html for html and bytes; for body, guessed from the path's extension. */
  contentType?: string;
  /** Wait this long before sending the headers. */
  delayMs?: number;
  /** Location (relative or absolute); status 301 unless `status` is another redirect code. */
  redirectTo?: string;
  /** Send the headers (full Content-Length) and half the body, then destroy the socket. */
  closeMidResponse?: boolean;
  /** Send the headers and a little of the body, then stall until the client gives up. */
  neverFinish?: boolean;
  /** A generated HTML-ish body of exactly this many bytes, streamed in chunks (e.g. 50 MiB). */
  bytes?: number;
}

export interface RequestLogEntry {
  method: string;
  /** Path and query as requested. */
  path: string;
  userAgent: string | null;
}

export interface FixtureSite {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  url(path: string): string;
  /** Serve `spec` at `path` (exact path and query, else the path alone); a string is HTML. */
  set(path: string, spec: PageSpec | string): void;
  /** 404 from now on. */
  remove(path: string): void;
  /** Forget every page and the request log. */
  reset(): void;
  /** Every request received, in order. */
  readonly requests: RequestLogEntry[];
  close(): Promise<void>;
}

interface Prepared {
  spec: PageSpec;
  body: Buffer | null;
  contentType: string;
}

const REDIRECT_CODES = new Set([301, 302, 303, 307, 308]);

const TYPES_BY_EXTENSION: Record<string, string> = {
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
  '.gz': 'application/gzip',
  '.json': 'application/json',
  '.html': 'text/html; charset=utf-8',
};

function guessContentType(path: string): string {
  const p = path.split('?')[0];
  const dot = p.lastIndexOf('.');
  return (dot !== -1 && TYPES_BY_EXTENSION[p.slice(dot)]) || 'application/octet-stream';
}

function prepare(path: string, input: PageSpec | string): Prepared {
  const spec: PageSpec = typeof input === 'string' ? { html: input } : input;
  let body: Buffer | null = null;
  if (spec.html !== undefined) body = Buffer.from(spec.html);
  else if (spec.body !== undefined) body = typeof spec.body === 'string' ? Buffer.from(spec.body) : spec.body;
  const contentType =
    spec.contentType ?? (spec.html !== undefined || spec.bytes !== undefined ? 'text/html; charset=utf-8' : guessContentType(path));
  return { spec, body, contentType };
}

const NOT_FOUND = Buffer.from('<!doctype html><html><head><title>Not found</title></head><body><h1>Not found</h1></body></html>');

export async function startFixtureSite(): Promise<FixtureSite> {
  const pages = new Map<string, Prepared>();
  const requests: RequestLogEntry[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push({ method: req.method ?? 'GET', path, userAgent: req.headers['user-agent'] ?? null });
    const page = pages.get(path) ?? pages.get(path.split('?')[0]);
    if (page === undefined) {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8', 'content-length': NOT_FOUND.length });
      res.end(req.method === 'HEAD' ? undefined : NOT_FOUND);
      return;
    }
    const delay = page.spec.delayMs ?? 0;
    if (delay <= 0) {
      respond(req, res, page);
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!res.destroyed) respond(req, res, page);
    }, delay);
    timers.add(timer);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Crawls open many short keep-alive connections; the default backlog and timeouts suit.
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    url: (path) => new URL(path, origin).href,
    set: (path, spec) => {
      pages.set(path, prepare(path, spec));
    },
    remove: (path) => {
      pages.delete(path);
    },
    reset: () => {
      pages.clear();
      requests.length = 0;
    },
    requests,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

function respond(req: http.IncomingMessage, res: http.ServerResponse, page: Prepared): void {
  const { spec } = page;
  const headers: Record<string, string | string[] | number> = { ...spec.headers };

  if (spec.redirectTo !== undefined) {
    const status = spec.status !== undefined && REDIRECT_CODES.has(spec.status) ? spec.status : 301;
    res.writeHead(status, { ...headers, location: spec.redirectTo, 'content-length': 0 });
    res.end();
    return;
  }

  const status = spec.status ?? 200;
  // A stalled response must promise more than it sends, even with no body to speak of.
  const length = Math.max(spec.bytes ?? page.body?.length ?? 0, spec.neverFinish ? 1 : 0);
  if (!hasHeader(headers, 'content-type')) headers['content-type'] = page.contentType;
  if (!hasHeader(headers, 'content-length')) headers['content-length'] = length;
  res.writeHead(status, headers);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }

  if (spec.neverFinish) {
    // A little of the body makes the client commit to reading it; then nothing, ever.
    const first = (spec.bytes !== undefined ? FILLER_CHUNK : (page.body ?? Buffer.alloc(0))).subarray(0, 1024);
    res.write(first.subarray(0, Math.min(first.length, Math.max(0, length - 1))));
    return;
  }
  if (spec.closeMidResponse) {
    const half = Math.floor(length / 2);
    const done = () => res.socket?.destroy();
    if (spec.bytes !== undefined) void streamGenerated(res, half).then(done);
    else res.write((page.body ?? Buffer.alloc(0)).subarray(0, half), done);
    return;
  }
  if (spec.bytes !== undefined) {
    void streamGenerated(res, spec.bytes).then((complete) => {
      if (complete) res.end();
    });
    return;
  }
  res.end(page.body ?? undefined);
}

function hasHeader(headers: Record<string, unknown>, name: string): boolean {
  return Object.keys(headers).some((k) => k.toLowerCase() === name);
}

// The generated body: an HTML prefix, then whole paragraphs, from one shared chunk, so a 50 MiB
// body costs 64 KiB of memory. After the first chunk, the paragraphs part repeats.
const PREFIX = '<!doctype html><html><head><title>Generated</title></head><body>\n';
const PARAGRAPH = '<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>\n';
const FILLER_CHUNK = Buffer.from(PREFIX + PARAGRAPH.repeat(Math.floor((64 * 1024 - PREFIX.length) / PARAGRAPH.length)), 'latin1');
const PARA_START = PREFIX.length;

/** Writes `total` generated bytes with backpressure; false if the client went away first. */
async function streamGenerated(res: http.ServerResponse, total: number): Promise<boolean> {
  let sent = 0;
  const step = FILLER_CHUNK.length - PARA_START;
  while (sent < total) {
    if (res.destroyed) return false;
    const chunk = sent === 0 ? FILLER_CHUNK.subarray(0, Math.min(total, FILLER_CHUNK.length)) : FILLER_CHUNK.subarray(PARA_START, PARA_START + Math.min(step, total - sent));
    sent += chunk.length;
    if (!res.write(chunk)) {
      const ok = await new Promise<boolean>((resolve) => {
        const onDrain = () => {
          res.off('close', onClose);
          resolve(true);
        };
        const onClose = () => {
          res.off('drain', onDrain);
          resolve(false);
        };
        res.once('drain', onDrain);
        res.once('close', onClose);
      });
      if (!ok) return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Content builders

export interface HtmlPageOptions {
  title?: string;
  description?: string;
  canonical?: string;
  /** Content of <meta name="robots">. */
  robots?: string;
  h1?: string[];
  hreflang?: Array<{ lang: string; href: string }>;
  jsonLd?: object[];
  /** Hrefs of <a> links in the navigation, each with a one-word text. */
  links?: string[];
  /** Words of body text in paragraphs (deterministic pseudo-random lorem ipsum). */
  words?: number;
  extraHead?: string;
  extraBody?: string;
  lang?: string;
}

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const LOREM = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore ' +
  'magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo consequat ' +
  'duis aute irure in reprehenderit voluptate velit esse cillum fugiat nulla pariatur excepteur sint occaecat ' +
  'cupidatat non proident sunt culpa qui officia deserunt mollit anim id est laborum'
).split(' ');

/** Deterministic PRNG (mulberry32): the same page every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` words in paragraphs of up to 80, some wrapped in inline <strong>/<em> (still one word each). */
export function paragraphs(count: number, seed = 1): string {
  const rand = prng(seed);
  const out: string[] = [];
  let left = count;
  while (left > 0) {
    const n = Math.min(left, 40 + Math.floor(rand() * 40));
    const words: string[] = [];
    for (let i = 0; i < n; i++) {
      const w = LOREM[Math.floor(rand() * LOREM.length)];
      const r = rand();
      words.push(r < 0.03 ? `<strong>${w}</strong>` : r < 0.05 ? `<em>${w}</em>` : w);
    }
    out.push(`<p class="body-text">${words.join(' ')}.</p>`);
    left -= n;
  }
  return out.join('\n');
}

/**
 * A realistic HTML page. Visible words (what the analyzer's wordCount should find):
 * `words` + the words of the h1s + one per link.
 */
export function htmlPage(o: HtmlPageOptions = {}): string {
  const head: string[] = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
  ];
  if (o.title !== undefined) head.push(`<title>${escapeHtml(o.title)}</title>`);
  if (o.description !== undefined) head.push(`<meta name="description" content="${escapeHtml(o.description)}">`);
  if (o.robots !== undefined) head.push(`<meta name="robots" content="${escapeHtml(o.robots)}">`);
  if (o.canonical !== undefined) head.push(`<link rel="canonical" href="${escapeHtml(o.canonical)}">`);
  for (const h of o.hreflang ?? []) head.push(`<link rel="alternate" hreflang="${escapeHtml(h.lang)}" href="${escapeHtml(h.href)}">`);
  head.push('<link rel="stylesheet" href="/assets/site.css">');
  head.push('<style>body{font-family:system-ui,sans-serif;margin:0}.nav a{padding:0 .5em}.body-text{line-height:1.5}</style>');
  for (const item of o.jsonLd ?? []) {
    // "</" inside a script would end it early; JSON allows escaping the slash.
    head.push(`<script type="application/ld+json">${JSON.stringify(item).replace(/<\//g, '<\\/')}</script>`);
  }
  head.push('<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag("js",new Date());</script>');
  if (o.extraHead !== undefined) head.push(o.extraHead);

  const nav = (o.links ?? []).map((href, i) => `<li class="nav-item"><a class="nav-link" href="${escapeHtml(href)}">Link${i + 1}</a></li>`);
  const body: string[] = [
    `<header class="site-header"><nav class="nav" aria-label="Main"><ul class="nav-list">${nav.join('')}</ul></nav></header>`,
    '<main id="content" class="container">',
    ...(o.h1 ?? []).map((h) => `<h1 class="page-title">${escapeHtml(h)}</h1>`),
    paragraphs(o.words ?? 0),
    '</main>',
  ];
  if (o.extraBody !== undefined) body.push(o.extraBody);
  body.push('<footer class="site-footer"><script src="/assets/app.js" defer></script></footer>');
  return `<!DOCTYPE html>\n<html lang="${escapeHtml(o.lang ?? 'en')}">\n<head>\n${head.join('\n')}\n</head>\n<body>\n${body.join('\n')}\n</body>\n</html>\n`;
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function sitemapXml(urls: string[]): string {
  const entries = urls.map((u) => `  <url><loc>${escapeXml(u)}</loc><changefreq>weekly</changefreq></url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join('\n')}\n</urlset>\n`;
}

export function sitemapIndexXml(urls: string[]): string {
  const entries = urls.map((u) => `  <sitemap><loc>${escapeXml(u)}</loc></sitemap>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join('\n')}\n</sitemapindex>\n`;
}

export function gzip(data: Buffer | string): Buffer {
  return zlib.gzipSync(data);
}

export interface GeneratedSite {
  /** Paths of every page: "/" then "/p/1" ... "/p/<pages-1>". */
  paths: string[];
  /** Absolute URLs of the same pages. */
  urls: string[];
  sitemapUrl: string;
}

export interface GenerateSiteOptions {
  pages: number;
  /** Links per page (at least 3: two children and home). Default 10. */
  linksPerPage?: number;
  /** Body words per page. Default 200. */
  words?: number;
}

/**
 * A linked site of `pages` pages, all reachable from "/" by links (page i links to 2i+1 and 2i+2,
 * to home, and to pseudo-random others), listed in /sitemap.xml, which /robots.txt names.
 * Bodies are rendered once into memory, so serving costs only the write.
 */
export function generateSite(site: FixtureSite, opts: GenerateSiteOptions): GeneratedSite {
  const n = opts.pages;
  const linksPerPage = Math.max(3, opts.linksPerPage ?? 10);
  const words = opts.words ?? 200;
  const paths = Array.from({ length: n }, (_, i) => (i === 0 ? '/' : `/p/${i}`));
  const rand = prng(n);
  for (let i = 0; i < n; i++) {
    const links = new Set<string>(['/']);
    for (const child of [2 * i + 1, 2 * i + 2]) if (child < n) links.add(paths[child]);
    while (links.size < Math.min(linksPerPage, n)) links.add(paths[Math.floor(rand() * n)]);
    site.set(
      paths[i],
      htmlPage({
        title: `Page ${i}`,
        description: `Generated page number ${i}`,
        canonical: site.url(paths[i]),
        h1: [`Page ${i}`],
        links: [...links],
        words,
        jsonLd: [{ '@context': 'https://schema.org', '@type': 'WebPage', name: `Page ${i}` }],
      }),
    );
  }
  const urls = paths.map((p) => site.url(p));
  site.set('/sitemap.xml', { body: sitemapXml(urls) });
  site.set('/robots.txt', { body: `User-agent: *\nDisallow: /private/\n\nSitemap: ${site.url('/sitemap.xml')}\n` });
  return { paths, urls, sitemapUrl: site.url('/sitemap.xml') };
}
