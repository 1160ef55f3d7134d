/**
 * Fuzz pass generated from the OpenAPI document: for every operation that takes a JSON body,
 * schema-violating bodies (derived from components.schemas, following $ref), malformed JSON,
 * wrong media types, deep nesting and oversized bodies; for every operation with query
 * parameters, violating query strings. Every answer must be a 4xx problem document (never 5xx,
 * even for operations that answer 501 once validated) and nothing may be written.
 *
 * An independent oracle (ajv over the document, as docs/api.md#validation defines validity) decides
 * whether a generated request really is invalid; generated values the oracle accepts are skipped.
 * Each property sends 200 requests per run of the suite, split between the engines it covers
 * (100 each on SQLite and PostgreSQL, 200 on SQLite alone): validation answers before any handler
 * or statement runs, so what the engines add is the "nothing written" check, which every request
 * still gets on each engine, and every engine draws values of its own (a fresh seed per property).
 * FUZZ_RUNS overrides the number of runs per property and engine.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fc from 'fast-check';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi, type ApiResponse, type TestSession } from './support/api.ts';
import { document } from './support/contract.ts';
import { isUuid } from '../core/platform/index.ts';
import { isPostgres, type Db } from '../core/db/index.ts';

after(dropCreatedDatabases);

const RUNS = Number(process.env.FUZZ_RUNS) || Math.ceil(200 / engines().length);
/** FUZZ_SEED replays a reported failure (fast-check prints the seed and path). */
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const runs = (numRuns: number) => ({ numRuns, maxSkipsPerRun: 20, includeErrorInReport: true, ...(SEED === undefined ? {} : { seed: SEED }) });
const MIB = 1024 * 1024;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const STACK = /\bat\s+\S+\s+\(?[^)\s]*:\d+:\d+|node_modules|\.ts:\d+/;

type Schema = Record<string, any>;
type Json = unknown;

// ---------------------------------------------------------------------------------------------
// The oracle: ajv over the document. Ids are plain UUIDs (docs/api.md#paths-and-formats) and timestamps
// must be representable, so the formats are as strict as the contract, not ajv-formats' defaults.

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => Ajv2020;

