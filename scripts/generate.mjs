// Second half of `npm run generate`: the TypeSpec emitter wrote generated/openapi.yaml;
// derive the JSON document (served at /openapi.json, read by the server at start-up) and
// the TypeScript types (openapi-typescript) from it. Never edit generated/ by hand.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import openapiTS, { astToString } from 'openapi-typescript';
import { NodeHost, compile, getDoc, getSummary } from '@typespec/compiler';
import { getExtensions } from '@typespec/openapi';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'generated');
const doc = YAML.parse(fs.readFileSync(path.join(out, 'openapi.yaml'), 'utf8'));

// The events a webhook receives, as OpenAPI 3.1 `webhooks`: one per model of spec/events.tsp
// that declares `x-event`, its body the EventEnvelope with that model as `data`. (The TypeSpec
// emitter has no webhooks section; the models and their docs are written there.)
const SIGNATURE_HEADERS = [
  ['webhook-id', 'The delivery key: the same for every attempt and redelivery of one event (docs/api.md#signing).'],
  ['webhook-timestamp', 'Unix time in seconds when this attempt was signed.'],
  ['webhook-signature', '`v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the webhook\'s secret.'],
];
// The problem codes (enum ProblemCode of spec/common/errors.tsp): the emitter keeps only the enum's
// values, so each value's doc comment (what it means), @summary (the problem's title) and
// extensions (x-status, x-next-step) are read from the compiled spec and written back as the
// JSON Schema idiom for documented values, one `const` per code. The server's /problems/<code>
// pages and the table of docs/api.md#error-codes are made from this, and nothing else.
const problemCodes = await readProblemCodes();
doc.components.schemas.ProblemCode = {
  type: 'string',
  oneOf: problemCodes.map((c) => ({ const: c.code, title: c.title, description: c.description, 'x-status': c.status, 'x-next-step': c.nextStep })),
  description: doc.components.schemas.ProblemCode.description,
};
writeErrorCodesTable(problemCodes);

const events = Object.entries(doc.components.schemas).filter(([, schema]) => typeof schema['x-event'] === 'string');
if (events.length > 0) {
  doc.webhooks = Object.fromEntries(
    events.map(([name, schema]) => [
      schema['x-event'],
      {
        post: {
          operationId: `event_${schema['x-event'].replace(/[^a-z0-9]+/g, '_')}`,
          summary: schema['x-event'],
          description: schema.description,
          tags: ['Webhook events'],
          parameters: SIGNATURE_HEADERS.map(([header, description]) => ({ name: header, in: 'header', required: true, description, schema: { type: 'string' } })),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  allOf: [
                    { $ref: '#/components/schemas/EventEnvelope' },
                    { type: 'object', properties: { type: { const: schema['x-event'] }, data: { $ref: `#/components/schemas/${name}` } } },
                  ],
                },
              },
            },
          },
          responses: {
            '200': { description: 'Any 2xx answer acknowledges the delivery; anything else, or no answer within the timeout, is retried (docs/api.md#retries-and-pausing).' },
          },
        },
      },
    ]),
  );
}
fs.writeFileSync(path.join(out, 'openapi.yaml'), YAML.stringify(doc, { lineWidth: 0 }));
fs.writeFileSync(path.join(out, 'openapi.json'), JSON.stringify(doc, null, 2) + '\n');

// openapi-typescript does not read `unevaluatedProperties`, which TypeSpec emits for maps
// (Record<T>). On a schema with no properties or composition the two keywords mean the same,
// so the copy handed to the type generator spells maps with `additionalProperties`.
function mapsAsAdditionalProperties(node) {
  if (Array.isArray(node)) return node.map(mapsAsAdditionalProperties);
  if (!node || typeof node !== 'object') return node;
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, mapsAsAdditionalProperties(v)]));
  const isMap = 'unevaluatedProperties' in out && !out.properties && !out.allOf && !out.anyOf && !out.oneOf;
  if (isMap && typeof out.unevaluatedProperties === 'object' && Object.keys(out.unevaluatedProperties).length > 0) {
    out.additionalProperties = out.unevaluatedProperties;
    delete out.unevaluatedProperties;
  } else if (isMap) {
    out.additionalProperties = true;
    delete out.unevaluatedProperties;
  }
  return out;
}

