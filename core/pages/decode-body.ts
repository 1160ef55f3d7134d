// Bytes to text for the HTML analyzer, and whether a response is HTML at all.
//
// Encoding, in the order the HTML spec uses: byte-order mark, then the Content-Type charset,
// then a <meta charset> / http-equiv declaration in the first 1024 bytes, else UTF-8 (the
// spec's last resort is a locale guess; UTF-8 is the right guess for today's web). Unknown
// labels fall back to UTF-8 rather than failing the page.

import { TextDecoder } from 'node:util';

const PRESCAN_BYTES = 1024;
const SNIFF_BYTES = 512;
const META_CHARSET = /<meta\b[^>]*?charset\s*=\s*["']?\s*([a-z0-9_.:-]+)/i;

export function mediaType(contentType: string | undefined): string | null {
  if (contentType === undefined) return null;
  const semi = contentType.indexOf(';');
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return type === '' ? null : type;
}

export function charsetOf(contentType: string | undefined): string | null {
  if (contentType === undefined) return null;
  const m = /;\s*charset\s*=\s*["']?([^"';\s]+)/i.exec(contentType);
  return m ? m[1].toLowerCase() : null;
}

/**
 * Is this response HTML? With a Content-Type, only text/html and application/xhtml+xml are
 * (a text/plain body that happens to contain tags is shown as text by browsers, so it is not
 * a page). Without one, the WHATWG MIME-sniffing rule for HTML decides: after leading
 * whitespace, one of a list of tags (`<!DOCTYPE HTML`, `<html`, `<head`, `<body`, `<p`, ...)
 * followed by a space or '>', or a comment.
 */
export function isHtmlResponse(body: Buffer | string, contentType: string | undefined): boolean {
  const type = mediaType(contentType);
  if (type !== null) return type === 'text/html' || type === 'application/xhtml+xml';
  const head = typeof body === 'string' ? body.slice(0, SNIFF_BYTES) : body.subarray(0, SNIFF_BYTES).toString('latin1');
  return sniffsAsHtml(head);
}

const SNIFF_TAGS = ['!doctype html', 'html', 'head', 'script', 'iframe', 'h1', 'div', 'font', 'table', 'a', 'style', 'title', 'b', 'body', 'br', 'p'];

function sniffsAsHtml(text: string): boolean {
  let i = 0;
  if (text.startsWith('\ufeff')) i = 1;
  else if (text.startsWith('\xef\xbb\xbf')) i = 3;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r' || text[i] === '\f')) i++;
  if (text[i] !== '<') return false;
  if (text.startsWith('<!--', i)) return true;
  const rest = text.slice(i + 1, i + 16).toLowerCase();
  for (const tag of SNIFF_TAGS) {
    if (!rest.startsWith(tag)) continue;
    const after = rest[tag.length];
    if (after === ' ' || after === '>') return true;
  }
  return false;
}

export function decodeHtml(body: Buffer | string, contentType: string | undefined): string {
  if (typeof body === 'string') return body;
  const bom = bomEncoding(body);
  if (bom !== null) return decode(body.subarray(bom.length), bom.encoding);
  const declared = charsetOf(contentType) ?? prescanCharset(body);
  return decode(body, declared ?? 'utf-8');
}

function bomEncoding(b: Buffer): { encoding: string; length: number } | null {
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  return null;
}

function prescanCharset(b: Buffer): string | null {
  const m = META_CHARSET.exec(b.subarray(0, PRESCAN_BYTES).toString('latin1'));
  if (m === null) return null;
  const label = m[1].toLowerCase();
  // The spec: a UTF-16 label found in ASCII-compatible bytes cannot be right; use UTF-8.
  return label.startsWith('utf-16') ? 'utf-8' : label;
}

// Labels the Encoding Standard maps to windows-1252 (ISO-8859-1 and ASCII included: browsers
// decode those as windows-1252 too).
const WINDOWS_1252_LABELS = new Set([
  'ansi_x3.4-1968', 'ascii', 'cp1252', 'cp819', 'csisolatin1', 'ibm819', 'iso-8859-1', 'iso-ir-100', 'iso8859-1',
  'iso88591', 'iso_8859-1', 'iso_8859-1:1987', 'l1', 'latin1', 'us-ascii', 'windows-1252', 'x-cp1252',
]);

// Bytes 0x80-0x9F in windows-1252 (where ISO-8859-1 has control characters); 0 = undefined,
// kept as the C1 control like browsers do.
const CP1252_HIGH = [
  0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017d, 0,
  0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0, 0x017e, 0x0178,
];

/**
 * windows-1252 by hand: Node 20's TextDecoder decodes it as ISO-8859-1 (wrong for 0x80-0x9F,
 * e.g. the euro sign and curly quotes that are common on such pages).
 */
function decodeWindows1252(b: Buffer): string {
  const text = b.toString('latin1');
  return /[\x80-\x9f]/.test(text) ? text.replace(/[\x80-\x9f]/g, (c) => {
    const cp = CP1252_HIGH[c.charCodeAt(0) - 0x80];
    return cp === 0 ? c : String.fromCharCode(cp);
  }) : text;
}

function decode(b: Buffer, label: string): string {
  // Buffer's own UTF-8 decoder is the fastest path and the common case.
  if (label === 'utf-8' || label === 'utf8' || label === 'unicode-1-1-utf-8') return b.toString('utf8');
  if (WINDOWS_1252_LABELS.has(label)) return decodeWindows1252(b);
  try {
    return new TextDecoder(label).decode(b);
  } catch {
    return b.toString('utf8');
  }
}
