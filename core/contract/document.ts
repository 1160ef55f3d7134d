import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { components, operations } from '../../generated/types.ts';

// The generated OpenAPI document (spec/ -> generated/openapi.json) is the one source of routes,
// validation rules, limits and enums: every process reads it instead of retyping what the
// TypeSpec declares.

export type OperationId = keyof operations;
export type Schemas = components['schemas'];

export interface JsonSchema {
  [key: string]: unknown;
}

export interface ParameterObject {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  schema: JsonSchema;
}

export interface OperationObject {
  operationId: OperationId;
  parameters?: ParameterObject[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }>; headers?: Record<string, unknown> }>;
  security?: Array<Record<string, string[]>>;
  'x-scope'?: string;
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, JsonSchema> };
}

export const documentPath = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'generated', 'openapi.json');

let cached: OpenApiDocument | undefined;

/** The generated document; read once per process. */
export function loadDocument(): OpenApiDocument {
  cached ??= JSON.parse(fs.readFileSync(documentPath, 'utf8')) as OpenApiDocument;
  return cached;
}

/** The raw bytes served at /openapi.json. */
export function documentText(): string {
  return JSON.stringify(loadDocument());
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/** One operation of the document, flattened for route registration. */
export interface Operation {
  id: OperationId;
  method: string;
  /** OpenAPI form, e.g. `/v1/deploys/{id}`: what request logs call the route. */
  route: string;
  /** Koa form, e.g. `/v1/deploys/:id`. */
  koaPath: string;
  scope: string | null;
  def: OperationObject;
}

export function listOperations(doc: OpenApiDocument = loadDocument()): Operation[] {
  const ops: Operation[] = [];
  for (const [route, item] of Object.entries(doc.paths)) {
    for (const [method, def] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      ops.push({
        id: def.operationId,
        method: method.toUpperCase(),
        route,
        koaPath: route.replace(/\{([^}]+)\}/g, ':$1'),
        scope: def['x-scope'] ?? null,
        def,
      });
    }
  }
  return ops;
}
