import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { loadDocument, type OpenApiDocument } from '../../server/openapi.ts';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => Ajv2020;

const doc: OpenApiDocument = loadDocument();
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: 'openapi.json', components: doc.components }, 'openapi.json');

interface Route {
  template: string;
  regex: RegExp;
  methods: Record<string, (typeof doc.paths)[string][string]>;
}
const routes: Route[] = Object.entries(doc.paths).map(([template, item]) => ({
  template,
  regex: new RegExp('^' + template.replace(/\{[^}]+\}/g, '[^/]+') + '/?$'),
  methods: Object.fromEntries(Object.entries(item).map(([m, def]) => [m.toUpperCase(), def])),
}));

const cache = new Map<string, ValidateFunction>();
function compiled(key: string, schema: unknown): ValidateFunction {
  let v = cache.get(key);
  if (!v) {
    v = ajv.compile(JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi.json#/components/')));
    cache.set(key, v);
  }
  return v;
}

const PROBLEM = doc.components.schemas.Problem;

/**
 * Checks a response against the generated document: its status must be one the operation
 * documents (problem statuses outside an operation, such as 404 for an unknown path or 405,
 * must be problem documents), its media type must match, and its body must match the schema.
 * Returns a list of violations (empty when the response conforms).
 */
export function responseViolations(method: string, pathname: string, status: number, contentType: string, body: unknown): string[] {
  const route = routes.find((r) => r.regex.test(pathname));
  const op = route?.methods[method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase()];
  const isProblem = contentType.startsWith('application/problem+json');
  if (!op) {
    if (status < 400) return [`${method} ${pathname} answered ${status} but the document has no such operation`];
    if (!isProblem) return [`${status} for an undocumented route is not a problem document (${contentType})`];
    const v = compiled('Problem', PROBLEM);
    return v(body) ? [] : [`problem body: ${ajv.errorsText(v.errors)}`];
  }
  // 501 is a temporary answer for operations whose capability has not landed; it must still be a problem.
  const spec = op.responses[String(status)] ?? (status === 501 || status === 405 ? { content: { 'application/problem+json': { schema: PROBLEM } } } : undefined);
  if (!spec) return [`${op.operationId} does not document status ${status}`];
  if (!spec.content) return body === undefined || body === '' || body === null ? [] : [`${op.operationId} ${status} should have no body`];
  const [media, { schema }] = Object.entries(spec.content)[0];
  if (!contentType.startsWith(media)) return [`${op.operationId} ${status}: content-type ${contentType}, expected ${media}`];
  const v = compiled(`${op.operationId}:${status}`, schema);
  return v(body) ? [] : [`${op.operationId} ${status} body: ${ajv.errorsText(v.errors)}`];
}

export const document = doc;
