import { FORM } from './body.ts';
import { anchored, createAjv, type JsonSchema, type Operation, type ValidateFunction } from '../core/contract/index.ts';

export interface OperationValidators {
  path: ValidateFunction | null;
  query: ValidateFunction;
  body: ValidateFunction | null;
  bodyRequired: boolean;
  /** The `Idempotency-Key` header's value, when the operation takes one. */
  idempotencyKey: ValidateFunction | null;
}

/** Compiles every operation's validators once, at start-up. */
export function compileValidators(ops: Operation[]): Map<string, OperationValidators> {
  const strict = createAjv({ useDefaults: true });
  // Query and path values arrive as strings: coerce them as the schema says (limit=5 -> 5).
  const coercing = createAjv({ useDefaults: true, coerceTypes: true });
  const out = new Map<string, OperationValidators>();
  for (const op of ops) {
    const params = op.parameters;
    const objectOf = (where: 'query' | 'path'): JsonSchema | null => {
      const ps = params.filter((p) => p.in === where);
      if (where === 'path' && ps.length === 0) return null;
      return {
        type: 'object',
        properties: Object.fromEntries(ps.map((p) => [p.name, anchored(p.schema)])),
        required: ps.filter((p) => p.required).map((p) => p.name),
        // Unknown query parameters are mistakes worth telling the caller about (as Stripe does).
        additionalProperties: false,
      };
    };
    const pathSchema = objectOf('path');
    // A form body (`application/x-www-form-urlencoded`, e.g. RFC 8058's one-click unsubscribe) is
    // read into an object of its fields (server/body.ts) and checked against its schema the same way.
    const content = op.def.requestBody?.content;
    const bodySchema = content?.['application/json']?.schema ?? content?.[FORM]?.schema;
    out.set(op.id, {
      path: pathSchema ? coercing.compile(pathSchema) : null,
      query: coercing.compile(objectOf('query')!),
      body: bodySchema ? strict.compile(anchored(bodySchema)) : null,
      bodyRequired: op.def.requestBody?.required ?? false,
      idempotencyKey: op.idempotencyKey ? strict.compile(anchored(op.idempotencyKey.schema)) : null,
    });
  }
  return out;
}
