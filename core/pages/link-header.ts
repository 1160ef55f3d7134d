// HTTP Link header (RFC 8288): `<url>; rel="canonical", <url2>; rel="alternate"; hreflang="de"`.
// Hand-written because the values we need are few and a URL may itself contain ',' or ';'
// (inside the angle brackets), which rules out naive splitting.

export interface LinkValue {
  target: string;
  /** Lower-cased rel tokens. */
  rel: string[];
  hreflang: string | null;
}

export function parseLinkHeader(value: string): LinkValue[] {
  const out: LinkValue[] = [];
  let i = 0;
  const n = value.length;
  while (i < n) {
    const open = value.indexOf('<', i);
    if (open === -1) break;
    const close = value.indexOf('>', open + 1);
    if (close === -1) break;
    const target = value.slice(open + 1, close).trim();
    i = close + 1;
    let rel: string[] = [];
    let hreflang: string | null = null;
    // Parameters up to the next ',' outside quotes.
    while (i < n && value[i] !== ',') {
      if (value[i] !== ';') {
        i++;
        continue;
      }
      i++;
      const eq = findParamEnd(value, i);
      const name = value.slice(i, eq.nameEnd).trim().toLowerCase();
      const paramValue = eq.value;
      i = eq.next;
      if (name === 'rel' && paramValue !== null) {
        rel = paramValue.toLowerCase().split(/\s+/).filter((t) => t !== '');
      } else if (name === 'hreflang' && paramValue !== null) {
        hreflang = paramValue.trim();
      }
    }
    out.push({ target, rel, hreflang });
    if (i < n) i++;
  }
  return out;
}

/** Reads `name[=value]` starting at `from`; value may be a quoted string with \-escapes. */
function findParamEnd(s: string, from: number): { nameEnd: number; value: string | null; next: number } {
  let i = from;
  while (i < s.length && s[i] !== '=' && s[i] !== ';' && s[i] !== ',') i++;
  const nameEnd = i;
  if (s[i] !== '=') return { nameEnd, value: null, next: i };
  i++;
  while (i < s.length && (s[i] === ' ' || s[i] === '\t')) i++;
  if (s[i] === '"') {
    let v = '';
    i++;
    while (i < s.length && s[i] !== '"') {
      if (s[i] === '\\' && i + 1 < s.length) i++;
      v += s[i];
      i++;
    }
    if (i < s.length) i++;
    return { nameEnd, value: v, next: i };
  }
  const start = i;
  while (i < s.length && s[i] !== ';' && s[i] !== ',') i++;
  return { nameEnd, value: s.slice(start, i).trim(), next: i };
}
