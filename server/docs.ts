import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Context } from 'koa';

const require = createRequire(import.meta.url);
// swagger-ui-dist ships every asset the reference needs, so /docs works with no internet.
const assetDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>sitehealth API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
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

/** Serves /docs, its init script and the vendored assets; returns false for other paths. */
export function serveDocs(ctx: Context): boolean {
  if (ctx.path === '/docs' || ctx.path === '/docs/') {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
    return true;
  }
  if (ctx.path === '/docs/init.js') {
    ctx.type = 'application/javascript; charset=utf-8';
    ctx.body = INIT;
    return true;
  }
  const m = /^\/docs\/assets\/([a-z0-9.-]+)$/.exec(ctx.path);
  if (m && ASSETS[m[1]]) {
    ctx.type = ASSETS[m[1]];
    ctx.set('cache-control', 'public, max-age=86400');
    ctx.body = fs.createReadStream(path.join(assetDir, m[1]));
    return true;
  }
  return false;
}
