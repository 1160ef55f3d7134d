import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDb, type Db } from '../core/db/index.ts';
import { engines, freshDatabaseUrl, dropCreatedDatabases } from './support/databases.ts';
import { authenticateKey, hashKey, looksLikeKey } from '../core/access/index.ts';
import { createWorkspace } from '../core/workspaces/index.ts';
import { DomainError } from '../core/platform/index.ts';
import { main } from '../admin/admin.ts';

// The CLI's `main` (admin/admin.ts), exactly what `npm run admin --` runs, called in this process
// with its output captured: a cold start of node and tsx costs about a CPU-second, and a story of
// thirty commands per engine does not need thirty of them. What only the real program shows (the
// exit code, stdout holding one JSON line and nothing else, stderr) is asserted on real processes
// in 'admin CLI: as a program'. Each per-engine flow is one story over one database.

after(dropCreatedDatabases);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** One invocation in this process: main's exit code, and what it wrote to each stream. */
async function admin(databaseUrl: string, ...args: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { ...process.env, DATABASE_URL: databaseUrl }, { out: (t) => (stdout += `${t}\n`), err: (t) => (stderr += `${t}\n`) });
  return { code, stdout, stderr };
}

/** The same as a real process, as an operator runs it. */
function adminProcess(databaseUrl: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'admin/admin.ts', ...args],
      { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl }, timeout: 90_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs with --json and returns the single JSON object printed on stdout. */
async function adminJson(databaseUrl: string, ...args: string[]): Promise<Record<string, unknown>> {
  const r = await admin(databaseUrl, ...args, '--json');
  assert.equal(r.code, 0, `admin ${args.join(' ')} failed: ${r.stderr}`);
  assert.equal(r.stdout.trim().split('\n').length, 1, `one line of JSON expected, got: ${r.stdout}`);
  const value: unknown = JSON.parse(r.stdout);
  assert.ok(value && typeof value === 'object' && !Array.isArray(value));
  return value as Record<string, unknown>;
}

function keysOf(o: object): string[] {
  return Object.keys(o).sort();
}

describe('admin CLI: usage', () => {
  let url: string;
  before(async () => {
    url = await freshDatabaseUrl('sqlite');
  });

  test('--help, globally and per command, exits 0 with usage on stdout', async () => {
    const [global, command, group] = await Promise.all([
      admin(url, '--help'),
      admin(url, 'keys', 'create', '--help'),
      admin(url, 'members', '--help'),
    ]);
    for (const r of [global, command, group]) assert.equal(r.code, 0, r.stderr);
    for (const name of ['bootstrap', 'users create', 'users list', 'members add', 'members remove', 'keys create', 'keys revoke', 'keys list', 'accounts set-limit']) {
      assert.ok(global.stdout.includes(name), name);
    }
    assert.match(command.stdout, /--scopes/);
    assert.match(group.stdout, /members add/);
  });

  // Usage errors are caught before the database is opened, so they need no engine.
  const uuid = '01939999-0000-7000-8000-000000000001';
  const cases: Array<[string, string[], RegExp]> = [
    ['no command', [], /no command/],
    ['unknown command', ['frobnicate'], /unknown command "frobnicate"/],
    ['unknown subcommand', ['keys', 'rotate'], /unknown command "keys rotate"/],
    ['unknown flag', ['users', 'create', '--email', 'a@example.com', '--admin'], /--admin/],
    ['missing flag', ['members', 'add', '--workspace', uuid, '--user', uuid], /--role is required/],
    ['bad role', ['members', 'add', '--workspace', uuid, '--user', uuid, '--role', 'root'], /--role must be one of owner, admin, member, viewer/],
    ['bad scope', ['keys', 'create', '--user', uuid, '--scopes', 'deploys,admin'], /Unknown scope admin/],
    ['empty scopes', ['keys', 'create', '--user', uuid, '--scopes', ','], /At least one scope/],
    ['bad uuid', ['keys', 'revoke', '--id', 'k_123'], /--id must be a UUID/],
    ['bad limit', ['accounts', 'set-limit', '--account', uuid, '--workspaces', '0'], /positive integer/],
    ['bad email', ['bootstrap', '--email', 'nobody'], /--email must be an email address/],
    ['half a workspace', ['bootstrap', '--email', 'a@example.com', '--website', 'https://x.example'], /go together/],
  ];
  test('usage and validation errors exit 1 with the message on stderr and nothing on stdout', async () => {
    const runs: Run[] = [];
    for (const [, args] of cases) runs.push(await admin(url, ...args, '--json'));
    cases.forEach(([label, , message], i) => {
      assert.equal(runs[i].code, 1, `${label}: exit code (stderr: ${runs[i].stderr})`);
      assert.match(runs[i].stderr, message, label);
      assert.equal(runs[i].stdout, '', label);
    });
  });
});

