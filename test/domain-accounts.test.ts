import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Db } from '../core/db/index.ts';
import { engines, freshDb, dropCreatedDatabases } from './support/databases.ts';
import {
  addMember,
  authenticateKey,
  createApiKey,
  createUser,
  LAST_USED_RESOLUTION_MS,
  parseScopes,
  removeMember,
  revokeApiKey,
  roleIn,
  visibleWorkspaceIds,
} from '../core/access/index.ts';
import { activityToApi } from '../core/activity/index.ts';
import { Activity } from '../core/db/index.ts';
import { setClockOffset, DomainError } from '../core/platform/index.ts';
import { crc32, generateKey, hashKey, keyHint, looksLikeKey, KEY_LENGTH } from '../core/access/index.ts';
import { createWorkspace } from '../core/workspaces/index.ts';

after(dropCreatedDatabases);

function domainError(status: number, code: string) {
  return (err: unknown) => err instanceof DomainError && err.status === status && err.code === code;
}

describe('key format', () => {
  test('prefix, length, checksum; a changed character fails the checksum', () => {
    const key = generateKey();
    assert.match(key, /^sh_[0-9A-Za-z]{38}$/);
    assert.equal(key.length, KEY_LENGTH);
    assert.ok(looksLikeKey(key));
    const i = 10;
    const flipped = key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
    assert.ok(!looksLikeKey(flipped));
    for (const bad of ['', 'sh_', key.slice(0, -1), `${key}x`, key.replace('sh_', 'gh_'), `${key.slice(0, -1)}!`, null, 42]) {
      assert.ok(!looksLikeKey(bad), String(bad));
    }
    assert.equal(keyHint(key), key.slice(0, 8));
    assert.match(hashKey(key), /^[0-9a-f]{64}$/);
  });
  test('crc32 is the IEEE one (check value of "123456789")', () => {
    assert.equal(crc32('123456789'), 0xcbf43926);
  });
  test('parseScopes: canonical order, no duplicates, at least one known', () => {
    assert.deepEqual(parseScopes('webhooks, deploys,deploys'), ['deploys', 'webhooks']);
    assert.throws(() => parseScopes(''), domainError(400, 'validation_failed'));
    assert.throws(() => parseScopes(['deploys', 'admin']), domainError(400, 'validation_failed'));
  });
});