function oracleAjv(coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: false, coerceTypes: coerce });
  addFormats(ajv);
  ajv.addFormat('uuid', { type: 'string', validate: isUuid });
  const dt = ajv.formats['date-time'] as { validate: (s: string) => boolean };
  ajv.addFormat('date-time', { type: 'string', validate: (s: string) => dt.validate(s) && Number.isFinite(Date.parse(s)) });
  ajv.addSchema({ $id: 'openapi.json', components: document.components }, 'openapi.json');
  return ajv;
}
const strictAjv = oracleAjv(false);
const coercingAjv = oracleAjv(true);
const anchor = (s: Schema): Schema => JSON.parse(JSON.stringify(s).replace(/"#\/components\//g, '"openapi.json#/components/'));
const compiledCache = new Map<string, ValidateFunction>();
function oracle(schema: Schema, coerce = false): ValidateFunction {
  const key = `${coerce}:${JSON.stringify(schema)}`;
  let v = compiledCache.get(key);
  if (!v) {
    v = (coerce ? coercingAjv : strictAjv).compile(anchor(schema));
    compiledCache.set(key, v);
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Schemas, normalised: $ref followed, allOf merged, `anyOf [X, null]` turned into nullable X.

interface Norm {
  raw: Schema;
  types: string[] | null; // null: any JSON type
  nullable: boolean;
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  items?: Norm;
  properties?: Record<string, Norm>;
  required: string[];
  /** unevaluatedProperties / additionalProperties forbid unknown keys. */
  closed: boolean;
  /** Schema of the values of a map object (e.g. webhook headers). */
  values?: Norm;
  examples: unknown[];
}

const refTarget = (ref: string): Schema => {
  const name = ref.replace('#/components/schemas/', '');
  const s = document.components.schemas[name];
  if (!s) throw new Error(`unresolvable $ref ${ref}`);
  return s as Schema;
};

/** Flattens $ref and allOf into one keyword bag (outer keywords win, properties merge). */
function flatten(s: Schema, depth = 0): Schema {
  if (depth > 20) throw new Error('schema nesting too deep');
  let out: Schema = {};
  const parts: Schema[] = [];
  if (s.$ref) parts.push(flatten(refTarget(s.$ref), depth + 1));
  for (const p of s.allOf ?? []) parts.push(flatten(p, depth + 1));
  const own = { ...s };
  delete own.$ref;
  delete own.allOf;
  for (const p of [...parts, own]) {
    const merged: Schema = { ...out, ...p };
    if (out.properties || p.properties) merged.properties = { ...out.properties, ...p.properties };
    if (out.required || p.required) merged.required = [...(out.required ?? []), ...(p.required ?? [])];
    if (out.examples || p.examples) merged.examples = [...(p.examples ?? []), ...(out.examples ?? [])];
    out = merged;
  }
  return out;
}

function normalize(raw: Schema, depth = 0): Norm {
  let s = flatten(raw);
  let nullable = false;
  const branches = s.anyOf ?? s.oneOf;
  if (branches) {
    const nonNull = branches.filter((b: Schema) => flatten(b).type !== 'null');
    nullable = nonNull.length < branches.length;
    const rest = { ...s };
    delete rest.anyOf;
    delete rest.oneOf;
    if (nonNull.length === 1) s = { ...flatten(nonNull[0]), ...rest };
    else {
      const types = nonNull.map((b: Schema) => flatten(b).type).filter(Boolean);
      s = { ...rest, type: types.length === nonNull.length ? [...new Set(types)] : undefined };
    }
  }
  let types: string[] | null = s.type === undefined ? null : Array.isArray(s.type) ? [...s.type] : [s.type];
  if (types?.includes('null')) {
    nullable = true;
    types = types.filter((t) => t !== 'null');
  }
  const extra = s.unevaluatedProperties ?? s.additionalProperties;
  const closed = extra === false || (typeof extra === 'object' && extra !== null && 'not' in extra && Object.keys(extra.not).length === 0);
  const n: Norm = {
    raw,
    types,
    nullable,
    required: s.required ?? [],
    closed,
    examples: s.examples ?? (s.example !== undefined ? [s.example] : []),
  };
  for (const k of ['enum', 'minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum', 'minItems', 'maxItems', 'minProperties'] as const) {
    if (s[k] !== undefined) (n as any)[k] = s[k];
  }
  if (depth < 8) {
    if (s.items) n.items = normalize(s.items, depth + 1);
    if (s.properties) n.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, normalize(v as Schema, depth + 1)]));
    if (typeof extra === 'object' && extra !== null && !closed) n.values = normalize(extra, depth + 1);
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// Valid values (the base every violation starts from), found by trying candidates against the oracle.

interface Ctx {
  workspaceId: string;
}

function validValue(n: Norm, ctx: Ctx): Json {
  const ok = oracle(n.raw);
  const candidates: Json[] = [];
  if (n.format === 'uuid') candidates.push(ctx.workspaceId);
  candidates.push(...n.examples);
  if (n.enum) candidates.push(...n.enum.filter((e) => e !== null));
  const t = n.types?.[0];
  if (t === 'string' || (!t && !n.enum)) {
    const len = Math.max(n.minLength ?? 0, 1);
    candidates.push(
      n.format === 'date-time' ? new Date().toISOString() : undefined,
      n.format === 'date' ? new Date().toISOString().slice(0, 10) : undefined,
      'x'.repeat(len),
      'abc1234',
      'https://www.example.com',
      'DE',
      `whsec_${crypto.randomBytes(32).toString('base64')}`,
      'someone@example.com',
      // A TOTP code (TwoStepConfirm.code).
      '123456',
      // Unions of enums (DeliveryEvent) normalise to an untyped schema: offer a member.
      'deploy.recorded',
      // Unions of string formats (a date or a date-time) normalise to a bare string: offer both.
      new Date().toISOString(),
      new Date().toISOString().slice(0, 10),
    );
  }
  if (t === 'integer' || t === 'number') candidates.push(Math.min(Math.max(1, n.minimum ?? 1), n.maximum ?? 1));
  if (t === 'boolean') candidates.push(true);
  if (t === 'array') candidates.push(n.items ? Array.from({ length: n.minItems ?? 0 }, () => validValue(n.items!, ctx)) : []);
  if (t === 'object' || (!t && n.properties)) {
    // Required properties, plus the caller's workspace wherever an optional id is taken
    // (e.g. DeployCreate.workspaceId), so a request that got past validation would really act.
    const obj: Record<string, Json> = {};
    for (const [k, p] of Object.entries(n.properties ?? {})) {
      if (n.required.includes(k) || p.format === 'uuid') obj[k] = validValue(p, ctx);
    }
    // A map that needs entries (ConnectionCreate.branches): one, under a key every map here takes.
    if (n.values && (n.minProperties ?? 0) > 0) obj.main = validValue(n.values, ctx);
    candidates.unshift(obj);
  }
  if (n.nullable) candidates.push(null);
  for (const c of candidates) if (c !== undefined && ok(c)) return structuredClone(c);
  throw new Error(`fuzz: no valid value for ${JSON.stringify(n.raw).slice(0, 200)}; teach validValue() about it`);
}

// ---------------------------------------------------------------------------------------------
// Raw JSON text spliced into a body (deep nesting, numbers JSON.stringify cannot write).

class Raw {
  constructor(readonly text: string) {}
  [fc.toStringMethod](): string {
    return this.text.length > 40 ? `Raw(${this.text.slice(0, 20)}... ${this.text.length} chars)` : `Raw(${this.text})`;
  }
}

function serialize(v: Json): string {
  if (v instanceof Raw) return v.text;
  if (Array.isArray(v)) return `[${v.map(serialize).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${serialize(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

const deep = (kind: 'array' | 'object', depth: number): Raw =>
  new Raw(kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

/** Sets a property so that `__proto__` and friends become own, enumerable keys as JSON.parse makes them. */
function defineKey(obj: Record<string, Json>, key: string, value: Json): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

// ---------------------------------------------------------------------------------------------
// Violations: each site (a pointer into the body with the schema there) yields arbitraries.

type Seg = string | number;
interface Site {
  ptr: Seg[];
  chain: Norm[]; // chain[i] is the schema at ptr.slice(0, i)
}
interface Mutation {
  ptr: Seg[];
  chain: Norm[];
  action: 'set' | 'delete';
  value?: Json;
  what: string;
}

const MAP_KEY = 'x-fuzz';

function sitesOf(root: Norm): Site[] {
  const out: Site[] = [];
  const walk = (n: Norm, ptr: Seg[], chain: Norm[]) => {
    const here = [...chain, n];
    out.push({ ptr, chain: here });
    if (ptr.length >= 6) return;
    for (const [k, child] of Object.entries(n.properties ?? {})) walk(child, [...ptr, k], here);
    if (n.values) walk(n.values, [...ptr, MAP_KEY], here);
    if (n.items) walk(n.items, [...ptr, 0], here);
  };
  walk(root, [], []);
  return out;
}

const JSON_TYPES = ['string', 'integer', 'number', 'boolean', 'null', 'array', 'object'] as const;
const smallJson = fc.jsonValue({ maxDepth: 2 });
const typeArb: Record<(typeof JSON_TYPES)[number], fc.Arbitrary<Json>> = {
  string: fc.string({ maxLength: 12 }),
  integer: fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 53)),
  number: fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Number.isInteger(x)),
  boolean: fc.boolean(),
  null: fc.constant(null),
  array: fc.array(smallJson, { maxLength: 3 }),
  object: fc.dictionary(fc.string({ maxLength: 6 }), smallJson, { maxKeys: 3 }),
};

const BAD_UUIDS = (u: string) => [
  'not-a-uuid',
  '',
  u.replace(/-/g, ''),
  `${u}0`,
  u.slice(0, -1),
  `{${u}}`,
  `urn:uuid:${u}`,
  ` ${u}`,
  u.replace(/[0-9a-f]$/, 'g'),
  '12345678-1234-1234-1234-123456789012',
  u.toUpperCase().replace(/-/g, '_'),
];
const badUuid = fc.oneof(
  fc.uuid().chain((u) => fc.constantFrom(...BAD_UUIDS(u))),
  fc.string({ maxLength: 40 }),
);
const badDateTime = fc.oneof(
  fc.constantFrom('yesterday', '2026-11-21', '2026-11-21T10:00:00', '2026-13-01T00:00:00Z', '2026-02-30T00:00:00Z', '2026-06-30T23:59:60Z', '2026-11-21T25:00:00Z', '1700000000', ''),
  fc.date({ min: new Date(0), max: new Date(2 ** 42), noInvalidDate: true }).map((d) => d.toISOString().replace('Z', '')),
  fc.date({ min: new Date(0), max: new Date(2 ** 42), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  fc.string({ maxLength: 30 }),
);
const badDate = fc.oneof(
  fc.constantFrom('2026-02-30', '2026-13-01', '2026-1-1', '26-01-01', '20261121', 'today', '2026-11-21T00:00:00Z', ''),
  fc.date({ min: new Date(0), max: new Date(2 ** 42), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.string({ maxLength: 30 }),
);

function notIn(values: unknown[]): fc.Arbitrary<string> {
  const strs = values.filter((v): v is string => typeof v === 'string');
  const variants = strs.flatMap((v) => [v.toUpperCase(), v.toLowerCase(), ` ${v}`, `${v} `, `${v}x`]).filter((v) => !values.includes(v));
  return fc.oneof(fc.string({ maxLength: 20 }).filter((s) => !values.includes(s)), ...(variants.length ? [fc.constantFrom(...variants)] : []));
}

/** Values that break the schema at one site (the oracle has the final say). */
function violationsAt(n: Norm, ctx: Ctx): Array<{ what: string; arb: fc.Arbitrary<Json> }> {
  const out: Array<{ what: string; arb: fc.Arbitrary<Json> }> = [];
  if (n.types) {
    const accepted = new Set(n.types);
    if (accepted.has('number')) accepted.add('integer');
    if (n.nullable) accepted.add('null');
    for (const t of JSON_TYPES) if (!accepted.has(t)) out.push({ what: `type ${t}`, arb: typeArb[t] });
  }
  if (n.enum) out.push({ what: 'enum', arb: notIn(n.enum) });
  if (n.maxLength !== undefined) {
    const m = n.maxLength;
    out.push({ what: 'maxLength', arb: fc.integer({ min: m + 1, max: m + 40 }).map((k) => 'y'.repeat(k)) });
  }
  if (n.minLength) out.push({ what: 'minLength', arb: fc.integer({ min: 0, max: n.minLength - 1 }).map((k) => 'y'.repeat(k)) });
  if (n.pattern) {
    const re = new RegExp(n.pattern, 'u');
    out.push({
      what: 'pattern',
      arb: fc
        .oneof(fc.string({ maxLength: 20 }), fc.constantFrom(' ', 'ftp://x', 'javascript:alert(1)', 'https://', 'https://exa mple.com', 'abc', 'ghijklm', '1234567890abcdefg!', 'x\ny'))
        .filter((s) => !re.test(s)),
    });
  }
  if (n.format === 'uuid') out.push({ what: 'uuid', arb: badUuid });
  if (n.format === 'date-time') out.push({ what: 'date-time', arb: badDateTime });
  if (n.format === 'date') out.push({ what: 'date', arb: badDate });
  if (n.minimum !== undefined) {
    out.push({ what: 'minimum', arb: fc.oneof(fc.integer({ min: -(2 ** 31), max: n.minimum - 1 }), fc.constant(new Raw('-1e400'))) });
  }
  if (n.maximum !== undefined) {
    out.push({
      what: 'maximum',
      arb: fc.oneof(fc.integer({ min: n.maximum + 1, max: 2 ** 31 }), fc.constantFrom(new Raw('1e400'), new Raw('123456789012345678901234567890'))),
    });
  }
  if (n.items) {
    const item = () => validValue(n.items!, ctx);
    if (n.maxItems !== undefined) out.push({ what: 'maxItems', arb: fc.integer({ min: n.maxItems + 1, max: n.maxItems + 3 }).map((k) => Array.from({ length: k }, item)) });
    if (n.minItems) out.push({ what: 'minItems', arb: fc.integer({ min: 0, max: n.minItems - 1 }).map((k) => Array.from({ length: k }, item)) });
  }
  if (!n.nullable && n.types) out.push({ what: 'null', arb: fc.constant(null) });
  // Deep nesting where the schema expects something else (or scalars inside a container).
  out.push({
    what: 'deep',
    arb: fc.tuple(fc.constantFrom('array' as const, 'object' as const), fc.oneof(fc.integer({ min: 2, max: 64 }), fc.constant(5000))).map(([k, d]) => deep(k, d)),
  });
  return out;
}

/** Counterexamples print as what they do, not as the schema chain they carry. */
function labelled(m: Mutation): Mutation {
  return Object.defineProperty({ ...m }, fc.toStringMethod, { value: () => m.what, enumerable: false });
}

function mutationArb(root: Norm, ctx: Ctx): fc.Arbitrary<Mutation> {
  const options: Array<fc.Arbitrary<Mutation>> = [];
  for (const site of sitesOf(root)) {
    const n = site.chain[site.chain.length - 1];
    for (const v of violationsAt(n, ctx)) {
      options.push(v.arb.map((value) => ({ ptr: site.ptr, chain: site.chain, action: 'set' as const, value, what: `${v.what} at /${site.ptr.join('/')}` })));
    }
    if (n.types?.includes('object') || n.properties) {
      if (n.closed) {
        const known = n.properties ?? {};
        const keys = fc
          .oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'extra', 'workspaceID', 'a/b', 'c~d', ''), fc.string({ maxLength: 16 }))
          .filter((k) => !Object.hasOwn(known, k));
        options.push(
          fc.tuple(keys, smallJson).map(([k, value]) => ({ ptr: [...site.ptr, k], chain: [...site.chain, n], action: 'set' as const, value, what: `unknown property ${JSON.stringify(k)} at /${site.ptr.join('/')}` })),
        );
      }
      if (n.required.length) {
        options.push(
          fc.constantFrom(...n.required).map((k) => ({ ptr: [...site.ptr, k], chain: [...site.chain, n], action: 'delete' as const, what: `missing ${k} at /${site.ptr.join('/')}` })),
        );
      }
    }
  }
  return fc.oneof(...options).map(labelled);
}

/** Applies mutations to a copy of the base body, creating valid containers on the way. */
function applyMutations(base: Json, muts: Mutation[], ctx: Ctx): Json {
  let body: Json = structuredClone(base);
  for (const m of muts) {
    if (m.ptr.length === 0) {
      if (m.action === 'set') body = m.value;
      continue;
    }
    let cur: any = body;
    let ok = true;
    for (let i = 0; i < m.ptr.length - 1; i++) {
      if (cur === null || typeof cur !== 'object' || cur instanceof Raw) {
        ok = false;
        break;
      }
      const key = m.ptr[i];
      let next = Array.isArray(cur) ? cur[key as number] : Object.hasOwn(cur, key) ? cur[key] : undefined;
      if (next === undefined) {
        next = validValue(m.chain[i + 1], ctx);
        if (Array.isArray(cur)) cur[key as number] = next;
        else defineKey(cur, String(key), next);
      }
      cur = next;
    }
    if (!ok || cur === null || typeof cur !== 'object' || cur instanceof Raw) continue;
    const last = m.ptr[m.ptr.length - 1];
    if (m.action === 'delete') {
      if (!Array.isArray(cur)) delete cur[last];
    } else if (Array.isArray(cur)) {
      // A property mutation meant for an object that an earlier mutation turned into an array
      // (`__proto__` would replace the array's prototype): only indexes apply.
      if (typeof last === 'number') cur[last] = m.value;
    } else defineKey(cur, String(last), m.value);
  }
  return body;
}

const escapeToken = (s: Seg) => String(s).replace(/~/g, '~0').replace(/\//g, '~1');
const pointer = (ptr: Seg[]) => ptr.map((s) => '/' + escapeToken(s)).join('');
const related = (a: string, b: string) => a === b || a.startsWith(b + '/') || b.startsWith(a + '/') || a === '' || b === '';

// ---------------------------------------------------------------------------------------------
// Operations from the document.

interface DocOp {
  id: string;
  method: string;
  route: string;
  params: Array<{ name: string; in: string; required?: boolean; schema: Schema }>;
  body: Schema | null;
  bodyRequired: boolean;
  /** Authenticated by a delivery's signature (`x-signature`) rather than a key. */
  signed: boolean;
  /** For the person signed in (`x-credential: session`): sent with a session instead of the key. */
  sessionOnly: boolean;
}

const operations: DocOp[] = [];
for (const [route, item] of Object.entries(document.paths)) {
  for (const m of HTTP_METHODS) {
    const op = item[m];
    if (!op) continue;
    operations.push({
      id: op.operationId,
      method: m.toUpperCase(),
      route,
      params: (op.parameters ?? []) as DocOp['params'],
      body: op.requestBody?.content['application/json']?.schema ?? null,
      bodyRequired: op.requestBody?.required ?? false,
      signed: op['x-signature'] !== undefined,
      sessionOnly: op['x-credential'] === 'session',
    });
  }
}

/** A concrete path: the real workspace for workspace resources, fresh UUIDs elsewhere. */
function pathOf(op: DocOp, ctx: Ctx): string {
  return op.route.replace(/\{([^}]+)\}/g, (_m, name: string, offset: number) => {
    const before = op.route.slice(0, offset);
    return name === 'workspaceId' || before.endsWith('/workspaces/') ? ctx.workspaceId : crypto.randomUUID();
  });
}

function queryParams(op: DocOp) {
  return op.params.filter((p) => p.in === 'query');
}

/** The query object schema exactly as docs/api.md#validation reads it: declared params, nothing else. */
function querySchema(op: DocOp): Schema {
  const ps = queryParams(op);
  return {
    type: 'object',
    properties: Object.fromEntries(ps.map((p) => [p.name, p.schema])),
    required: ps.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
}

/** What Koa makes of a query string (koa/lib/search-params.js): repeated keys become arrays. */
function parseQuery(search: string): Record<string, unknown> {
  const sp = new URLSearchParams(search);
  const obj: Record<string, unknown> = {};
  for (const key of new Set(sp.keys())) {
    const values = sp.getAll(key);
    defineKey(obj as Record<string, Json>, key, values.length <= 1 ? values[0] : values);
  }
  return obj;
}

// ---------------------------------------------------------------------------------------------
// Database snapshot: every row of every table, so a rejected request provably wrote nothing.

async function tables(db: Db): Promise<string[]> {
  const names: string[] =
    isPostgres(db)
      ? ((await db.raw(
          `select table_schema || '.' || table_name as name from information_schema.tables
           where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`,
        )) as { rows: Array<{ name: string }> }).rows.map((r) => r.name)
      : ((await db.raw(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`)) as Array<{ name: string }>).map((r) => r.name);
  // knex bookkeeping, the request log (docs/api.md#request-logs: failed requests are logged too), the
  // key's rate-limit count (every request counts, whatever it answers) and failed sign-ins (each
  // one counts toward throttling, spec/sign-in.tsp): the legitimate writes of a rejected request.
  return names.filter((n) => !/(^|\.)(knex_migrations|request_log|rate_limit_windows|sign_in_failures)/.test(n)).sort();
}

