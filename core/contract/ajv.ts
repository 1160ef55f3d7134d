import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isUuid } from '../platform/index.ts';
import { loadDocument, type JsonSchema, type OpenApiDocument } from './document.ts';

// The one ajv set-up: the server validates requests with it and the tests validate every
// response with it, so both read the document with the same formats and the same quirks.

// ajv-formats ships CommonJS; under ESM the callable is the default export's default.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

const DOC_ID = 'openapi.json';

export interface AjvOptions {
  /** Query and path values arrive as strings: coerce them as the schema says (limit=5 -> 5). */
  coerceTypes?: boolean;
  /** Fill in schema defaults (request validation). */
  useDefaults?: boolean;
}

export function createAjv(opts: AjvOptions = {}, doc: OpenApiDocument = loadDocument()): Ajv2020 {
  // strict off: the document carries OpenAPI-only keywords (example, x-*) that are not JSON Schema.
  const ajv = new Ajv2020({ strict: false, allErrors: true, useDefaults: opts.useDefaults ?? false, coerceTypes: opts.coerceTypes ?? false });
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
  ajv.addSchema({ $id: DOC_ID, components: doc.components }, DOC_ID);
  return ajv;
}

/** Rewrites local `#/components/...` refs so a schema compiled on its own resolves against the document. */
export function anchored(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, `"${DOC_ID}#/components/`)) as JsonSchema;
}

export type { ValidateFunction };