// Fields with a schema default stay optional in request types: the server fills them in.
// Without the webhooks section: those are operations our receivers' servers implement, not ours
// (their bodies' types are the components).
const { webhooks: _webhooks, ...served } = doc;
const ast = await openapiTS(mapsAsAdditionalProperties(served), { alphabetize: false, exportType: false, defaultNonNullable: false });
const banner = '// Generated by `npm run generate` from spec/ (TypeSpec -> OpenAPI -> openapi-typescript). Do not edit.\n\n';

// The query parameters each operation gives a default: optional to a caller, yet always present
// once the server's validation has filled them in, so handlers see them as required.
const queryDefaults = [];
for (const item of Object.values(doc.paths)) {
  for (const op of Object.values(item)) {
    if (!op || typeof op !== 'object' || !op.operationId) continue;
    const names = (op.parameters ?? []).filter((p) => p.in === 'query' && p.schema && 'default' in p.schema).map((p) => JSON.stringify(p.name));
    if (names.length) queryDefaults.push(`    ${op.operationId}: ${names.join(' | ')};`);
  }
}
const defaultsType = `\n/** Query parameters with a default, per operation: filled in by the server before a handler runs. */\nexport interface operationQueryDefaults {\n${queryDefaults.join('\n')}\n}\n`;
fs.writeFileSync(path.join(out, 'types.ts'), banner + astToString(ast) + defaultsType);
console.log('generated/openapi.yaml, generated/openapi.json, generated/types.ts, docs/api.md#error-codes');

/** Every member of spec's ProblemCode with what its decorators and doc comment say, in spec order. */
async function readProblemCodes() {
  const program = await compile(NodeHost, path.join(root, 'spec', 'main.tsp'), { noEmit: true });
  const errors = program.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length) throw new Error(`spec/ does not compile: ${errors.map((d) => d.message).join('; ')}`);
  const codes = program.getGlobalNamespaceType().namespaces.get('SiteHealth')?.enums.get('ProblemCode');
  if (!codes) throw new Error('spec/ declares no enum SiteHealth.ProblemCode');
  return [...codes.members.values()].map((member) => {
    const ext = getExtensions(program, member);
    const entry = {
      code: member.name,
      status: ext.get('x-status'),
      title: getSummary(program, member),
      description: getDoc(program, member),
      nextStep: ext.get('x-next-step'),
    };
    if (!Number.isInteger(entry.status) || !entry.title || !entry.description || typeof entry.nextStep !== 'string') {
      throw new Error(`ProblemCode.${member.name} (spec/common/errors.tsp) needs a doc comment, @summary, x-status and x-next-step`);
    }
    return entry;
  });
}

/**
 * The table of docs/api.md#error-codes, between its markers, from the same entries: the page
 * that explains the API in prose lists exactly the codes the document does.
 */
function writeErrorCodesTable(codes) {
  const file = path.join(root, 'docs', 'api.md');
  const START = '<!-- error-codes: generated by `npm run generate` from ProblemCode in spec/common/errors.tsp; edit it there -->';
  const END = '<!-- /error-codes -->';
  const md = fs.readFileSync(file, 'utf8');
  const from = md.indexOf(START);
  const to = md.indexOf(END);
  if (from < 0 || to < from) throw new Error(`docs/api.md has no ${START} ... ${END} markers`);
  const cell = (text) => text.replace(/\s*\n\s*/g, ' ').replaceAll('|', '\\|');
  const rows = [...codes].sort((a, b) => a.status - b.status).map((c) => `| ${c.status} | \`${c.code}\` | ${cell(c.description)} | ${cell(c.nextStep)} |`);
  const table = ['| status | code | when | what to do |', '|---|---|---|---|', ...rows].join('\n');
  const next = md.slice(0, from) + START + '\n' + table + '\n' + md.slice(to);
  if (next !== md) fs.writeFileSync(file, next);
}
