import { anchored, createAjv, loadDocument, problemTypes, type OpenApiDocument, type OperationId, type ValidateFunction } from '../../core/contract/index.ts';

const doc: OpenApiDocument = loadDocument();
// The server's own ajv set-up, without defaults: a response must carry every field itself.
const ajv = createAjv();

/**
 * Operations whose capability has not landed yet: the only ones that may answer 501, and only as
 * a problem document. Empty: every operation of the document is served.
 */
export const PENDING_OPERATIONS: ReadonlySet<OperationId> = new Set<OperationId>([]);

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
    v = ajv.compile(anchored(schema as Record<string, unknown>));
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
  const wrongType = contentType.startsWith('application/problem+json') ? problemTypeViolations(status, body) : [];
  return wrongType.length ? wrongType : schemaViolations(method, pathname, status, body, contentType);
}

/**
 * A problem document is of its code's type, as the document's ProblemCode (spec/common/errors.tsp)
 * declares it: that status, that title, `type` the code's page.
 */
function problemTypeViolations(status: number, body: unknown): string[] {
  const p = body as { code?: unknown; status?: unknown; title?: unknown; type?: unknown } | undefined;
  const t = typeof p?.code === 'string' ? problemTypes().get(p.code) : undefined;
  if (!t) return []; // the schema check says what is wrong
  const out: string[] = [];
  if (status !== t.status || p!.status !== t.status) out.push(`${t.code} answered ${status} (status ${String(p!.status)}); its problem type says ${t.status}`);
  if (p!.title !== t.title) out.push(`${t.code} has title ${JSON.stringify(p!.title)}; its problem type says ${JSON.stringify(t.title)}`);
  if (p!.type !== `/problems/${t.code}`) out.push(`${t.code} has type ${JSON.stringify(p!.type)}`);
  return out;
}

function schemaViolations(method: string, pathname: string, status: number, body: unknown, contentType: string): string[] {
  const route = routes.find((r) => r.regex.test(pathname));
  const op = route?.methods[method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase()];
  const isProblem = contentType.startsWith('application/problem+json');
  if (!op) {
    if (status < 400) return [`${method} ${pathname} answered ${status} but the document has no such operation`];
    if (!isProblem) return [`${status} for an undocumented route is not a problem document (${contentType})`];
    const v = compiled('Problem', PROBLEM);
    return v(body) ? [] : [`problem body: ${ajv.errorsText(v.errors)}`];
  }
  const pending = status === 501 && PENDING_OPERATIONS.has(op.operationId);
  const spec = op.responses[String(status)] ?? (pending || status === 405 ? { content: { 'application/problem+json': { schema: PROBLEM } } } : undefined);
  if (!spec) return [`${op.operationId} does not document status ${status}`];
  if (!spec.content) return body === undefined || body === '' || body === null ? [] : [`${op.operationId} ${status} should have no body`];
  // An operation may answer in more than one media type (JSON or a printable HTML page): the one it sent.
  const [media, { schema }] = Object.entries(spec.content).find(([m]) => contentType.startsWith(m)) ?? Object.entries(spec.content)[0];
  if (!contentType.startsWith(media)) return [`${op.operationId} ${status}: content-type ${contentType}, expected ${media}`];
  const v = compiled(`${op.operationId}:${status}:${media}`, schema);
  return v(body) ? [] : [`${op.operationId} ${status} body: ${ajv.errorsText(v.errors)}`];
}

export const document = doc;

/**
 * fetch() for tests that talk to server processes: the response is checked against the document
 * (status documented, media type, body schema) before the test sees it, and never a 5xx.
 */
export async function checkedFetch(
  base: string,
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string>; allow5xx?: boolean } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['x-api-key'] = opts.key;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  const contentType = res.headers.get('content-type') ?? '';
  const body: unknown = text && contentType.includes('json') ? JSON.parse(text) : undefined;
  const violations = responseViolations(method, path.split('?')[0], res.status, contentType, body);
  if (violations.length) throw new Error(`${method} ${path} -> ${res.status}: ${violations.join('; ')}`);
  if (res.status >= 500 && !opts.allow5xx) throw new Error(`${method} ${path} -> ${res.status} ${text.slice(0, 300)}`);
  return { status: res.status, body, headers: res.headers };
}
