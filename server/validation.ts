import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FieldError } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import type { JsonSchema, OpenApiDocument, Operation } from './openapi.ts';

// ajv-formats ships CommonJS; under ESM the callable is the default export's default.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

const DOC_ID = 'openapi.json';

function newAjv(doc: OpenApiDocument, coerce: boolean): Ajv2020 {
  // strict off: the document carries OpenAPI-only keywords (example, x-*) that are not JSON Schema.
  const ajv = new Ajv2020({ strict: false, allErrors: true, useDefaults: true, coerceTypes: coerce });
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

/** Rewrites local `#/components/...` refs so schemas compiled on their own resolve against the document. */
function anchor(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, `"${DOC_ID}#/components/`)) as JsonSchema;
}

export interface OperationValidators {
  path: ValidateFunction | null;
  query: ValidateFunction;
  body: ValidateFunction | null;
  bodyRequired: boolean;
}

/** Compiles every operation's validators once, at start-up. */
export function compileValidators(doc: OpenApiDocument, ops: Operation[]): Map<string, OperationValidators> {
  const strict = newAjv(doc, false);
  // Query and path values arrive as strings: coerce them as the schema says (limit=5 -> 5).
  const coercing = newAjv(doc, true);
  const out = new Map<string, OperationValidators>();
  for (const op of ops) {
    const params = op.def.parameters ?? [];
    const objectOf = (where: 'query' | 'path'): JsonSchema | null => {
      const ps = params.filter((p) => p.in === where);
      if (where === 'path' && ps.length === 0) return null;
      return {
        type: 'object',
        properties: Object.fromEntries(ps.map((p) => [p.name, anchor(p.schema)])),
        required: ps.filter((p) => p.required).map((p) => p.name),
        // Unknown query parameters are mistakes worth telling the caller about (as Stripe does).
        additionalProperties: false,
      };
    };
    const pathSchema = objectOf('path');
    const bodySchema = op.def.requestBody?.content['application/json']?.schema;
    out.set(op.id, {
      path: pathSchema ? coercing.compile(pathSchema) : null,
      query: coercing.compile(objectOf('query')!),
      body: bodySchema ? strict.compile(anchor(bodySchema)) : null,
      bodyRequired: op.def.requestBody?.required ?? false,
    });
  }
  return out;
}

/** One RFC 6901 reference token (ajv escapes instancePath itself, but not property names in params). */
const token = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');

function pointerOf(e: ErrorObject): string {
  const p = e.params as Record<string, string>;
  if (e.keyword === 'required') return `${e.instancePath}/${token(p.missingProperty)}`;
  if (e.keyword === 'additionalProperties') return `${e.instancePath}/${token(p.additionalProperty)}`;
  if (e.keyword === 'unevaluatedProperties') return `${e.instancePath}/${token(p.unevaluatedProperty)}`;
  return e.instancePath;
}

function messageOf(e: ErrorObject): string {
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return 'is not allowed';
    case 'enum':
      return `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'pattern':
      return `must match the pattern ${(e.params as { pattern: string }).pattern}`;
    case 'not':
      // Sealed models reject unknown properties with `unevaluatedProperties: { not: {} }`,
      // which ajv reports as a failed `not` at the property itself.
      return /\/(unevaluated|additional)Properties\/not$/.test(e.schemaPath) ? 'is not allowed' : (e.message ?? 'is invalid');
    default:
      return e.message ?? 'is invalid';
  }
}

/**
 * ajv's errors as CONTRACT field errors, keeping the pointer per field. `anyOf` branches
 * (e.g. string-or-null) are folded into one message per field instead of one per branch.
 */
export function toFieldErrors(where: FieldError['in'], errors: ErrorObject[] | null | undefined): FieldError[] {
  const byPath = new Map<string, { messages: string[]; types: string[] }>();
  for (const e of errors ?? []) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'allOf' || e.keyword === 'if') continue;
    const key = pointerOf(e);
    const entry = byPath.get(key) ?? { messages: [], types: [] };
    if (e.keyword === 'type') entry.types.push(String((e.params as { type: string }).type));
    else if (!entry.messages.includes(messageOf(e))) entry.messages.push(messageOf(e));
    byPath.set(key, entry);
  }
  const out: FieldError[] = [];
  for (const [p, { messages, types }] of byPath) {
    const parts = [...messages];
    if (types.length) parts.unshift(`must be ${[...new Set(types)].join(' or ')}`);
    out.push({ in: where, path: p, message: parts.join('; ') });
  }
  return out;
}
