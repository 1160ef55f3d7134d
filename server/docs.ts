import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Context } from 'koa';

const require = createRequire(import.meta.url);
// swagger-ui-dist ships every asset the reference needs, so /docs works with no internet.
const assetDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const VERSION = (require('swagger-ui-dist/package.json') as { version: string }).version;
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};
// Versioned URLs: an asset never changes under its URL, so browsers may keep it for a year.
const ASSET_PATH = `/docs/assets/${VERSION}/`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>sitehealth API reference</title>
<link rel="stylesheet" href="${ASSET_PATH}swagger-ui.css">
<link rel="icon" type="image/png" href="${ASSET_PATH}favicon-32x32.png">
</head>
<body>
<div id="reference"></div>
<script src="${ASSET_PATH}swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 1,
  persistAuthorization: false,
});
`;

/**
 * The reference runs only our own scripts (no inline script, no eval), loads only from this
 * origin, and may not be framed. Swagger UI sets style attributes on its elements, hence
 * 'unsafe-inline' for styles only.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

const etag = (text: string) => `"${crypto.createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;

/**
 * A document that changes only with a release: served with an ETag and `no-cache`, so browsers
 * revalidate and get 304 until it changes.
 */
export function serveVersioned(ctx: Context, type: string, text: string, tag: string): void {
  ctx.set('cache-control', 'no-cache');
  ctx.set('etag', tag);
  if (ctx.get('if-none-match') === tag) {
    ctx.status = 304;
    return;
  }
  ctx.type = type;
  ctx.body = text;
}

const PAGE_TAG = etag(PAGE);
const INIT_TAG = etag(INIT);

/** Serves /docs, its init script and the vendored assets; returns false for other paths. */
export function serveDocs(ctx: Context): boolean {
  const isPage = ctx.path === '/docs' || ctx.path === '/docs/';
  const isInit = ctx.path === '/docs/init.js';
  const asset = ctx.path.startsWith(ASSET_PATH) ? ctx.path.slice(ASSET_PATH.length) : null;
  if (!isPage && !isInit && !(asset && ASSETS[asset])) return false;
  ctx.set(SECURITY_HEADERS);
  if (isPage) serveVersioned(ctx, 'text/html; charset=utf-8', PAGE, PAGE_TAG);
  else if (isInit) serveVersioned(ctx, 'application/javascript; charset=utf-8', INIT, INIT_TAG);
  else {
    ctx.type = ASSETS[asset!];
    ctx.set('cache-control', 'public, max-age=31536000, immutable');
    ctx.body = fs.createReadStream(path.join(assetDir, asset!));
  }
  return true;
}

export { etag };
