// Each table has one owner: only its domain writes it. This reads the source of every process
// (core/, server/, worker/, cli/) for statements that write the tables whose rules matter most
// (a job queued twice or an event fanned out twice is a visible fault) and fails when one appears
// outside the owning domain. A change that writes several tables at once (a new deploy) puts
// together a write plan from the parts each owner gives (core/db/write-plan.ts), so it needs no
// exception here.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { root } from './support/processes.ts';

const OWNERS: Record<string, { folder: string; model: string }> = {
  jobs: { folder: 'core/jobs/', model: 'Job' },
  events: { folder: 'core/events/', model: 'OutboxEvent' },
  deploys: { folder: 'core/deploys/', model: 'Deploy' },
  site_checks: { folder: 'core/checks/', model: 'SiteCheck' },
  site_crawls: { folder: 'core/crawls/', model: 'SiteCrawl' },
  repository_connections: { folder: 'core/connections/', model: 'Connection' },
  repository_deliveries: { folder: 'core/connections/', model: 'RepositoryDelivery' },
  monitor_slots: { folder: 'core/monitoring/', model: 'MonitorSlot' },
  invitations: { folder: 'core/access/', model: 'Invitation' },
  api_keys: { folder: 'core/access/', model: 'ApiKey' },
  passkeys: { folder: 'core/access/', model: 'Passkey' },
  webauthn_challenges: { folder: 'core/access/', model: 'WebAuthnChallenge' },
  sso_settings: { folder: 'core/access/', model: 'SsoSettingsRow' },
  sso_attempts: { folder: 'core/access/', model: 'SsoAttempt' },
  sso_identities: { folder: 'core/access/', model: 'SsoIdentity' },
  search_console_connections: { folder: 'core/search-console/', model: 'SearchConsoleConnection' },
  // No model: SQL text and COPY only (core/search-data).
  search_performance: { folder: 'core/search-data/', model: 'SearchPerformanceRow' },
  search_rollups: { folder: 'core/search-data/', model: 'SearchRollup' },
  search_cube: { folder: 'core/search-data/', model: 'SearchCube' },
  // No models: core/digests writes them with SQL text alone.
  digests: { folder: 'core/digests/', model: 'Digest' },
  digest_preferences: { folder: 'core/digests/', model: 'DigestPreference' },
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
        // A write plan's step (core/db/write-plan.ts) or a retention rule names the table it writes.
        new RegExp(`\\btable:\\s*['"]${table}['"]`),
        new RegExp(`\\b${model}\\.query\\([^)]*\\)[\\s\\S]{0,200}?\\.(insert|patch|update|delete|deleteById|patchAndFetchById|upsertGraph)\\(`),
      ].some((re) => re.test(text)),
    )
    .map(([table]) => table);
}

describe('table owners', () => {
  const files = ['core', 'server', 'worker', 'cli'].flatMap(sources);

  it('jobs, events, deploys, checks and crawls are written only by their own domain', () => {
    const found: Record<string, string[]> = {};
    for (const file of files) {
      const tables = tablesWritten(fs.readFileSync(path.join(root, file), 'utf8')).filter((t) => !file.startsWith(OWNERS[t].folder));
      if (tables.length) found[file] = tables;
    }
    assert.deepEqual(found, {}, 'a table is written outside its owning domain (see OWNERS)');
  });

  it('the scan recognises each form of write it looks for', () => {
    assert.deepEqual(tablesWritten("INSERT INTO jobs (id) VALUES (?)"), ['jobs']);
    assert.deepEqual(tablesWritten("await trx('events')\n  .insert(row)"), ['events']);
    assert.deepEqual(tablesWritten('await Deploy.query(trx).findById(id).patch({ ref })'), ['deploys']);
    assert.deepEqual(tablesWritten("await db('jobs').where({ id }).first()"), []);
    assert.deepEqual(tablesWritten("{ table: 'events', columns: ['id'] }"), ['events']);
  });
});
