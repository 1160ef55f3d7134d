import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { operations } from '../generated/types.ts';

export type OperationId = keyof operations;

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
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
  security?: Array<Record<string, string[]>>;
  'x-scope'?: string;
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, JsonSchema> };
}

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

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

export const openapiPath = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'generated', 'openapi.json');

/** The generated document; read once per process. */
export function loadDocument(file = openapiPath): OpenApiDocument {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as OpenApiDocument;
}

export function listOperations(doc: OpenApiDocument): Operation[] {
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