for (const engine of engines()) {
  describe(`accounts domain (${engine})`, () => {
    let db: Db;
    before(async () => {
      ({ db } = await freshDb(engine));
    });
    after(async () => {
      setClockOffset(0);
      await db.destroy();
    });

    test('authenticateKey: live, malformed, unknown, revoked; last_used_at at most once a minute', async () => {
      const u = await createUser(db, 'Auth@Example.com');
      assert.equal(u.email, 'auth@example.com');
      const k = await createApiKey(db, { userId: u.userId, scopes: ['search', 'deploys'] });
      const authenticated = await authenticateKey(db, k.apiKey);
      assert.deepEqual(authenticated, {
        auth: { credential: 'api_key', keyId: k.id, keyName: null, userId: u.userId, accountId: u.accountId, workspaceId: null, scopes: ['deploys', 'search'], expiresAt: null },
        prefetched: null,
      });

      // last_used_at is written off the request's path: wait for it.
      const lastUsed = async () => Number((await db('api_keys').where({ id: k.id }).first()).last_used_at);
      const settled = async () => {
        for (let i = 0; i < 50 && !(await lastUsed()); i++) await new Promise((r) => setTimeout(r, 10));
        await new Promise((r) => setTimeout(r, 30));
        return lastUsed();
      };
      const first = await settled();
      assert.ok(first > 0);
      setClockOffset(LAST_USED_RESOLUTION_MS / 2);
      await authenticateKey(db, k.apiKey);
      assert.equal(await settled(), first);
      setClockOffset(LAST_USED_RESOLUTION_MS + 1);
      await authenticateKey(db, k.apiKey);
      assert.ok((await settled()) > first);
      setClockOffset(0);

      assert.equal(await authenticateKey(db, generateKey()), null);
      assert.equal(await authenticateKey(db, `${k.apiKey.slice(0, -1)}0`), null);
      assert.equal(await authenticateKey(db, undefined), null);
      const revoked = await revokeApiKey(db, k.id);
      assert.equal(await authenticateKey(db, k.apiKey), null);
      // Revoking again is a no-op that reports the original time and writes no second row.
      assert.deepEqual(await revokeApiKey(db, k.id), revoked);
      assert.equal((await db('activity').where({ target_id: k.id, action: 'api_key.revoked' })).length, 1);
    });

    test('members: join, role change, last owner protected, leave revokes bound keys', async () => {
      const owner = await createUser(db, 'owner@example.com');
      const dev = await createUser(db, 'dev@example.com');
      const ws = await createWorkspace(db, { accountId: owner.accountId, userId: owner.userId, input: { name: 'Members', website: 'https://m.example' } });

      assert.deepEqual(await addMember(db, { workspaceId: ws.id, userId: dev.userId, role: 'viewer' }), {
        workspaceId: ws.id, userId: dev.userId, role: 'viewer', previousRole: null,
      });
      assert.equal((await addMember(db, { workspaceId: ws.id, userId: dev.userId, role: 'admin' })).previousRole, 'viewer');
      await addMember(db, { workspaceId: ws.id, userId: dev.userId, role: 'admin' });
      assert.equal(await roleIn(db, dev.userId, ws.id), 'admin');

      await assert.rejects(addMember(db, { workspaceId: ws.id, userId: owner.userId, role: 'admin' }), domainError(409, 'last_owner'));
      await assert.rejects(removeMember(db, { workspaceId: ws.id, userId: owner.userId }), domainError(409, 'last_owner'));
      const stranger = await createUser(db, 'stranger@example.com');
      await assert.rejects(createApiKey(db, { userId: stranger.userId, scopes: 'deploys', workspaceId: ws.id }), domainError(403, 'forbidden'));
      await assert.rejects(removeMember(db, { workspaceId: ws.id, userId: stranger.userId }), domainError(404, 'not_found'));

      const bound = await createApiKey(db, { userId: dev.userId, scopes: 'deploys', workspaceId: ws.id });
      const boundAuth = await authenticateKey(db, bound.apiKey);
      assert.equal(boundAuth?.auth.workspaceId, ws.id);
      assert.equal(boundAuth?.auth.accountId, dev.accountId);
      // A bound key's own workspace comes back with the key, role included.
      assert.equal(boundAuth?.prefetched?.workspace.id, ws.id);
      assert.equal(boundAuth?.prefetched?.role, 'admin');
      assert.deepEqual(await visibleWorkspaceIds(db, boundAuth!.auth), [ws.id]);

      const removed = await removeMember(db, { workspaceId: ws.id, userId: dev.userId });
      assert.deepEqual(removed.revokedKeyIds, [bound.id]);
      assert.equal(await authenticateKey(db, bound.apiKey), null);
      assert.deepEqual(await visibleWorkspaceIds(db, { userId: dev.userId, workspaceId: null }), []);

      const rows = await Activity.query(db).where({ workspace_id: ws.id }).orderBy('id');
      assert.deepEqual(rows.map((r) => r.action), [
        'member.joined', 'member.joined', 'member.role_changed', 'api_key.created', 'member.left', 'api_key.revoked',
      ]);
      // Rows about the workspace belong to the workspace's account, whoever the user is.
      assert.ok(rows.every((r) => r.account_id === owner.accountId && r.kind === 'security'));
      const api = activityToApi(rows[2]);
      assert.deepEqual(
        { ...api, id: undefined, created_at: undefined },
        {
          id: undefined,
          created_at: undefined,
          workspace_id: ws.id,
          kind: 'security',
          action: 'member.role_changed',
          actor: { type: 'system', id: null, label: 'admin CLI' },
          target: { type: 'user', id: dev.userId },
          details: { email: 'dev@example.com', from: 'viewer', to: 'admin' },
        },
      );
      assert.match(api.created_at, /\.\d{3}Z$/);
    });

    test('duplicate email is 409 email_taken; an unknown account is 404', async () => {
      await createUser(db, 'dup@example.com');
      await assert.rejects(createUser(db, 'DUP@example.com'), domainError(409, 'email_taken'));
      await assert.rejects(createUser(db, 'x@example.com', '01939999-0000-7000-8000-000000000009'), domainError(404, 'not_found'));
      await assert.rejects(createUser(db, 'not-an-email'), domainError(400, 'validation_failed'));
    });
  });
}
