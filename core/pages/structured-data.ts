// Structured-data type names from JSON-LD blocks and microdata itemtype attributes.
//
// JSON-LD: every @type anywhere in the block counts, not only top-level items: top-level
// objects, arrays of them, @graph members and nested objects (an Article's author Person, a
// Product's Offer, a WebPage's BreadcrumbList). Findings such as "has breadcrumbs" or "has an
// offer" need the nested ones, and Google reads them as well. Not walked: @context (its
// "@type": "@id" entries are term definitions, not types). "@id"-style keyword values are
// skipped. The walk is bounded (depth and node count) so a hostile block cannot stall it.
//
// Names: schema.org IRIs (http or https, with or without www, or the "schema:" prefix) become
// the bare type name; other vocabularies keep their full IRI.
//
// Not read: RDFa (typeof/vocab), which is rare next to JSON-LD and microdata.

const MAX_DEPTH = 64;
const MAX_NODES = 100_000;
const MAX_TYPE_LENGTH = 256;
const SCHEMA_ORG = /^(?:https?:\/\/(?:www\.)?schema\.org\/|schema:)/i;

export function typeName(raw: string): string | null {
  const t = raw.trim();
  if (t === '' || t.length > MAX_TYPE_LENGTH || t.startsWith('@')) return null;
  const name = t.replace(SCHEMA_ORG, '');
  return name === '' ? null : name;
}

/**
 * Adds the types of one JSON-LD block to `into`. Returns false when the block is not JSON
 * (ignored, never thrown). Tolerates what publishers commonly get wrong and Google accepts:
 * an HTML comment or CDATA wrapper, and raw control characters (newlines) inside strings.
 */
export function addJsonLdTypes(text: string, into: Set<string>): boolean {
  const data = parseLenient(text);
  if (data === undefined) return false;
  walk(data, into);
  return true;
}

function parseLenient(text: string): unknown {
  let body = text.trim();
  if (body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    // fall through to the repairs below
  }
  body = body
    .replace(/^(?:<!--|\/\/\s*<!\[CDATA\[|<!\[CDATA\[)/, '')
    .replace(/(?:-->|\/\/\s*\]\]>|\]\]>)$/, '')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f]/g, ' ');
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

function walk(root: unknown, into: Set<string>): void {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 0 }];
  let nodes = 0;
  while (stack.length > 0 && nodes < MAX_NODES) {
    const { value, depth } = stack.pop()!;
    nodes++;
    if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], depth: depth + 1 });
      continue;
    }
    const obj = value as Record<string, unknown>;
    addTypeValue(obj['@type'], into);
    for (const key of Object.keys(obj)) {
      if (key === '@type' || key === '@context') continue;
      const child = obj[key];
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1 });
    }
  }
}

function addTypeValue(t: unknown, into: Set<string>): void {
  if (typeof t === 'string') {
    const name = typeName(t);
    if (name !== null) into.add(name);
  } else if (Array.isArray(t)) {
    for (const item of t) {
      if (typeof item !== 'string') continue;
      const name = typeName(item);
      if (name !== null) into.add(name);
    }
  }
}

/** A microdata itemtype attribute: a space-separated list of type IRIs. */
export function addItemtypes(value: string, into: Set<string>): void {
  for (const iri of value.split(/\s+/)) {
    if (iri === '') continue;
    const name = typeName(iri);
    if (name !== null) into.add(name);
  }
}
