// URL normalization for the crawl frontier: two links that fetch the same resource should
// produce the same string, so the frontier (a Set of strings) fetches it once.
//
// WHATWG URL parsing already lower-cases the scheme and host, drops the default port, resolves
// dot segments and gives an empty path "/". On top of that we drop the fragment (never sent to
// the server) and upper-case percent-escapes (%7e and %7E are the same octet, RFC 3986 6.2.2.1).
// The query is kept as written: its order and encoding can matter to the server.

const PERCENT_ESCAPE = /%[0-9a-f]{2}/gi;

function parse(input: string | URL, base?: string | URL): URL | null {
  if (input instanceof URL) return new URL(input.href);
  try {
    return new URL(input, base);
  } catch {
    return null;
  }
}

/**
 * The normalized form of an http(s) URL (relative inputs resolved against `base`), or null when
 * it is not a valid http(s) URL. URLs carrying credentials (user:pass@) are refused too: the
 * crawler must never send them, and they would otherwise count as same-origin.
 */
export function normalizeUrl(input: string | URL, base?: string | URL): string | null {
  const url = parse(input, base);
  return url === null ? null : normalizeParsedUrl(url);
}

/** normalizeUrl for a URL object the caller owns (it is modified): saves a parse in hot loops. */
export function normalizeParsedUrl(url: URL): string | null {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username !== '' || url.password !== '') return null;
  url.hash = '';
  const href = url.href;
  return href.includes('%') ? href.replace(PERCENT_ESCAPE, upper) : href;
}

function upper(escape: string): string {
  return escape.toUpperCase();
}

/** The origin (scheme://host[:port]) of an http(s) URL, or null when it is not one. */
export function originOf(input: string | URL): string | null {
  const url = parse(input);
  if (url === null) return null;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return url.origin;
}

/**
 * Same scheme, host and port (after normalization, so HTTP://Example.com:80 and
 * http://example.com are the same origin). http and https are different origins, and so are
 * www.example.com and example.com: the crawler stays on exactly the origin it started from.
 */
export function isSameOrigin(a: string | URL, b: string | URL): boolean {
  const oa = originOf(a);
  return oa !== null && oa === originOf(b);
}
