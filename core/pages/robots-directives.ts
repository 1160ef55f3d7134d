// Indexing directives from <meta name="robots"> / <meta name="googlebot"> and X-Robots-Tag.
//
// We report what Google would apply, because the findings built on them are about search
// visibility: directives without a user agent, for "googlebot" and for "*" apply; directives
// scoped to another crawler ("bingbot: noindex") are left out.
//
// Output form: lower case, trimmed, unique, in order of first appearance. Directives that take
// a value are written "name:value" without spaces ("max-snippet:50"). `none` is expanded to
// `noindex` and `nofollow` (what it means), so consumers only test for those two.

/** Directives whose form is "name: value"; any other "x: ..." prefix names a user agent. */
const VALUE_DIRECTIVES = new Set(['max-snippet', 'max-image-preview', 'max-video-preview', 'unavailable_after']);
const APPLYING_AGENTS = new Set(['googlebot', '*']);
const AGENT_TOKEN = /^[a-z0-9._*-]+$/;
const DIRECTIVE_WORD = /^[a-z][a-z0-9_-]*$/;

export class RobotsDirectives {
  readonly list: string[] = [];
  private readonly seen = new Set<string>();

  private push(directive: string): void {
    if (directive === 'none') {
      this.push('noindex');
      this.push('nofollow');
      return;
    }
    if (this.seen.has(directive)) return;
    this.seen.add(directive);
    this.list.push(directive);
  }

  /** The content of a meta robots/googlebot tag (already selected for Google by its name). */
  addMeta(content: string): void {
    this.addValue(content);
  }

  /**
   * One X-Robots-Tag header value. A "useragent:" prefix scopes the directives after it, up to
   * the next prefix or the end of this value (Google's reading of "googlebot: noindex, nofollow").
   * Headers folded into one comma-joined string cannot be told apart, so a prefix in an earlier
   * header then also scopes the later ones: pass repeated headers as an array to avoid that.
   */
  addHeader(value: string): void {
    this.addValue(value);
  }

  private addValue(value: string): void {
    let agent: string | null = null;
    for (const raw of value.toLowerCase().split(',')) {
      let token = raw.trim();
      if (token === '') continue;
      const colon = token.indexOf(':');
      if (colon > 0) {
        const prefix = token.slice(0, colon).trim();
        const rest = token.slice(colon + 1).trim();
        if (!VALUE_DIRECTIVES.has(prefix)) {
          // Not a user agent either (e.g. the time in a comma-split unavailable_after date): skip.
          if (!AGENT_TOKEN.test(prefix)) continue;
          agent = prefix;
          token = rest;
          if (token === '') continue;
        }
      }
      if (agent !== null && !APPLYING_AGENTS.has(agent)) continue;
      this.addToken(token);
    }
  }

  private addToken(token: string): void {
    const colon = token.indexOf(':');
    if (colon > 0) {
      const name = token.slice(0, colon).trim();
      if (!VALUE_DIRECTIVES.has(name)) return;
      const value = token.slice(colon + 1).trim().replace(/\s+/g, ' ');
      this.push(`${name}:${value}`);
      return;
    }
    // Some sites separate with spaces ("noindex nofollow"); Google reads those too.
    for (const word of token.split(/\s+/)) {
      if (DIRECTIVE_WORD.test(word)) this.push(word);
    }
  }
}

/** The values of a header whether given once, repeated (array) or absent. */
export function headerValues(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
