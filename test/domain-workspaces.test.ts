import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Db } from '../core/db/index.ts';
import { engines, freshDb, dropCreatedDatabases } from './support/databases.ts';
import { WorkspaceGuard, createApiKey, createUser, setWorkspaceLimit } from '../core/access/index.ts';
import { isUniqueViolation } from '../core/db/index.ts';
import { webhookPaused } from '../core/activity/index.ts';
import { DomainError } from '../core/platform/index.ts';
import {
  createWorkspace,
  deleteWorkspace,
  isBcp47,
  isIanaTimezone,
  isIsoCountry,
  listWorkspaces,
  slugify,
  updateWorkspace,
  workspaceToApi,
} from '../core/workspaces/index.ts';

after(dropCreatedDatabases);

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function domainError(status: number, code: string) {
  return (err: unknown) => {
    assert.ok(err instanceof DomainError, `expected a DomainError, got ${String(err)}`);
    assert.equal(err.status, status);
    assert.equal(err.code, code);
    return true;
  };
}

describe('slugify', () => {
  const cases: Array<[string, string]> = [
    ['Acme Marketing', 'acme-marketing'],
    ['Café Crème', 'cafe-creme'],
    ['  --Hello,   World!!-- ', 'hello-world'],
    ['Straße Ærøskøbing Łódź', 'strasse-aeroskobing-lodz'],
    ['ＡＢＣ １２３', 'abc-123'],
    ['İstanbul', 'istanbul'],
    ['Ünïcødé Café', 'unicode-cafe'],
    ['Привет мир', 'privet-mir'],
    ['日本語', 'ri-ben-yu'],
    ['مرحبا', 'mrhb'],
    ['🚀', 'rocket'],
    ['a'.repeat(100), 'a'.repeat(64)],
    // Cut at 64, then the dangling separator goes.
    [`${'a'.repeat(63)} b`, 'a'.repeat(63)],
  ];
  for (const [name, slug] of cases) {
    test(`${JSON.stringify(name.slice(0, 30))} -> ${slug.slice(0, 30)}`, () => assert.equal(slugify(name), slug));
  }
  test('a name with nothing usable gets workspace- and 6 random characters, never the same twice', () => {
    const slugs = ['!!!', '', '¿?', '!!!'].map(slugify);
    for (const slug of slugs) assert.match(slug, /^workspace-[a-z0-9]{6}$/);
    assert.equal(new Set(slugs).size, slugs.length);
  });
});

describe('field validators', () => {
  test('isIanaTimezone', () => {
    for (const tz of ['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Etc/UTC', 'Asia/Calcutta']) assert.ok(isIanaTimezone(tz), tz);
    for (const tz of ['', 'Mars/Olympus', '+01:00', 'Europe/Berlin ', 42, null]) assert.ok(!isIanaTimezone(tz), String(tz));
  });
  test('isBcp47', () => {
    for (const t of ['en', 'pt-BR', 'zh-Hant-TW', 'de-CH-1996']) assert.ok(isBcp47(t), t);
    for (const t of ['', 'en_US', 'x', 'abcdefghi', 'en--us', 7]) assert.ok(!isBcp47(t), String(t));
  });
  test('isIsoCountry: assigned codes only, any case', () => {
    for (const c of ['DE', 'us', 'AX', 'SS']) assert.ok(isIsoCountry(c), c);
    for (const c of ['EU', 'UN', 'XK', 'ZZ', 'UK', 'D', 'DEU', '']) assert.ok(!isIsoCountry(c), c);
  });
});

