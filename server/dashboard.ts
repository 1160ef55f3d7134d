import crypto from 'node:crypto';
import path from 'node:path';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import type { Context, Next } from 'koa';
import { ServiceUnavailable } from '../core/platform/index.ts';
import type { RequestState } from './state.ts';

/**
 * The dashboard (docs/dashboard.md): a Preact app in dashboard/, bundled by esbuild when the
 * process first needs it (no build step, nothing built is committed), held in memory already
 * compressed, and served from this origin only. It talks to the same /v1 operations as any
 * client, with the session cookie and its CSRF token; it never holds an API key.
 */

const ENTRY = path.join(import.meta.dirname, '..', 'dashboard', 'src', 'main.tsx');
const ASSET_PREFIX = '/assets/';

/** The app's own paths; each serves the same page and the app routes in the browser. */
const PAGE_PATHS = new Set(['/', '/sign-in', '/account', '/reset-password', '/verify-email', '/invitations/accept']);
const isPage = (p: string) => PAGE_PATHS.has(p) || /^\/w\/[^/]+(\/[^/]*){0,3}$/.test(p);

/**
 * Only our own files: no inline script, no eval, no third-party origin, never framed. Styles are
 * our stylesheet; the app sets element styles through the DOM, which style-src does not restrict.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

interface Asset {
  type: string;
  raw: Buffer;
  br: Buffer;
  gzip: Buffer;
  /** Strong validator for the page, which is served `no-cache`. */
  tag: string;
}

export interface DashboardBuild {
  assets: Map<string, Asset>;
  page: Asset;
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

async function asset(type: string, raw: Buffer): Promise<Asset> {
  const [br, gz] = await Promise.all([
    brotli(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
    gzip(raw, { level: 9 }),
  ]);
  const tag = `"${crypto.createHash('sha256').update(raw).digest('base64url').slice(0, 27)}"`;
  return { type, raw, br, gzip: gz, tag };
}

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

async function build(): Promise<DashboardBuild> {
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    write: false,
    outdir: ASSET_PREFIX,
    entryNames: '[name]-[hash]',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const assets = new Map<string, Asset>();
  let script = '';
  let style = '';
  for (const file of out.outputFiles) {
    const url = ASSET_PREFIX + path.basename(file.path);
    const ext = path.extname(file.path);
    if (!TYPES[ext]) continue;
    assets.set(url, await asset(TYPES[ext], Buffer.from(file.contents)));
    if (ext === '.js') script = url;
    else style = url;
  }
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>sitehealth</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${style}">
<script type="module" src="${script}"></script>
</head>
<body>
<div id="app"><noscript>The sitehealth dashboard needs JavaScript. The API is documented at <a href="/docs">/docs</a>.</noscript></div>
</body>
</html>
`;
  return { assets, page: await asset('text/html; charset=utf-8', Buffer.from(html)) };
}

let building: Promise<DashboardBuild> | null = null;

/** The bundle, built once per process; a failed build is retried on the next request. */
export function dashboardBuild(): Promise<DashboardBuild> {
  building ??= build().catch((err: unknown) => {
    building = null;
    throw err;
  });
  return building;
}

function send(ctx: Context, a: Asset): void {
  // Already compressed at build time, at the best ratio: koa-compress must not do it again.
  ctx.compress = false;
  ctx.vary('accept-encoding');
  ctx.type = a.type;
  const accepted = ctx.acceptsEncodings('br', 'gzip', 'identity');
  if (accepted === 'br') {
    ctx.set('content-encoding', 'br');
    ctx.body = a.br;
  } else if (accepted === 'gzip') {
    ctx.set('content-encoding', 'gzip');
    ctx.body = a.gzip;
  } else ctx.body = a.raw;
}

/** Serves the dashboard's page and its hashed assets; everything else goes on. */
export function dashboard() {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const state = ctx.state as RequestState;
    const page = isPage(ctx.path);
    if (!page && !ctx.path.startsWith(ASSET_PREFIX)) return next();
    state.route = page ? '/' : '/assets/{file}';
    let built: DashboardBuild;
    try {
      built = await dashboardBuild();
    } catch {
      throw new ServiceUnavailable('The dashboard could not be built on this server; the API is unaffected.');
    }
    if (page) {
      ctx.set(SECURITY_HEADERS);
      ctx.set('cache-control', 'no-cache');
      ctx.set('etag', built.page.tag);
      if (ctx.get('if-none-match') === built.page.tag) {
        ctx.status = 304;
        return;
      }
      send(ctx, built.page);
      return;
    }
    const a = built.assets.get(ctx.path);
    if (!a) return next();
    ctx.set('x-content-type-options', 'nosniff');
    // Hashed names: a file never changes under its URL.
    ctx.set('cache-control', 'public, max-age=31536000, immutable');
    send(ctx, a);
  };
}
