// Each table has one owner: only its domain writes it. This reads the source of every process
// (core/, server/, worker/, cli/) for statements that write the tables whose rules matter most
// (a job queued twice or an event fanned out twice is a visible fault) and fails when one appears
// outside the owning domain. The writes listed in KNOWN are the ones still to move behind their
// owners (the deploy write plan); the list may only shrink.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { root } from './support/processes.ts';

const OWNERS: Record<string, { folder: string; model: string }> = {
  jobs: { folder: 'core/jobs/', model: 'Job' },
  events: { folder: 'core/events/', model: 'OutboxEvent' },
  deploys: { folder: 'core/deploys/', model: 'Deploy' },
};

/** Writes outside their owner that exist today, file -> tables. Remove entries as they move. */
const KNOWN: Record<string, string[]> = {
  'core/deploys/record.ts': ['jobs', 'events'],
};

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (rel !== 'core/db/migrations') out.push(...sources(rel));
    } else if (entry.name.endsWith('.ts')) out.push(rel);
  }
  return out;
}

/** The tables of OWNERS that a file's text writes: SQL text, the knex builder or the model. */
function tablesWritten(text: string): string[] {
  return Object.entries(OWNERS)
    .filter(([table, { model }]) =>
      [
        new RegExp(`\\b(INSERT\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+${table}\\b`, 'i'),
        new RegExp(`\\(\\s*['"]${table}['"]\\s*\\)\\s*\\.\\s*(insert|update|del|delete|increment|decrement)\\b`),
        new RegExp(`\\b${model}\\.query\\([^)]*\\)[\\s\\S]{0,200}?\\.(insert|patch|update|delete|deleteById|patchAndFetchById|upsertGraph)\\(`),
      ].some((re) => re.test(text)),
    )
    .map(([table]) => table);
}

describe('table owners', () => {
  const files = ['core', 'server', 'worker', 'cli'].flatMap(sources);

  it('jobs, events and deploys are written only by their own domain (and the writes still to move)', () => {
    const found: Record<string, string[]> = {};
    for (const file of files) {
      const tables = tablesWritten(fs.readFileSync(path.join(root, file), 'utf8')).filter((t) => !file.startsWith(OWNERS[t].folder));
      if (tables.length) found[file] = tables;
    }
    assert.deepEqual(found, KNOWN, 'a table is written outside its owning domain (see OWNERS)');
  });

  it('the scan recognises each form of write it looks for', () => {
    assert.deepEqual(tablesWritten("INSERT INTO jobs (id) VALUES (?)"), ['jobs']);
    assert.deepEqual(tablesWritten("await trx('events')\n  .insert(row)"), ['events']);
    assert.deepEqual(tablesWritten('await Deploy.query(trx).findById(id).patch({ ref })'), ['deploys']);
    assert.deepEqual(tablesWritten("await db('jobs').where({ id }).first()"), []);
  });
});
