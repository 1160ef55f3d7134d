import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// core/ is one folder per domain; a domain's index.ts is its public face. Code outside a domain
// (another domain, the server, the worker, the CLI, tests) imports only that index, so a
// domain's files can change without reaching into everyone else.
const domainBoundaries = {
  meta: { type: 'problem', messages: { internal: "Import '{{target}}' through core/{{domain}}/index.ts: it is internal to the {{domain}} domain." } },
  create(context) {
    const root = path.resolve(import.meta.dirname, 'core');
    const from = context.filename;
    const domainOf = (file) => {
      const rel = path.relative(root, file);
      return rel.startsWith('..') || path.isAbsolute(rel) ? null : rel.split(path.sep)[0];
    };
    const check = (node) => {
      const spec = node.source?.value;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = path.resolve(path.dirname(from), spec);
      const domain = domainOf(target);
      if (!domain || domain === domainOf(from)) return;
      if (path.relative(path.join(root, domain), target) === 'index.ts') return;
      context.report({ node: node.source, messageId: 'internal', data: { target: spec, domain } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

export default tseslint.config(
  { ignores: ['node_modules/', 'generated/', 'data/', '.tmp/', 'sdk/dist/', 'cli/dist/', 'bench/results/', '.bench-peers/', 'bench/peers/'] /* the peers' yardstick code, kept as they write it */ },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { sitehealth: { rules: { 'domain-boundaries': domainBoundaries } } },
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', fetch: 'readonly', performance: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', Headers: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'sitehealth/domain-boundaries': 'error',
      // Transactions open through core/db's withTransaction (immediate on SQLite, retried on
      // PostgreSQL serialization failures); a bare knex `.transaction()` would skip both.
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.property.name='transaction']", message: 'Open transactions with withTransaction from core/db/index.ts.' },
      ],
    },
  },
  { files: ['core/db/transaction.ts', 'core/db/migrate.ts', 'core/db/migrations/**', 'test/**', 'bench/**', 'sdk/**', 'cli/**'], rules: { 'no-restricted-syntax': 'off' } },
  // Tests read loosely typed JSON bodies; `any` there keeps assertions readable. Everywhere else
  // types come from the document or are spelt out.
  { files: ['test/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
