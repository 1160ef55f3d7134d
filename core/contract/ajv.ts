import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isUuid } from '../platform/index.ts';
import { loadDocument, type JsonSchema, type OpenApiDocument } from './document.ts';

// The one ajv set-up: the server validates requests with it and the tests validate every
// response with it, so both read the document with the same formats and the same quirks.

// ajv-formats ships CommonJS; under ESM the callable is the default export's default.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

const DOC_ID = 'openapi.json';

/**
 * Text the service can store and give back unchanged on both engines: no NUL (PostgreSQL refuses
 * it in text, SQLite would keep it and LIKE would match it everywhere) and no unpaired UTF-16
 * surrogate (not encodable as UTF-8: PostgreSQL would store U+FFFD). Every string of the document
 * gets this rule (see `withTextRule`), so no handler checks it by hand.
 */
export const TEXT_KEYWORD = 'x-text';
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isSafeText(value: string): boolean {
  return !value.includes('\0') && !LONE_SURROGATE.test(value);
}

/** A copy of `schema` with the text rule on every string it declares, however deep. */
export function withTextRule<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(withTextRule) as T;
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema as Record<string, unknown>)) out[k] = k === 'enum' || k === 'const' || k === 'example' || k === 'examples' || k === 'default' ? v : withTextRule(v);
  const type = out.type;
  if (type === 'string' || (Array.isArray(type) && type.includes('string'))) out[TEXT_KEYWORD] = true;
  return out as T;
}

export interface AjvOptions {
  /** Query and path values arrive as strings: coerce them as the schema says (limit=5 -> 5). */
  coerceTypes?: boolean;
  /** Fill in schema defaults (request validation). */
  useDefaults?: boolean;
}

export function createAjv(opts: AjvOptions = {}, doc: OpenApiDocument = loadDocument()): Ajv2020 {
  // strict off: the document carries OpenAPI-only keywords (example, x-*) that are not JSON Schema.
  // verbose: a failed keyword's error carries its schema, where a pattern's rule in words is
  // (`x-pattern-rule`, spec/).
  const ajv = new Ajv2020({ strict: false, allErrors: true, verbose: true, useDefaults: opts.useDefaults ?? false, coerceTypes: opts.coerceTypes ?? false });
  addFormats(ajv);
  // ajv-formats' uuid also takes `urn:uuid:...` and any variant bits; an id that passes
  // validation must be one the domain layer (isUuid) and the database accept, or a malformed
  // id in a query or body field would slip past the 400 into handlers and queries.
  ajv.addFormat('uuid', { type: 'string', validate: isUuid });
  // RFC 3339 allows a leap second (23:59:60Z) that Date cannot represent: reject what we cannot store.
  const dateTime = ajv.formats['date-time'] as { validate: (s: string) => boolean; compare: (a: string, b: string) => number | undefined };
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (s: string) => dateTime.validate(s) && Number.isFinite(Date.parse(s)),
    compare: dateTime.compare,
  });
  ajv.addKeyword({
    keyword: TEXT_KEYWORD,
    type: 'string',
    schemaType: 'boolean',
    errors: true,
    validate: function safeText(this: unknown, _schema: boolean, data: string) {
      if (isSafeText(data)) return true;
      (safeText as unknown as { errors: object[] }).errors = [{ keyword: TEXT_KEYWORD, message: 'must not contain NUL characters or unpaired surrogates', params: {} }];
      return false;
    },
  });
  ajv.addSchema({ $id: DOC_ID, components: withTextRule(doc.components) }, DOC_ID);
  return ajv;
}

/**
 * Rewrites local `#/components/...` refs so a schema compiled on its own resolves against the
 * document, and puts the text rule on its strings.
 */
export function anchored(schema: JsonSchema): JsonSchema {
  return withTextRule(JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, `"${DOC_ID}#/components/`)) as JsonSchema);
}

export type { ValidateFunction };
