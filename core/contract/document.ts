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

/** A parameter declared once in `components.parameters` and referenced by operations. */
export interface ParameterRef {
  $ref: string;
}

export interface OperationObject {
  operationId: OperationId;
  parameters?: Array<ParameterObject | ParameterRef>;
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }>; headers?: Record<string, unknown> }>;
  security?: Array<Record<string, string[]>>;
  'x-scope'?: string;
  'x-workspace'?: WorkspaceSource;
  'x-request-log'?: boolean;
  'x-signature'?: SignatureSource;
  'x-body-limit'?: number;
  'x-public'?: boolean;
  'x-credential'?: 'session';
}

/**
 * How an operation without an API key is authenticated, as its `x-signature` extension declares
 * it (spec/connections.tsp, Hooks): the signature scheme, and the path parameter naming the
 * connection whose secret signs the delivery.
 */
export interface SignatureSource {
  scheme: 'github' | 'gitlab';
  from: 'path';
  name: string;
}

/**
 * Where an operation's workspace comes from, as its `x-workspace` extension declares it
 * (spec/main.tsp, "Workspaces of operations"): a path, query or body field that names the
 * workspace itself, or (`of`) a path id naming a row of that resource, whose workspace it is.
 */
export interface WorkspaceSource {
  from: 'path' | 'query' | 'body';
  name: string;
  /** The resource (model name) a path id names, e.g. `Deploy`; absent: the id is a workspace's. */
  of?: string;
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, JsonSchema>; parameters?: Record<string, ParameterObject> };
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
  /** Where the workspace the request is about comes from; null: the key's binding, if any. */
  workspace: WorkspaceSource | null;
  /** Set for an operation authenticated by a signature instead of an API key. */
  signature: SignatureSource | null;
  /**
   * `x-public`: no API key at all; the request carries its own credential (an invitation token in
   * the body, an unsubscribe token in the query), which the handler checks. No scope, no key's rate limit, no workspace guard.
   */
  isPublic: boolean;
  /**
   * `x-credential: session`: the operation is about the person signed in (spec/sign-in.tsp), so an
   * API key gets `403 session_required`. Otherwise a key or a session may call it.
   */
  sessionOnly: boolean;
  /** The largest body the operation takes (`x-body-limit`); null: the API's 1 MiB. */
  bodyLimit: number | null;
  /** False for the operations that read the request log itself: they are not logged in it. */
  requestLogged: boolean;
  /** Query parameters and top-level body fields holding UUIDs (stored lower case). */
  uuidFields: { query: string[]; body: string[] };
  /** The operation's parameters, references resolved. */
  parameters: ParameterObject[];
  /** The `Idempotency-Key` header, when the operation takes one (spec/common/errors.tsp). */
  idempotencyKey: ParameterObject | null;
  def: OperationObject;
}

function resolveParameter(p: ParameterObject | ParameterRef, doc: OpenApiDocument): ParameterObject {
  if (!('$ref' in p)) return p;
  const found = doc.components.parameters?.[p.$ref.replace('#/components/parameters/', '')];
  if (!found) throw new Error(`unresolvable parameter ${p.$ref}`);
  return found;
}

function isUuidSchema(schema: JsonSchema | undefined, doc: OpenApiDocument): boolean {
  if (!schema) return false;
  if (schema.format === 'uuid') return true;
  const ref = schema.$ref;
  if (typeof ref === 'string') return isUuidSchema(doc.components.schemas[ref.replace('#/components/schemas/', '')], doc);
  const allOf = schema.allOf;
  return Array.isArray(allOf) && allOf.some((s) => isUuidSchema(s as JsonSchema, doc));
}

function bodyUuidFields(def: OperationObject, doc: OpenApiDocument): string[] {
  let schema = def.requestBody?.content['application/json']?.schema;
  const ref = schema?.$ref;
  if (typeof ref === 'string') schema = doc.components.schemas[ref.replace('#/components/schemas/', '')];
  const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>;
  return Object.keys(properties).filter((name) => isUuidSchema(properties[name], doc));
}

export function listOperations(doc: OpenApiDocument = loadDocument()): Operation[] {
  const ops: Operation[] = [];
  for (const [route, item] of Object.entries(doc.paths)) {
    for (const [method, def] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      const parameters = (def.parameters ?? []).map((p) => resolveParameter(p, doc));
      ops.push({
        id: def.operationId,
        method: method.toUpperCase(),
        route,
        koaPath: route.replace(/\{([^}]+)\}/g, ':$1'),
        scope: def['x-scope'] ?? null,
        workspace: def['x-workspace'] ?? null,
        signature: def['x-signature'] ?? null,
        isPublic: def['x-public'] === true,
        sessionOnly: def['x-credential'] === 'session',
        bodyLimit: def['x-body-limit'] ?? null,
        requestLogged: def['x-request-log'] !== false,
        uuidFields: {
          query: parameters.filter((p) => p.in === 'query' && isUuidSchema(p.schema, doc)).map((p) => p.name),
          body: bodyUuidFields(def, doc),
        },
        parameters,
        idempotencyKey: parameters.find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key') ?? null,
        def,
      });
    }
  }
  return ops;
}