describe('admin CLI: as a program', () => {
  test('exit codes and streams of the real process: help on stdout, a usage error on stderr, one JSON line, a domain error', async () => {
    const url = await freshDatabaseUrl('sqlite');
    const [help, usage] = await Promise.all([adminProcess(url, '--help'), adminProcess(url, 'keys', 'revoke', '--id', 'k_123', '--json')]);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /Usage: npm run admin -- <command>/);
    assert.equal(help.stderr, '');
    assert.equal(usage.code, 1);
    assert.match(usage.stderr, /--id must be a UUID/);
    assert.equal(usage.stdout, '');

    const boot = await adminProcess(url, 'bootstrap', '--email', 'program@example.com', '--json');
    assert.equal(boot.code, 0, boot.stderr);
    assert.equal(boot.stdout.split('\n').filter(Boolean).length, 1, `one line of JSON: ${boot.stdout}`);
    assert.ok(looksLikeKey(JSON.parse(boot.stdout).apiKey));
    const dup = await adminProcess(url, 'users', 'create', '--email', 'PROGRAM@example.com', '--json');
    assert.equal(dup.code, 1);
    assert.match(dup.stderr, /already exists/);
    assert.equal(dup.stdout, '');
  });
});

for (const engine of engines()) {
  describe(`admin CLI (${engine})`, () => {
    let url: string;
    let db: Db;
    before(async () => {
      url = await freshDatabaseUrl(engine);
    });
    after(async () => {
      await db?.destroy();
    });

    // Filled in by the steps below, in order.
    let accountId: string;
    let ownerId: string;
    let workspaceId: string;
    let bootstrapKey: string;
    let devId: string;
    let boundKey: { id: string; apiKey: string };

    test('bootstrap with a workspace', async () => {
      // First call alone: it runs the migrations.
      const out = await adminJson(url, 'bootstrap', '--email', 'Owner@Example.com', '--workspace-name', 'Ops Team', '--website', 'https://ops.example');
      assert.deepEqual(keysOf(out), ['accountId', 'apiKey', 'userId', 'workspaceId']);
      for (const k of ['accountId', 'userId', 'workspaceId']) assert.match(String(out[k]), UUID, k);
      assert.ok(looksLikeKey(out.apiKey));
      ({ accountId, userId: ownerId, workspaceId, apiKey: bootstrapKey } = out as Record<string, string>);

      db = createDb(url);
      const ws = await db('workspaces').where({ id: workspaceId }).first();
      assert.equal(ws.slug, 'ops-team');
      assert.equal(ws.account_id, accountId);
      assert.deepEqual(await db('memberships').where({ workspace_id: workspaceId }).select('user_id', 'role'), [{ user_id: ownerId, role: 'owner' }]);
      const auth = (await authenticateKey(db, bootstrapKey))?.auth;
      assert.deepEqual(auth?.scopes, ['deploys', 'search', 'workspaces', 'webhooks', 'keys']);
      assert.equal(auth?.workspaceId, null);
      assert.equal(auth?.accountId, accountId);
    });

    test('bootstrap without a workspace, users create with and without --account', async () => {
      const [alone, dev, loner] = await Promise.all([
        adminJson(url, 'bootstrap', '--email', 'solo@example.com'),
        adminJson(url, 'users', 'create', '--email', 'dev@example.com', '--account', accountId),
        adminJson(url, 'users', 'create', '--email', 'loner@example.com'),
      ]);
      assert.deepEqual(keysOf(alone), ['accountId', 'apiKey', 'userId', 'workspaceId']);
      assert.equal(alone.workspaceId, null);
      assert.ok(looksLikeKey(alone.apiKey));
      assert.notEqual(alone.accountId, accountId);

      assert.deepEqual(keysOf(dev), ['accountId', 'userId']);
      assert.equal(dev.accountId, accountId);
      devId = dev.userId as string;
      assert.match(devId, UUID);
      assert.match(String(loner.accountId), UUID);
      assert.notEqual(loner.accountId, accountId);
      assert.equal((await db('accounts').where({ id: loner.accountId }).first()).workspace_limit, 10);

      const dup = await admin(url, 'users', 'create', '--email', 'DEV@example.com', '--json');
      assert.equal(dup.code, 1);
      assert.match(dup.stderr, /already exists/);
      assert.equal(dup.stdout, '');
    });

    test('members add, then add again with another role', async () => {
      const joined = await adminJson(url, 'members', 'add', '--workspace', workspaceId, '--user', devId, '--role', 'viewer');
      assert.deepEqual(joined, { workspaceId, userId: devId, role: 'viewer' });
      const changed = await adminJson(url, 'members', 'add', '--workspace', workspaceId, '--user', devId, '--role', 'admin');
      assert.deepEqual(changed, { workspaceId, userId: devId, role: 'admin' });
      assert.equal((await db('memberships').where({ workspace_id: workspaceId, user_id: devId }).first()).role, 'admin');

      const rows = await db('activity').where({ target_id: devId }).orderBy('id');
      assert.deepEqual(
        rows.map((r) => [r.kind, r.action, r.workspace_id, r.account_id, JSON.parse(r.details)]),
        [
          ['security', 'member.joined', workspaceId, accountId, { email: 'dev@example.com', role: 'viewer' }],
          ['security', 'member.role_changed', workspaceId, accountId, { email: 'dev@example.com', from: 'viewer', to: 'admin' }],
        ],
      );

      const missing = await admin(url, 'members', 'add', '--workspace', '01939999-0000-7000-8000-000000000001', '--user', devId, '--role', 'viewer', '--json');
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /does not exist/);
    });

    test('keys create: shown once, stored hashed, bound key needs a membership', async () => {
      const out = await adminJson(url, 'keys', 'create', '--user', devId, '--scopes', 'search,deploys', '--workspace', workspaceId, '--name', 'CI');
      assert.deepEqual(keysOf(out), ['apiKey', 'id', 'scopes', 'workspaceId']);
      assert.deepEqual(out.scopes, ['deploys', 'search']);
      assert.equal(out.workspaceId, workspaceId);
      assert.ok(looksLikeKey(out.apiKey));
      boundKey = { id: out.id as string, apiKey: out.apiKey as string };

      // The raw key appears nowhere in the database; the row holds its SHA-256 and a hint.
      const row = await db('api_keys').where({ id: boundKey.id }).first();
      assert.equal(row.key_hash, hashKey(boundKey.apiKey));
      assert.equal(row.key_hint, boundKey.apiKey.slice(0, 8));
      for (const table of ['api_keys', 'activity']) {
        for (const r of await db(table)) {
          for (const key of [boundKey.apiKey, bootstrapKey]) assert.ok(!JSON.stringify(r).includes(key), `${table} holds a raw key`);
        }
      }

      const auth = (await authenticateKey(db, boundKey.apiKey))?.auth;
      assert.deepEqual(auth && { ...auth, keyName: undefined }, {
        credential: 'api_key', keyId: boundKey.id, userId: devId, accountId, workspaceId, scopes: ['deploys', 'search'], keyName: undefined, expiresAt: null,
      });

      // Bound key: row about the workspace; the bootstrap key (unbound): account-level row.
      const created = await db('activity').where({ action: 'api_key.created' }).whereIn('target_id', [boundKey.id, auth!.keyId]);
      assert.deepEqual(created.map((r) => [r.kind, r.workspace_id, r.account_id]), [['security', workspaceId, accountId]]);
      const unbound = await db('activity').where({ action: 'api_key.created', account_id: accountId }).whereNull('workspace_id');
      assert.equal(unbound.length, 1);
      assert.equal(JSON.parse(unbound[0].details).user_id, ownerId);

      const other = await adminJson(url, 'users', 'create', '--email', 'outsider@example.com');
      const refused = await admin(url, 'keys', 'create', '--user', String(other.userId), '--scopes', 'deploys', '--workspace', workspaceId, '--json');
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /not a member/);
      assert.equal(refused.stdout, '');
    });

    test('keys revoke makes authenticateKey return null', async () => {
      const out = await adminJson(url, 'keys', 'revoke', '--id', boundKey.id);
      assert.deepEqual(keysOf(out), ['id', 'revokedAt']);
      assert.equal(out.id, boundKey.id);
      assert.match(String(out.revokedAt), ISO_MS);
      assert.equal(await authenticateKey(db, boundKey.apiKey), null);
      const row = await db('activity').where({ action: 'api_key.revoked', target_id: boundKey.id }).first();
      assert.equal(row.workspace_id, workspaceId);
      assert.equal(row.account_id, accountId);
    });

    test('users list and keys list find ids again, never a key\'s secret', async () => {
      const users = (await adminJson(url, 'users', 'list', '--account', accountId)).users as Array<Record<string, unknown>>;
      assert.ok(users.some((u) => u.id === ownerId && u.email === 'owner@example.com'));
      for (const u of users) assert.deepEqual(keysOf(u), ['accountId', 'createdAt', 'email', 'id']);
      const byEmail = (await adminJson(url, 'users', 'list', '--email', 'OWNER@example.com')).users as Array<Record<string, unknown>>;
      assert.deepEqual(byEmail.map((u) => u.id), [ownerId]);

      const listed = await admin(url, 'keys', 'list', '--account', accountId, '--json');
      assert.equal(listed.code, 0, listed.stderr);
      assert.ok(!listed.stdout.includes(bootstrapKey) && !listed.stdout.includes(boundKey.apiKey), 'no secret is printed');
      const keys = (JSON.parse(listed.stdout) as { keys: Array<Record<string, unknown>> }).keys;
      const revoked = keys.find((k) => k.id === boundKey.id)!;
      assert.match(String(revoked.revokedAt), ISO_MS);
      assert.equal(revoked.workspaceId, workspaceId);
      assert.equal(revoked.hint, boundKey.apiKey.slice(0, String(revoked.hint).length));
      assert.deepEqual(keysOf(revoked), ['createdAt', 'hint', 'id', 'lastUsedAt', 'name', 'revokedAt', 'scopes', 'userId', 'workspaceId']);
      const both = await admin(url, 'keys', 'list', '--user', ownerId, '--account', accountId);
      assert.equal(both.code, 1);
      assert.match(both.stderr, /--user or --account, not both/);
    });

    test('members remove writes member.left', async () => {
      const out = await adminJson(url, 'members', 'remove', '--workspace', workspaceId, '--user', devId);
      assert.deepEqual(out, { workspaceId, userId: devId });
      assert.equal(await db('memberships').where({ workspace_id: workspaceId, user_id: devId }).first(), undefined);
      const row = await db('activity').where({ action: 'member.left', target_id: devId }).first();
      assert.equal(row.workspace_id, workspaceId);
      assert.equal(row.account_id, accountId);
      assert.equal(JSON.parse(row.details).role, 'admin');
    });

    test('workspace limit, then accounts set-limit makes room', async () => {
      const limited = await adminJson(url, 'accounts', 'set-limit', '--account', accountId, '--workspaces', '1');
      assert.deepEqual(limited, { accountId, workspaceLimit: 1 });
      await assert.rejects(
        createWorkspace(db, { accountId, userId: ownerId, input: { name: 'Second', website: 'https://two.example' } }),
        (err: unknown) => err instanceof DomainError && err.status === 402,
      );

      // Human output: short text, no JSON.
      const raised = await admin(url, 'accounts', 'set-limit', '--account', accountId, '--workspaces', '2');
      assert.equal(raised.code, 0, raised.stderr);
      assert.match(raised.stdout, /may now hold 2 workspace/);
      const second = await createWorkspace(db, { accountId, userId: ownerId, input: { name: 'Second', website: 'https://two.example' } });
      assert.equal(second.slug, 'second');

      const billing = await db('activity').where({ kind: 'billing', account_id: accountId }).orderBy('id');
      assert.deepEqual(
        billing.map((r) => [r.action, r.workspace_id, JSON.parse(r.details)]),
        [
          ['workspace_limit.changed', null, { from: 10, to: 1 }],
          ['workspace_limit.reached', null, { limit: 1, workspaces: 1, user_id: ownerId }],
          ['workspace_limit.changed', null, { from: 1, to: 2 }],
        ],
      );
    });
  });
}