for (const engine of engines()) {
  describe(`workspaces domain (${engine})`, () => {
    let db: Db;
    before(async () => {
      ({ db } = await freshDb(engine));
    });
    after(async () => {
      await db.destroy();
    });

    let n = 0;
    async function newUser(accountId?: string) {
      return createUser(db, `user${++n}@example.com`, accountId);
    }

    test('defaults, owner membership and the member.joined row', async () => {
      const u = await newUser();
      const ws = await createWorkspace(db, { accountId: u.accountId, userId: u.userId, input: { name: 'Defaults Inc', website: 'https://d.example' } });
      const api = workspaceToApi(ws);
      assert.deepEqual(Object.keys(api).sort(), [
        'check_schedule', 'check_time', 'country', 'crawl_schedule', 'created_at', 'description', 'id', 'language', 'logo', 'name', 'render_preset', 'slug', 'timezone', 'type', 'updated_at', 'website',
      ]);
      assert.equal(api.slug, 'defaults-inc');
      assert.equal(api.type, 'PERSONAL');
      assert.equal(api.timezone, 'UTC');
      assert.deepEqual([api.check_schedule, api.check_time, api.crawl_schedule], ['daily', '06:00', 'weekly']);
      assert.equal(api.render_preset, 'mobile');
      assert.equal(api.language, 'en');
      assert.equal(api.logo, null);
      assert.equal(api.country, null);
      assert.equal(api.description, null);
      assert.match(api.created_at, ISO_MS);
      assert.equal(api.created_at, api.updated_at);

      const m = await db('memberships').where({ workspace_id: ws.id }).select('user_id', 'role');
      assert.deepEqual(m, [{ user_id: u.userId, role: 'owner' }]);
      const rows = await db('activity').where({ workspace_id: ws.id });
      assert.equal(rows.length, 1);
      assert.equal(rows[0].kind, 'security');
      assert.equal(rows[0].action, 'member.joined');
      assert.equal(rows[0].account_id, u.accountId);
      assert.equal(rows[0].target_id, u.userId);

      // Stored values round-trip through a fresh read (bigint times come back as numbers).
      const [listed] = await listWorkspaces(db, { userId: u.userId, workspaceId: null });
      assert.deepEqual(listed, api);
    });

    test('explicit fields; country is stored upper case', async () => {
      const u = await newUser();
      const ws = await createWorkspace(db, {
        accountId: u.accountId,
        userId: u.userId,
        input: { name: 'Agentur Süd', website: 'https://sued.example', type: 'AGENCY', timezone: 'Europe/Berlin', language: 'de-DE', country: 'de', logo: 'https://sued.example/logo.png', description: 'Hi' },
      });
      assert.equal(ws.slug, 'agentur-sud');
      assert.equal(ws.country, 'DE');
      assert.equal(ws.type, 'AGENCY');
    });

    test('invalid fields: ValidationFailed with body pointers', async () => {
      const u = await newUser();
      await assert.rejects(
        createWorkspace(db, {
          accountId: u.accountId,
          userId: u.userId,
          input: { name: 'Bad', website: 'ftp://x.example', timezone: 'Mars/Olympus', language: 'en_US', country: 'EU' },
        }),
        (err: unknown) => {
          domainError(400, 'validation_failed')(err);
          assert.deepEqual((err as DomainError).errors!.map((e) => e.path).sort(), ['/country', '/language', '/timezone', '/website']);
          return true;
        },
      );
      assert.equal((await db('workspaces').where({ account_id: u.accountId })).length, 0);
    });

    test('a taken slug is 409 slug_taken, across accounts and accent variants', async () => {
      const a = await newUser();
      const b = await newUser();
      await createWorkspace(db, { accountId: a.accountId, userId: a.userId, input: { name: 'Crème Brûlée', website: 'https://a.example' } });
      await assert.rejects(
        createWorkspace(db, { accountId: b.accountId, userId: b.userId, input: { name: 'creme  brulee!', website: 'https://b.example' } }),
        domainError(409, 'slug_taken'),
      );
      assert.equal((await db('workspaces').where({ account_id: b.accountId })).length, 0);
      assert.equal((await db('memberships').where({ user_id: b.userId })).length, 0);
    });

    test('concurrent creations of one slug: exactly one wins, the rest are slug_taken', async () => {
      const users = await Promise.all([1, 2, 3, 4].map(() => newUser()));
      const results = await Promise.allSettled(
        users.map((u) => createWorkspace(db, { accountId: u.accountId, userId: u.userId, input: { name: 'Race Condition', website: 'https://r.example' } })),
      );
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      for (const r of results) if (r.status === 'rejected') domainError(409, 'slug_taken')(r.reason);
    });

    test('the unique index violation is recognised on this engine', async () => {
      const u = await newUser();
      const ws = await createWorkspace(db, { accountId: u.accountId, userId: u.userId, input: { name: 'Index Check', website: 'https://i.example' } });
      await assert.rejects(
        db('workspaces').insert({ ...ws, id: '01939999-0000-7000-8000-000000000001' }),
        (err: unknown) => isUniqueViolation(err, 'slug') && !isUniqueViolation(err, 'email'),
      );
    });

    test('workspace limit: 402, a billing row outside the rollback, and room after raising it', async () => {
      const u = await newUser();
      await setWorkspaceLimit(db, u.accountId, 2);
      for (const name of ['Limit One', 'Limit Two']) {
        await createWorkspace(db, { accountId: u.accountId, userId: u.userId, input: { name, website: 'https://l.example' } });
      }
      await assert.rejects(
        createWorkspace(db, { accountId: u.accountId, userId: u.userId, input: { name: 'Limit Three', website: 'https://l.example' } }),
        domainError(402, 'workspace_limit'),
      );
      assert.equal((await db('workspaces').where({ account_id: u.accountId })).length, 2);
      assert.equal((await db('workspaces').where({ slug: 'limit-three' })).length, 0);
      const billing = await db('activity').where({ account_id: u.accountId, kind: 'billing' }).orderBy('id');
      assert.deepEqual(billing.map((r) => [r.action, r.workspace_id]), [
        ['workspace_limit.changed', null],
        ['workspace_limit.reached', null],
      ]);
      assert.deepEqual(JSON.parse(billing[1].details), { limit: 2, workspaces: 2, user_id: u.userId });

      await setWorkspaceLimit(db, u.accountId, 3);
      const third = await createWorkspace(db, { accountId: u.accountId, userId: u.userId, input: { name: 'Limit Three', website: 'https://l.example' } });
      assert.equal(third.slug, 'limit-three');
    });

    test('list: oldest first; a bound caller sees only its workspace', async () => {
      const u = await newUser();
      const ids: string[] = [];
      for (const name of ['List A', 'List B', 'List C']) {
        ids.push((await createWorkspace(db, { accountId: u.accountId, userId: u.userId, input: { name, website: 'https://x.example' } })).id);
      }
      assert.deepEqual((await listWorkspaces(db, { userId: u.userId, workspaceId: null })).map((w) => w.id), ids);
      assert.deepEqual((await listWorkspaces(db, { userId: u.userId, workspaceId: ids[1] })).map((w) => w.id), [ids[1]]);
    });

    test('WorkspaceGuard: 404 when not visible, 403 when the role is too low', async () => {
      const owner = await newUser();
      const other = await newUser();
      const ws = await createWorkspace(db, { accountId: owner.accountId, userId: owner.userId, input: { name: 'Access', website: 'https://x.example' } });
      const guard = (caller: { userId: string; workspaceId: string | null }) => new WorkspaceGuard(db, caller, null);
      const { role } = await guard({ userId: owner.userId, workspaceId: null }).workspace(ws.id, 'owner');
      assert.equal(role, 'owner');
      await assert.rejects(guard({ userId: other.userId, workspaceId: null }).workspace(ws.id), domainError(404, 'not_found'));
      await assert.rejects(guard({ userId: owner.userId, workspaceId: other.userId }).workspace(ws.id), domainError(404, 'not_found'));
      await assert.rejects(guard({ userId: owner.userId, workspaceId: null }).workspace('nope'), domainError(404, 'not_found'));
      const { addMember } = await import('../core/access/index.ts');
      await addMember(db, { workspaceId: ws.id, userId: other.userId, role: 'member' });
      await assert.rejects(guard({ userId: other.userId, workspaceId: null }).workspace(ws.id, 'admin'), domainError(403, 'forbidden'));
    });

    test('update: partial, null clears, slug never changes', async () => {
      const u = await newUser();
      const ws = await createWorkspace(db, {
        accountId: u.accountId,
        userId: u.userId,
        input: { name: 'Update Me', website: 'https://u.example', country: 'FR', logo: 'https://u.example/l.png', description: 'x' },
      });
      const updated = await updateWorkspace(db, ws.id, { name: 'Renamed', country: null, logo: null, timezone: 'Asia/Tokyo' });
      assert.equal(updated.name, 'Renamed');
      assert.equal(updated.slug, 'update-me');
      assert.equal(updated.country, null);
      assert.equal(updated.logo, null);
      assert.equal(updated.description, 'x');
      assert.equal(updated.timezone, 'Asia/Tokyo');
      assert.ok(updated.updated_at >= ws.updated_at);
      const stored = (await db('workspaces').where({ id: ws.id }).first()) as typeof ws;
      assert.deepEqual(workspaceToApi(stored), workspaceToApi(updated));
      await assert.rejects(updateWorkspace(db, ws.id, { timezone: 'Mars/Olympus' }), domainError(400, 'validation_failed'));
      await assert.rejects(updateWorkspace(db, '01939999-0000-7000-8000-000000000002', { name: 'x' }), domainError(404, 'not_found'));
    });

    test('delete: cascades memberships and bound keys, keeps security rows only', async () => {
      const u = await newUser();
      const ws = await createWorkspace(db, { accountId: u.accountId, userId: u.userId, input: { name: 'Delete Me', website: 'https://x.example' } });
      const key = await createApiKey(db, { userId: u.userId, scopes: ['deploys'], workspaceId: ws.id });
      await webhookPaused(db, { workspaceId: ws.id, webhookId: '01939999-0000-7000-8000-000000000003', reason: 'user', actor: { type: 'user', id: u.userId, label: null } });
      await deleteWorkspace(db, ws.id);
      assert.equal(await db('workspaces').where({ id: ws.id }).first(), undefined);
      assert.equal((await db('memberships').where({ workspace_id: ws.id })).length, 0);
      assert.equal(await db('api_keys').where({ id: key.id }).first(), undefined);
      const left = await db('activity').where({ workspace_id: ws.id }).orderBy('id');
      assert.deepEqual(left.map((r) => [r.kind, r.action, r.account_id]), [
        ['security', 'member.joined', u.accountId],
        ['security', 'api_key.created', u.accountId],
      ]);
      await assert.rejects(deleteWorkspace(db, ws.id), domainError(404, 'not_found'));
    });
  });
}