async function snapshot(db: Db): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of await tables(db)) {
    const [schema, name] = t.includes('.') ? t.split('.') : [null, t];
    const rows = (await (schema ? db.withSchema(schema).from(name) : db.from(name)).select('*')) as Array<Record<string, unknown>>;
    out[t] = rows
      .map((r) => {
        // Authentication refreshes last_used_at at most once a minute: a read, not a write of the request.
        if (/(^|\.)api_keys$/.test(t)) delete r.last_used_at;
        if (/(^|\.)sessions$/.test(t)) delete r.last_seen_at;
        return JSON.stringify(r);
      })
      .sort();
  }
  return out;
}

function assertSameDb(before: Record<string, string[]>, after: Record<string, string[]>, what: string): void {
  for (const t of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const b = before[t] ?? [];
    const a = after[t] ?? [];
    const added = a.filter((r) => !b.includes(r));
    const removed = b.filter((r) => !a.includes(r));
    assert.ok(added.length === 0 && removed.length === 0, `${what}: table ${t} changed: +${added.length} -${removed.length}\n${[...added, ...removed].slice(0, 3).join('\n').slice(0, 1000)}`);
  }
}

// ---------------------------------------------------------------------------------------------

function assertRejected(res: ApiResponse, status: number, code: string | null, what: string): void {
  const ctx = `${what}: ${res.status} ${res.text.slice(0, 400)}`;
  assert.ok(res.status < 500, ctx);
  assert.equal(res.status, status, ctx);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, ctx);
  for (const f of ['type', 'title', 'detail', 'code']) assert.equal(typeof res.body?.[f], 'string', `${ctx}: problem has ${f}`);
  assert.equal(res.body.status, status, ctx);
  if (code) assert.equal(res.body.code, code, ctx);
  assert.doesNotMatch(res.text, STACK, ctx);
}

