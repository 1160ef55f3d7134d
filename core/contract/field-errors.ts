import type { ErrorObject } from 'ajv/dist/2020.js';
import type { FieldError } from '../platform/index.ts';

// ajv's errors as the API's field errors (`{in, path, message}`, docs/api.md#problem-documents), keeping the JSON pointer of
// every offending field rather than flattening them into one string.

/** One RFC 6901 reference token (ajv escapes instancePath itself, but not property names in params). */
const token = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');

function pointerOf(e: ErrorObject): string {
  const p = e.params as Record<string, string>;
  // A map key that fails `propertyNames`: the pointer names the key itself.
  if (e.propertyName !== undefined) return `${e.instancePath}/${token(e.propertyName)}`;
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
    case 'pattern': {
      // The rule in words, as the document states it next to the pattern (spec/: x-pattern-rule).
      const rule = (e.parentSchema as { 'x-pattern-rule'?: unknown } | undefined)?.['x-pattern-rule'];
      const message = typeof rule === 'string' ? rule : `must match the pattern ${(e.params as { pattern: string }).pattern}`;
      return e.propertyName !== undefined ? `name ${message}` : message;
    }
    case 'not':
      // Sealed models reject unknown properties with `unevaluatedProperties: { not: {} }`,
      // which ajv reports as a failed `not` at the property itself.
      return /\/(unevaluated|additional)Properties\/not$/.test(e.schemaPath) ? 'is not allowed' : (e.message ?? 'is invalid');
    default:
      return e.message ?? 'is invalid';
  }
}

/**
 * ajv's errors as the API's field errors (docs/api.md#problem-documents), keeping the pointer per field. `anyOf` branches
 * (e.g. string-or-null) are folded into one message per field instead of one per branch.
 */
export function toFieldErrors(where: FieldError['in'], errors: ErrorObject[] | null | undefined): FieldError[] {
  const byPath = new Map<string, { messages: string[]; types: string[] }>();
  for (const e of errors ?? []) {
    // A failed `propertyNames` is reported twice by ajv: once for the name's own keyword, kept.
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'allOf' || e.keyword === 'if' || e.keyword === 'propertyNames') continue;
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

/** "body /name must be ... (and 2 more)": a problem's `detail` for a list of field errors. */
export function describeFieldErrors(errors: FieldError[]): string {
  const first = errors[0];
  const detail = first ? `${first.in} ${first.path || '(root)'} ${first.message}` : 'The request is invalid.';
  return errors.length > 1 ? `${detail} (and ${errors.length - 1} more)` : detail;
}
