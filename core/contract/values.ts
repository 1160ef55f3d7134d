import type { FieldError } from '../platform/index.ts';
import { loadDocument, type JsonSchema, type Schemas } from './document.ts';
import { anchored, createAjv, type ValidateFunction } from './ajv.ts';
import { toFieldErrors } from './field-errors.ts';

// Enums and limits read from the document, typed from the generated types, so a value the
// TypeSpec declares is never retyped here: change the spec, regenerate, and every process
// follows.

type EnumSchemaName = { [K in keyof Schemas]: Schemas[K] extends string ? K : never }[keyof Schemas];

function schema(name: string): JsonSchema {
  const s = loadDocument().components.schemas[name];
  if (!s) throw new Error(`the document has no schema ${name}`);
  return s;
}

/** The values of a string enum schema, e.g. `enumValues('WorkspaceType')`. */
export function enumValues<N extends EnumSchemaName>(name: N): ReadonlyArray<Schemas[N]> {
  const values = schema(name).enum;
  if (!Array.isArray(values)) throw new Error(`schema ${name} is not an enum`);
  return values as Array<Schemas[N]>;
}

/**
 * Field errors of `value` against a named schema of the document (empty when it conforms), for
 * input that does not arrive through the HTTP layer, such as the operator CLI's flags.
 */
export function schemaErrors(name: keyof Schemas, value: unknown): FieldError[] {
  let validate = validators.get(name);
  if (!validate) {
    validate = createAjv({ useDefaults: true }).compile(anchored({ $ref: `#/components/schemas/${name}` }));
    validators.set(name, validate);
  }
  return validate(value) ? [] : toFieldErrors('body', validate.errors);
}

const validators = new Map<string, ValidateFunction>();