const shortBody = (t: string) => (t.length > 300 ? `${t.slice(0, 300)}... (${t.length} chars)` : t);

for (const engine of engines()) {
  describe(`fuzz from the document (${engine})`, () => {
    let api: TestApi;
    let key: string;
    let session: TestSession;
    let ctx: Ctx;

    before(async () => {
      // Thousands of requests a minute from one key: the production limit (6,000 a minute) would answer 429 before validation.
      api = await TestApi.start(engine, { env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
      const o = await api.owner();
      key = o.apiKey;
      session = await api.session(o.userId);
      ctx = { workspaceId: o.workspaceId };
    });
    after(async () => {
      await api.stop();
    });

    const send = (op: DocOp, opts: { text?: string | Buffer; contentType?: string | null; search?: string }) => {
      const headers: Record<string, string> = {};
      if (opts.contentType) headers['content-type'] = opts.contentType;
      const path = pathOf(op, ctx) + (opts.search ? `?${opts.search}` : '');
      return api.call(op.method, path, { ...(op.sessionOnly ? { session } : { key }), rawBody: opts.text, headers });
    };

    it('the document has operations with bodies and with query parameters to fuzz', () => {
      assert.ok(operations.some((o) => o.body));
      assert.ok(operations.some((o) => queryParams(o).length));
    });

    // Signed hooks check the signature over the raw body before parsing it, so an unsigned
    // request never reaches validation; their bad bodies are sent signed, against a real
    // connection, in test/connections-e2e.test.ts.
    const keyed = operations.filter((o) => !o.signed);
    it('leaves out only the signed hooks', () => {
      assert.deepEqual(operations.filter((o) => o.signed).map((o) => o.id).sort(), ['Hooks_github', 'Hooks_gitlab']);
    });

    for (const op of keyed.filter((o) => o.body)) {
      describe(`${op.id} body`, () => {
        let root: Norm;
        let base: Json;
        let baseText: string;
        before(() => {
          root = normalize(op.body!);
          base = validValue(root, ctx);
          baseText = serialize(base);
          assert.ok(oracle(op.body!)(JSON.parse(baseText)), `${op.id}: the base body is valid`);
        });

        it(`${RUNS} schema-violating bodies are 400 validation_failed and write nothing`, async () => {
          const dbBefore = await snapshot(api.db);
          const validate = oracle(op.body!);
          let sent = 0;
          await fc.assert(
            fc.asyncProperty(fc.array(mutationArb(root, ctx), { minLength: 1, maxLength: 3 }), async (muts) => {
              const text = serialize(applyMutations(base, muts, ctx));
              fc.pre(!validate(JSON.parse(text)));
              sent++;
              const what = `${op.id} ${muts.map((m) => m.what).join(', ')} body=${shortBody(text)}`;
              const res = await send(op, { text, contentType: 'application/json' });
              assertRejected(res, 400, 'validation_failed', what);
              const errors = res.body.errors as Array<{ in: string; path: string; message: string }>;
              assert.ok(Array.isArray(errors) && errors.length > 0, `${what}: lists errors`);
              for (const e of errors) {
                assert.equal(e.in, 'body', what);
                assert.ok(e.path === '' || e.path.startsWith('/'), `${what}: pointer ${e.path}`);
                assert.ok(typeof e.message === 'string' && e.message.length > 0, what);
              }
              if (muts.length === 1) {
                const site = pointer(muts[0].ptr);
                assert.ok(errors.some((e) => related(e.path, site)), `${what}: an error points at ${site}: ${JSON.stringify(errors)}`);
              }
            }),
            runs(RUNS),
          );
          assert.ok(sent >= RUNS, `${op.id}: sent ${sent} invalid bodies`);
          assertSameDb(dbBefore, await snapshot(api.db), op.id);
        });

        it('malformed JSON is 400 invalid_json', async () => {
          const dbBefore = await snapshot(api.db);
          const garbage = fc.constantFrom('{', '}', '[', ']', ',', ':', '"', "'", '\\', 'x', '\u0000', 'NaN', 'undefined', '//', '/*', '\n}');
          const malformed = fc.oneof(
            fc.integer({ min: 0, max: Math.max(0, baseText.length - 1) }).map((i) => baseText.slice(0, i)),
            fc.tuple(fc.integer({ min: 0, max: baseText.length }), garbage).map(([i, g]) => baseText.slice(0, i) + g + baseText.slice(i)),
            fc.constant(baseText.replace(/"/g, "'")),
            fc.constant(baseText.replace(/}$/, ',}')),
            fc.constant(`${baseText}${baseText}`),
            fc.constantFrom('{', 'nul', 'tru', '{"a":1,}', "{'a':1}", '{"a":01}', '{"a":.5}', '{"a":NaN}', '{"a":"\u0001"}', '{"a" 1}', '[1,]', '"unterminated'),
          );
          await fc.assert(
            fc.asyncProperty(malformed, async (text) => {
              let parses = true;
              try {
                JSON.parse(text);
              } catch {
                parses = false;
              }
              // An empty body is "no body" (400 validation_failed, in validation.test.ts), not malformed JSON.
              fc.pre(!parses && text.length > 0);
              const res = await send(op, { text, contentType: 'application/json' });
              assertRejected(res, 400, 'invalid_json', `${op.id} body=${shortBody(JSON.stringify(text))}`);
            }),
            runs(Math.ceil(RUNS / 4)),
          );
          assertSameDb(dbBefore, await snapshot(api.db), op.id);
        });

        it('a valid body sent as anything but JSON is 415', async () => {
          const dbBefore = await snapshot(api.db);
          const types = fc.oneof(
            fc.constantFrom(
              'text/plain',
              'text/plain; charset=utf-8',
              'text/json',
              'application/x-www-form-urlencoded',
              'multipart/form-data; boundary=x',
              'application/xml',
              'application/octet-stream',
              'application/jsonp',
              'json',
              'application/ json',
              null,
            ),
            fc.stringMatching(/^[a-z]{1,10}\/[a-z]{1,10}$/).filter((t) => !/json$/.test(t)),
          );
          await fc.assert(
            fc.asyncProperty(types, async (contentType) => {
              // No content-type header at all: a Buffer body makes fetch send none.
              const res = await send(op, { text: contentType === null ? Buffer.from(baseText) : baseText, contentType });
              assertRejected(res, 415, 'unsupported_media_type', `${op.id} content-type ${contentType}`);
            }),
            runs(Math.ceil(RUNS / 4)),
          );
          assertSameDb(dbBefore, await snapshot(api.db), op.id);
        });

        it('deep nesting (5,000 levels) anywhere is 400, not a crash', async () => {
          const dbBefore = await snapshot(api.db);
          for (const kind of ['array', 'object'] as const) {
            const root5k = deep(kind, 5000).text;
            assertRejected(await send(op, { text: root5k, contentType: 'application/json' }), 400, 'validation_failed', `${op.id} root ${kind} x5000`);
            for (const site of sitesOf(root)) {
              if (site.ptr.length === 0) continue;
              const body = applyMutations(base, [{ ptr: site.ptr, chain: site.chain, action: 'set', value: deep(kind, 5000), what: '' }], ctx);
              const text = serialize(body);
              if (validate(text)) continue;
              assertRejected(await send(op, { text, contentType: 'application/json' }), 400, 'validation_failed', `${op.id} ${kind} x5000 at ${pointer(site.ptr)}`);
            }
          }
          // Far deeper than any parser should recurse: still a 4xx (it is valid JSON, or is refused as such).
          const huge = deep('array', 200_000).text;
          const res = await send(op, { text: huge, contentType: 'application/json' });
          assert.ok(res.status === 400 && ['validation_failed', 'invalid_json'].includes(res.body.code), `${op.id} 200,000 levels: ${res.status} ${res.text.slice(0, 200)}`);
          assertSameDb(dbBefore, await snapshot(api.db), op.id);

          function validate(text: string): boolean {
            return oracle(op.body!)(JSON.parse(text));
          }
        });

        it('a 2 MB string is 413 (declared length and chunked); a long string under the limit is 400', async () => {
          const dbBefore = await snapshot(api.db);
          const stringSite = sitesOf(root).find((s) => s.ptr.length > 0 && s.chain[s.chain.length - 1].types?.includes('string'));
          const put = (value: string) =>
            serialize(stringSite ? applyMutations(base, [{ ptr: stringSite.ptr, chain: stringSite.chain, action: 'set', value, what: '' }], ctx) : { ...(base as object), huge: value });
          const big = put('z'.repeat(2 * MIB));
          assertRejected(await send(op, { text: big, contentType: 'application/json' }), 413, 'payload_too_large', `${op.id} 2 MB`);

          const data = Buffer.from(big);
          const stream = new ReadableStream<Uint8Array>({
            start(c) {
              for (let i = 0; i < data.length; i += 256 * 1024) c.enqueue(data.subarray(i, i + 256 * 1024));
              c.close();
            },
          });
          const res = await fetch(new URL(pathOf(op, ctx), api.url), {
            method: op.method,
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
            body: stream,
            duplex: 'half',
          } as RequestInit);
          const text = await res.text();
          assert.equal(res.status, 413, `${op.id} chunked 2 MB: ${text.slice(0, 200)}`);
          assert.equal(JSON.parse(text).code, 'payload_too_large');

          const long = put('z'.repeat(MIB - 4096));
          assert.ok(!oracle(op.body!)(JSON.parse(long)));
          assertRejected(await send(op, { text: long, contentType: 'application/json' }), 400, 'validation_failed', `${op.id} ~1 MB string`);
          assertSameDb(dbBefore, await snapshot(api.db), op.id);
        });
      });
    }

    for (const op of keyed) {
      const params = queryParams(op);
      const count = params.length ? RUNS : Math.ceil(RUNS / 8);
      it(`${op.id}: ${count} violating query strings are 400 validation_failed (in: query) and write nothing`, async () => {
        const dbBefore = await snapshot(api.db);
        const validate = oracle(querySchema(op), true);
        // A valid body where one is needed: only the query is wrong, so nothing may happen.
        const bodyText = op.body ? serialize(validValue(normalize(op.body), ctx)) : undefined;
        const baseQuery: Array<[string, string]> = params.filter((p) => p.required).map((p) => [p.name, String(validValue(normalize(p.schema), ctx))]);
        const declared = new Set(params.map((p) => p.name));

        const enc = (s: string) => encodeURIComponent(s);
        const rawValue = fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '%FF', '%2', '&', '=', '==', '+');
        type Edit = { what: string; apply: (q: Array<[string, string]>) => Array<[string, string, boolean?]> };
        const label = (e: Edit): Edit => Object.defineProperty({ ...e }, fc.toStringMethod, { value: () => e.what, enumerable: false });
        const edits: Array<fc.Arbitrary<Edit>> = [];
        for (const p of params) {
          const n = normalize(p.schema);
          const values: Array<fc.Arbitrary<string>> = [];
          if (n.types?.includes('integer') || n.types?.includes('number')) {
            values.push(
              fc.string({ maxLength: 8 }).filter((s) => s.trim() === '' || Number.isNaN(Number(s))),
              fc.constantFrom('1.5', '0.1', 'NaN', 'Infinity', '-Infinity', '1e400', '99999999999999999999999', 'one', '[]', 'true', ''),
            );
            if (n.minimum !== undefined) values.push(fc.integer({ min: -(2 ** 31), max: n.minimum - 1 }).map(String));
            if (n.maximum !== undefined) values.push(fc.integer({ min: n.maximum + 1, max: 2 ** 31 }).map(String));
          }
          if (n.enum) values.push(notIn(n.enum));
          if (n.format === 'uuid') values.push(badUuid);
          if (n.format === 'date') values.push(badDate);
          if (n.format === 'date-time') values.push(badDateTime);
          if (n.maxLength !== undefined) values.push(fc.integer({ min: n.maxLength + 1, max: n.maxLength + 50 }).map((k) => 'q'.repeat(k)));
          if (n.minLength) values.push(fc.constant(''));
          if (n.pattern) values.push(fc.string({ maxLength: 20 }).filter((s) => !new RegExp(n.pattern!, 'u').test(s)));
          if (values.length) {
            edits.push(
              fc.oneof(...values).map((v) => ({
                what: `${p.name}=${JSON.stringify(v)}`,
                apply: (q) => [...q.filter(([k]) => k !== p.name), [p.name, enc(v)]],
              })),
            );
          }
          edits.push(rawValue.map((v) => ({ what: `${p.name}=${v} (raw)`, apply: (q) => [...q.filter(([k]) => k !== p.name), [p.name, v, true]] })));
          // Repeated: a list where one value is expected, even when each value is fine.
          const good = String(validValue(n, ctx));
          edits.push(
            fc.integer({ min: 2, max: 4 }).map((k) => ({
              what: `${p.name} repeated ${k}x`,
              apply: (q) => [...q.filter(([name]) => name !== p.name), ...Array.from({ length: k }, () => [p.name, enc(good)] as [string, string])],
            })),
          );
          if (p.required) edits.push(fc.constant({ what: `missing ${p.name}`, apply: (q) => q.filter(([k]) => k !== p.name) }));
        }
        const unknownName = fc
          .oneof(
            fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'workspaceId', 'LIMIT', 'limit[]', 'a/b', 'foo', 'x'),
            fc.string({ minLength: 1, maxLength: 16 }),
          )
          .filter((k) => !declared.has(k));
        edits.push(
          fc.tuple(unknownName, fc.string({ maxLength: 8 })).map(([k, v]) => ({ what: `unknown ${JSON.stringify(k)}`, apply: (q) => [...q, [enc(k), enc(v)]] })),
        );

        let sent = 0;
        await fc.assert(
          fc.asyncProperty(fc.array(fc.oneof(...edits).map(label), { minLength: 1, maxLength: 3 }), async (list) => {
            let q: Array<[string, string, boolean?]> = baseQuery.map(([k, v]) => [k, encodeURIComponent(v)]);
            for (const e of list) q = e.apply(q as Array<[string, string]>);
            const search = q.map(([k, v]) => `${k}=${v}`).join('&');
            const url = new URL(`${pathOf(op, ctx)}?${search}`, api.url);
            const parsed = parseQuery(url.search.slice(1));
            fc.pre(!validate(structuredClone(parsed)));
            sent++;
            const what = `${op.id} ?${url.search.slice(1).slice(0, 300)} (${list.map((e) => e.what).join(', ')})`;
            const res = await send(op, { search: url.search.slice(1), text: bodyText, contentType: bodyText ? 'application/json' : null });
            assertRejected(res, 400, 'validation_failed', what);
            const errors = res.body.errors as Array<{ in: string; path: string }>;
            assert.ok(Array.isArray(errors) && errors.length > 0, `${what}: lists errors`);
            for (const e of errors) assert.equal(e.in, 'query', `${what}: ${JSON.stringify(errors)}`);
          }),
          runs(count),
        );
        assert.ok(sent >= count, `${op.id}: sent ${sent} invalid query strings`);
        assertSameDb(dbBefore, await snapshot(api.db), op.id);
      });
    }
  });
}
