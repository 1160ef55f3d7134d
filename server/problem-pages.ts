import type { Context } from 'koa';
import { problemTypes, type ProblemType } from '../core/contract/index.ts';
import { NotFound } from '../core/platform/index.ts';
import { etag, serveVersioned } from './docs.ts';

// The pages that problem documents' `type` points to (docs/api.md#problem-documents): one per code
// of the document's ProblemCode (spec/common/errors.tsp), served like /docs, without a key.

export const PROBLEM_PAGE_PREFIX = '/problems/';

/** The route label of every /problems/<code> request, for metrics and the log. */
export const PROBLEM_PAGE_ROUTE = '/problems/{code}';

/** No script at all; only the page's own inline style. */
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The spec's prose marks names as `code` spans; everything else is plain text. */
const prose = (s: string) => escapeHtml(s.replace(/\s*\n\s*/g, ' ')).replace(/`([^`]+)`/g, '<code>$1</code>');

function html(t: ProblemType): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t.code}: ${t.status} ${escapeHtml(t.title)} · sitehealth API</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}code{font-size:.95em;background:#f2f4f6;padding:0 .2em;border-radius:3px}dt{font-weight:600;margin-top:1rem}</style>
</head>
<body>
<h1><code>${t.code}</code></h1>
<p>A problem type of the sitehealth API, answered with HTTP status <strong>${t.status}</strong> and the title “${escapeHtml(t.title)}”.</p>
<dl>
<dt>What it means</dt>
<dd>${prose(t.description)}</dd>
<dt>What to do next</dt>
<dd>${prose(t.nextStep)}</dd>
</dl>
<p>Every error of the API is a problem document (<code>application/problem+json</code>) whose <code>type</code> is <code>/problems/&lt;code&gt;</code>; programs should branch on its <code>code</code>. The <a href="/docs">API reference</a> lists the codes each operation answers.</p>
</body>
</html>
`;
}

interface Page {
  html: string;
  htmlTag: string;
  json: string;
  jsonTag: string;
}

/**
 * The handler of /problems/<code> (a path under PROBLEM_PAGE_PREFIX), with both variants of every
 * page made once from the document: HTML, or JSON to a client that prefers `application/json`. A
 * code the document does not declare is the usual 404 problem.
 */
export function problemPages(): (ctx: Context) => void {
  const pages = new Map<string, Page>(
    [...problemTypes().values()].map((t) => {
      const page = html(t);
      const json = JSON.stringify({ type: `${PROBLEM_PAGE_PREFIX}${t.code}`, code: t.code, status: t.status, title: t.title, description: t.description, nextStep: t.nextStep });
      return [t.code, { html: page, htmlTag: etag(page), json, jsonTag: etag(json) }];
    }),
  );
  return (ctx) => {
    const page = pages.get(ctx.path.slice(PROBLEM_PAGE_PREFIX.length));
    if (!page) throw new NotFound('There is no problem type with that code; GET /docs lists the codes of every operation.');
    ctx.vary('accept');
    ctx.set(SECURITY_HEADERS);
    if (ctx.accepts('html', 'json') === 'json') serveVersioned(ctx, 'application/json; charset=utf-8', page.json, page.jsonTag);
    else serveVersioned(ctx, 'text/html; charset=utf-8', page.html, page.htmlTag);
  };
}
