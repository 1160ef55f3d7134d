import { isIP } from 'node:net';

export interface Target {
  url: URL;
  /** Host name or IP address as the socket layer wants it: IPv6 without brackets. */
  host: string;
  /** 4 or 6 for an IP literal, 0 for a name. */
  literal: 0 | 4 | 6;
  https: boolean;
  port: number;
}

export type TargetResult =
  | { ok: true; target: Target }
  | { ok: false; code: 'invalid_url' | 'unsupported_scheme'; reason: string };

/**
 * Parses with the WHATWG parser on purpose: it folds every IPv4 spelling (2130706433,
 * 0177.0.0.1, 0x7f.1, 127.1, full-width digits) into dotted decimal, so the policy only
 * ever sees the address the socket layer would dial.
 */
export function readTarget(input: string | URL, base: URL | undefined, httpsOnly: boolean): TargetResult {
  let url: URL;
  try {
    url = typeof input === 'string' ? new URL(input, base) : new URL(input.href);
  } catch {
    return { ok: false, code: 'invalid_url', reason: `not a valid URL: ${String(input).slice(0, 200)}` };
  }
  const https = url.protocol === 'https:';
  if (!https && url.protocol !== 'http:') {
    return { ok: false, code: 'unsupported_scheme', reason: `the scheme ${url.protocol} is not supported (http and https only)` };
  }
  if (httpsOnly && !https) {
    return { ok: false, code: 'unsupported_scheme', reason: 'only https URLs are allowed here' };
  }
  let host = url.hostname;
  if (host === '') return { ok: false, code: 'invalid_url', reason: 'the URL has no host' };
  if (host.charCodeAt(0) === 91 /* [ */) host = host.slice(1, -1);
  const family = isIP(host);
  return {
    ok: true,
    target: {
      url,
      host,
      literal: family === 4 ? 4 : family === 6 ? 6 : 0,
      https,
      port: url.port === '' ? (https ? 443 : 80) : Number(url.port),
    },
  };
}
