// core/db relies on a few of knex's private parts, all in core/db/knex-adapter.ts: the
// better-sqlite3 dialect class it extends, the pooled client's connection lending and 'query'
// event, a transaction's completion promise and the client's configuration. knex is pinned
// exactly in package.json; this test fails when an upgrade moves or renames any of them, before
// anything else does, and when code outside the adapter reaches for them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, it } from 'node:test';
import path from 'node:path';
import type { Knex } from 'knex';
import { INSTALLED_KNEX_VERSION, createDb, missingKnexInternals, runSql, withConnection, withTransaction } from '../core/db/index.ts';
import { root } from './support/processes.ts';
import { engines, freshDb, freshDatabaseUrl, dropCreatedDatabases } from './support/databases.ts';

after(dropCreatedDatabases);

describe('knex internals core/db relies on', () => {
  it('knex is pinned exactly, and the installed version is the pinned one', () => {
    const wanted = (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> }).dependencies.knex;
    assert.match(wanted, /^\d+\.\d+\.\d+$/, 'package.json pins knex to one version');
    assert.equal(INSTALLED_KNEX_VERSION, wanted);
  });

  it('the installed knex has every private method the adapter overrides or calls', () => {
    assert.deepEqual(missingKnexInternals(), []);
  });

  it('only core/db/knex-adapter.ts imports knex internals or handles knex clients, tests and benchmarks included', () => {
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const rel = path.posix.join(dir, entry.name);
        if (entry.isDirectory()) walk(rel);
        else if (entry.name.endsWith('.ts') && rel !== 'core/db/knex-adapter.ts' && rel !== 'test/knex-internals.test.ts') {
          const text = fs.readFileSync(path.join(root, rel), 'utf8');
          if (/knex\/lib\/|\.client\b\s*(as\b|\))|acquireConnection\(|releaseConnection\(|acquireRawConnection|\b_query\b|executionPromise|Knex\.Client\b/.test(text)) offenders.push(rel);
        }
      }
    };
    for (const dir of ['core', 'server', 'worker', 'cli', 'admin', 'bench', 'test']) walk(dir);
    assert.deepEqual(offenders, []);
  });

  for (const engine of engines()) {
    it(`${engine}: the pooled client lends connections and announces statements`, async () => {
      const { db } = await freshDb(engine);
      try {
        assert.ok(await withConnection(db, (conn) => conn));
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

    it(`${engine}: a statement for a finished transaction is refused, never sent on the connection the pool lent since`, async () => {
      // One connection, so the next transaction is certain to get the finished one's.
      const db = createDb(await freshDatabaseUrl(engine), { pool: { max: 1 } });
      try {
        await db.schema.createTable('late_rows', (t) => t.integer('n'));
        let finished: Knex.Transaction | undefined;
        await withTransaction(db, async (trx) => {
          finished = trx;
        });
        await assert.rejects(
          withTransaction(db, async (trx) => {
            await runSql(trx, 'INSERT INTO late_rows (n) VALUES (?)', [1]);
            await assert.rejects(runSql(finished!, 'INSERT INTO late_rows (n) VALUES (?)', [2], { prepared: 'late_rows_insert' }), /already complete/);
            await assert.rejects(withConnection(finished!, (conn) => conn), /already complete/);
            throw new Error('rolled back');
          }),
          /rolled back/,
        );
        assert.deepEqual(await db('late_rows').select('n'), [], 'nothing ran in the transaction that had the connection');
      } finally {
        await db.destroy();
      }
    });
  }
});
