// core/db relies on a few of knex's private parts, all in core/db/knex-adapter.ts: the
// better-sqlite3 dialect class it extends, the pooled client's connection lending and 'query'
// event, a transaction's completion promise and the client's configuration. knex is pinned
// exactly in package.json; this test fails when an upgrade moves or renames any of them, before
// anything else does, and when code outside the adapter reaches for them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { after, describe, it } from 'node:test';
import path from 'node:path';
import { runSql } from '../core/db/index.ts';
import { root } from './support/processes.ts';
import { engines, freshDb, dropCreatedDatabases } from './support/databases.ts';

const require = createRequire(import.meta.url);
after(dropCreatedDatabases);

describe('knex internals core/db relies on', () => {
  it('knex is pinned exactly, and the installed version is the pinned one', () => {
    const wanted = (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> }).dependencies.knex;
    assert.match(wanted, /^\d+\.\d+\.\d+$/, 'package.json pins knex to one version');
    assert.equal((require('knex/package.json') as { version: string }).version, wanted);
  });

  it('the better-sqlite3 dialect class has the methods sqlite-client.ts overrides', () => {
    const Dialect = require('knex/lib/dialects/better-sqlite3/index.js') as { prototype: Record<string, unknown> };
    for (const method of ['destroy', 'acquireRawConnection', '_query']) assert.equal(typeof Dialect.prototype[method], 'function', method);
  });

  it('only core/db/knex-adapter.ts imports knex internals or handles knex clients', () => {
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const rel = path.posix.join(dir, entry.name);
        if (entry.isDirectory()) walk(rel);
        else if (entry.name.endsWith('.ts') && rel !== 'core/db/knex-adapter.ts') {
          const text = fs.readFileSync(path.join(root, rel), 'utf8');
          if (/knex\/lib\/|\.client\b\s*(as\b|\))|acquireConnection\(|releaseConnection\(|executionPromise/.test(text)) offenders.push(rel);
        }
      }
    };
    for (const dir of ['core', 'server', 'worker', 'cli']) walk(dir);
    assert.deepEqual(offenders, []);
  });

  for (const engine of engines()) {
    it(`${engine}: the pooled client lends connections and announces statements`, async () => {
      const { db } = await freshDb(engine);
      try {
        const client = db.client as unknown as { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<void>; on(e: string, f: (q: { sql: string }) => void): void; off(e: string, f: unknown): void };
        const conn = await client.acquireConnection();
        assert.ok(conn);
        await client.releaseConnection(conn);
        const seen: string[] = [];
        const listen = (q: { sql: string }) => seen.push(q.sql);
        db.on('query', listen);
        await runSql(db, 'SELECT 1 AS one');
        db.off('query', listen);
        assert.deepEqual(seen, ['SELECT 1 AS one']);
      } finally {
        await db.destroy();
      }
    });
  }
});
