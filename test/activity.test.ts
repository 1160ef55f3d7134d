import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import * as activity from '../core/activity/index.ts';
import { encodeCursor } from '../core/platform/index.ts';
import { applyRetention, type Activity } from '../core/db/index.ts';
import { retentionRules } from '../worker/retention.ts';

type ActivityRow = Omit<Activity, 'details'> & { details: string };

after(dropCreatedDatabases);

const DAY = 86_400_000;
const SYSTEM = activity.SYSTEM_ACTOR;

type Owner = Awaited<ReturnType<TestApi['owner']>>;

async function allRows(api: TestApi): Promise<ActivityRow[]> {
  const rows = (await api.db('activity')) as ActivityRow[];
  return rows.map((r) => ({ ...r, created_at: Number(r.created_at) }));
}

function newestFirst(a: ActivityRow, b: ActivityRow): number {
  return b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** A webhook delivery row (kind webhook) at a given time. */
function delivery(db: TestApi['db'], workspaceId: string, at: number, ok = false): Promise<string> {
  const f = {
    workspaceId,
    actor: SYSTEM,
    at,
    webhookId: crypto.randomUUID(),
    deliveryId: crypto.randomUUID(),
    deliveryKey: `evt_${crypto.randomUUID()}`,
    event: 'deploy.recorded',
    attempt: 1,
    responseStatus: ok ? 200 : 500,
    durationMs: 12,
  };
  return ok ? activity.webhookDeliverySucceeded(db, f) : activity.webhookDeliveryFailed(db, f);
}

for (const engine of engines()) {
  describe(`activity (${engine})`, () => {
    let api: TestApi;
    before(async () => {
      api = await TestApi.start(engine);
    });
    after(async () => {
      await api.stop();
    });

    async function feed(key: string, query: Record<string, string | number | undefined> = {}) {
      return api.call('GET', '/v1/activity', { key, query });
    }

    /** Every page, following next_cursor; checks the page size and the cursor contract. */
    async function everything(key: string, query: Record<string, string | number | undefined> = {}, limit = 50): Promise<any[]> {
      const out: any[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 200; i++) {
        const res = await feed(key, { ...query, limit, cursor });
        assert.equal(res.status, 200, res.text);
        out.push(...res.body.data);
        cursor = res.body.meta.next_cursor ?? undefined;
        if (!cursor) return out;
        assert.equal(res.body.data.length, limit);
      }
      throw new Error('too many pages');
    }

    it('without workspace_id: every workspace of the caller plus its account-level rows', async () => {
      const a = await api.owner(); // member.joined in a's workspace; api_key.created at account level
      const w2 = await api.workspace(a);
      const b = await api.owner();
      await api.member(a.workspaceId, b.userId, 'viewer'); // b now sees a's first workspace
      await api.setLimit(a.accountId, 20); // billing, account level
      await delivery(api.db, a.workspaceId, Date.now());
      await delivery(api.db, b.workspaceId, Date.now(), true);

      const rows = await allRows(api);
      const expectA = rows
        .filter((r) => [a.workspaceId, w2].includes(r.workspace_id!) || (r.workspace_id === null && r.account_id === a.accountId))
        .sort(newestFirst);
      const gotA = await everything(a.apiKey, {}, 3);
      assert.deepEqual(gotA.map((r) => r.id), expectA.map((r) => r.id));
      assert.deepEqual(new Set(gotA.map((r) => r.kind)), new Set(['security', 'billing', 'webhook']));
      assert.ok(gotA.some((r) => r.workspace_id === null && r.action === 'api_key.created'));
      assert.ok(gotA.some((r) => r.workspace_id === null && r.action === 'workspace_limit.changed'));

      // b: its own workspace and account, plus a's workspace it joined; never a's account rows or w2.
      const expectB = rows
        .filter((r) => [b.workspaceId, a.workspaceId].includes(r.workspace_id!) || (r.workspace_id === null && r.account_id === b.accountId))
        .sort(newestFirst);
      const gotB = await everything(b.apiKey);
      assert.deepEqual(gotB.map((r) => r.id), expectB.map((r) => r.id));
      assert.ok(!gotB.some((r) => r.workspace_id === w2));
    });

    it('reads a caller with many workspaces the same way (one IN list beyond 32)', async () => {
      const a = await api.owner();
      await api.setLimit(a.accountId, 50);
      const ids = [a.workspaceId];
      for (let i = 0; i < 35; i++) ids.push(await api.workspace(a));
      for (const [i, ws] of ids.entries()) await delivery(api.db, ws, Date.now() - i * 1000);
      const want = (await allRows(api))
        .filter((r) => ids.includes(r.workspace_id!) || (r.workspace_id === null && r.account_id === a.accountId))
        .sort(newestFirst);
      assert.ok(want.length > 70);
      const got = await everything(a.apiKey, {}, 9);
      assert.deepEqual(got.map((r) => r.id), want.map((r) => r.id));
    });

    it('with workspace_id: only that workspace; one the caller cannot see is 404', async () => {
      const a = await api.owner();
      const b = await api.owner();
      await delivery(api.db, a.workspaceId, Date.now());
      const res = await feed(a.apiKey, { workspace_id: a.workspaceId });
      assert.equal(res.status, 200);
      assert.deepEqual(new Set(res.body.data.map((r: any) => r.workspace_id)), new Set([a.workspaceId]));
      assert.deepEqual(res.body.data.map((r: any) => r.action), ['webhook.delivery.failed', 'member.joined']);
      assert.equal(res.body.meta.next_cursor, null);
      const other = await feed(a.apiKey, { workspace_id: b.workspaceId });
      assert.equal(other.status, 404);
      assert.equal(other.body.code, 'not_found');
      assert.equal((await feed(a.apiKey, { workspace_id: crypto.randomUUID() })).status, 404);
    });

    it('a bound key sees only its workspace: no account-level rows, no other workspace', async () => {
      const a = await api.owner();
      const w2 = await api.workspace(a);
      await delivery(api.db, w2, Date.now());
      const bound = await api.key(a.userId, { workspaceId: a.workspaceId }); // api_key.created in a.workspaceId
      const res = await everything(bound.apiKey);
      assert.ok(res.length >= 2);
      assert.ok(res.every((r) => r.workspace_id === a.workspaceId), JSON.stringify(res.map((r) => r.workspace_id)));
      assert.ok(res.some((r) => r.action === 'api_key.created' && r.target.id === bound.id));
      assert.equal((await feed(bound.apiKey, { workspace_id: w2 })).status, 404);
      assert.equal((await feed(bound.apiKey, { workspace_id: a.workspaceId })).status, 200);
    });

    it('needs the workspaces scope', async () => {
      const a = await api.owner();
      const k = await api.key(a.userId, { scopes: ['deploys', 'search', 'webhooks'] });
      const res = await feed(k.apiKey);
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'insufficient_scope');
      assert.equal((await feed(k.apiKey, { workspace_id: a.workspaceId })).status, 403);
    });

    it('checks every query bound (400, never clamped)', async () => {
      const a = await api.owner();
      for (const bad of [
        { limit: 0 },
        { limit: 101 },
        { limit: 'x' },
        { kind: 'deploy' },
        { from: 'yesterday' },
        { to: '2026-01-01' },
        { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
        { cursor: '' },
        { cursor: 'not a cursor' },
        { cursor: Buffer.from('12.nope').toString('base64url') },
        { cursor: 'x'.repeat(201) },
        { workspace_id: 'nope' },
        { unknown: 1 },
      ] as Array<Record<string, string | number>>) {
        const res = await feed(a.apiKey, bad);
        assert.equal(res.status, 400, JSON.stringify(bad));
        assert.equal(res.body.code, 'validation_failed');
      }
      for (const ok of [{ limit: 1 }, { limit: 100 }, { from: '2026-01-01T00:00:00+02:00' }, { to: '2030-01-01T00:00:00.000Z' }]) {
        assert.equal((await feed(a.apiKey, ok)).status, 200, JSON.stringify(ok));
      }
    });

    describe('filters against a brute-force selection', () => {
      let a: Owner;
      let w2: string;
      const now = Date.now();
      before(async () => {
        a = await api.owner();
        w2 = await api.workspace(a);
        const u = await api.user({ accountId: a.accountId });
        for (let i = 0; i < 40; i++) {
          const at = now - i * 3 * 3_600_000; // every 3 hours over 5 days
          const ws = i % 2 ? a.workspaceId : w2;
          if (i % 5 === 0) await activity.workspaceLimitChanged(api.db, { accountId: a.accountId, from: i, to: i + 1, actor: SYSTEM, at });
          else if (i % 5 === 1)
            await activity.apiKeyCreated(api.db, { accountId: a.accountId, workspaceId: null, keyId: crypto.randomUUID(), userId: u.userId, scopes: ['deploys'], actor: SYSTEM, at });
          else if (i % 5 === 2) await activity.memberRoleChanged(api.db, { workspaceId: ws, userId: u.userId, from: 'viewer', to: 'member', actor: SYSTEM, at });
          else await delivery(api.db, ws, at, i % 3 === 0);
        }
        // Rows at one instant, so the id tiebreak is exercised.
        for (let i = 0; i < 3; i++) await delivery(api.db, a.workspaceId, now - 36 * 3_600_000);
      });

      const iso = (ms: number) => new Date(ms).toISOString();
      const cases: Array<Record<string, string>> = [
        {},
        { kind: 'webhook' },
        { kind: 'billing' },
        { kind: 'security' },
        { from: iso(now - 2 * DAY) },
        { to: iso(now - 2 * DAY) },
        { from: iso(now - 3 * DAY), to: iso(now - DAY) },
        { kind: 'webhook', from: iso(now - 3 * DAY), to: iso(now - 36 * 3_600_000) },
        { kind: 'security', to: iso(now - DAY) },
        { kind: 'billing', from: iso(now - 4 * DAY) },
      ];
      for (const c of cases) {
        for (const scoped of [false, true]) {
          it(`${JSON.stringify(c)}${scoped ? ' in one workspace' : ''}`, async () => {
            const query = scoped ? { ...c, workspace_id: a.workspaceId } : c;
            const from = c.from ? Date.parse(c.from) : -Infinity;
            const to = c.to ? Date.parse(c.to) : Infinity;
            const want = (await allRows(api))
              .filter((r) =>
                scoped
                  ? r.workspace_id === a.workspaceId
                  : [a.workspaceId, w2].includes(r.workspace_id!) || (r.workspace_id === null && r.account_id === a.accountId),
              )
              .filter((r) => (!c.kind || r.kind === c.kind) && r.created_at >= from && r.created_at <= to)
              .sort(newestFirst);
            const got = await everything(a.apiKey, query, 4);
            assert.deepEqual(got.map((r) => r.id), want.map((r) => r.id));
            if (c.from) assert.ok(got.every((r) => Date.parse(r.created_at) >= from));
          });
        }
      }
    });

    it('pages with an opaque cursor without missing or repeating a row while rows are added', async () => {
      const a = await api.owner();
      const base = Date.now() - 1000;
      for (let i = 0; i < 30; i++) await delivery(api.db, a.workspaceId, base - Math.floor(i / 3) * 1000); // triples share a time
      const original = (await allRows(api)).filter((r) => r.workspace_id === a.workspaceId);
      const seen: string[] = [];
      const olderAdded: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const res = await feed(a.apiKey, { workspace_id: a.workspaceId, limit: 4, cursor });
        assert.equal(res.status, 200);
        pages += 1;
        seen.push(...res.body.data.map((r: any) => r.id));
        if (res.body.meta.next_cursor === null) break;
        assert.equal(res.body.data.length, 4);
        cursor = res.body.meta.next_cursor;
        assert.ok(!cursor!.includes(res.body.data[3].id), 'the cursor is opaque');
        // Between reads: new rows arrive, one of them older than the cursor (a retried delivery
        // recorded with the time it was attempted).
        const last = Date.parse(res.body.data[3].created_at);
        await delivery(api.db, a.workspaceId, Date.now());
        await delivery(api.db, a.workspaceId, Date.now());
        olderAdded.push(await delivery(api.db, a.workspaceId, last - 500));
      }
      assert.ok(pages >= 8);
      assert.equal(new Set(seen).size, seen.length, 'no row repeated');
      for (const r of original) assert.ok(seen.includes(r.id), `row ${r.action} ${r.id} missed`);
      for (const id of olderAdded) assert.ok(seen.includes(id), `older row ${id} missed`);
      // A cursor past the last row gives an empty last page.
      const empty = await feed(a.apiKey, { workspace_id: a.workspaceId, cursor: encodeCursor({ at: 0, id: crypto.randomUUID() }) });
      assert.deepEqual(empty.body, { data: [], meta: { next_cursor: null } });
    });

    it('writes security and billing rows for API and operator actions, shaped per the contract', async () => {
      const a = await api.owner();
      await api.setLimit(a.accountId, 1);
      const refused = await api.call('POST', '/v1/workspaces', { key: a.apiKey, body: { name: `Full ${crypto.randomUUID()}`, website: 'https://x.example' } });
      assert.equal(refused.status, 402);
      await api.setLimit(a.accountId, 5);
      const created = await api.call('POST', '/v1/workspaces', { key: a.apiKey, body: { name: `Ok ${crypto.randomUUID()}`, website: 'https://x.example' } });
      assert.equal(created.status, 201);
      const k = await api.key(a.userId);
      await api.revoke(k.id);
      const u = await api.user({ accountId: a.accountId });
      await api.member(a.workspaceId, u.userId, 'member');
      await api.member(a.workspaceId, u.userId, 'admin');
      const rows = await everything(a.apiKey);
      const actions = rows.map((r) => r.action);
      for (const action of ['workspace_limit.reached', 'workspace_limit.changed', 'api_key.created', 'api_key.revoked', 'member.joined', 'member.role_changed']) {
        assert.ok(actions.includes(action), `${action} in ${actions.join(', ')}`);
      }
      const reached = rows.find((r) => r.action === 'workspace_limit.reached');
      assert.equal(reached.kind, 'billing');
      assert.equal(reached.workspace_id, null);
      assert.deepEqual(reached.actor, { type: 'api_key', id: a.keyId, label: reached.actor.label });
      assert.deepEqual(reached.target, { type: 'account', id: a.accountId });
      assert.equal(reached.details.limit, 1);
      const joinedByApi = rows.find((r) => r.action === 'member.joined' && r.workspace_id === created.body.data.id);
      assert.equal(joinedByApi.actor.type, 'api_key');
      const role = rows.find((r) => r.action === 'member.role_changed');
      assert.deepEqual([role.details.from, role.details.to, role.target.id], ['member', 'admin', u.userId]);
      const revoked = rows.find((r) => r.action === 'api_key.revoked');
      assert.deepEqual([revoked.kind, revoked.workspace_id, revoked.target.id], ['security', null, k.id]);
      // Nothing secret in any row.
      const text = JSON.stringify(rows);
      assert.ok(!text.includes(a.apiKey) && !text.includes(k.apiKey));
    });

    it('keeps the security rows of a deleted workspace readable by the users of its account', async () => {
      const a = await api.owner();
      const doomed = await api.workspace(a);
      const outsider = await api.owner();
      await api.member(doomed, outsider.userId, 'admin'); // another account's user in it
      await delivery(api.db, doomed, Date.now());
      const colleague = await api.user({ accountId: a.accountId }); // same account, never a member
      const colleagueKey = await api.key(colleague.userId);
      const before = (await allRows(api)).filter((r) => r.workspace_id === doomed);
      assert.ok(before.some((r) => r.kind === 'webhook'));
      assert.equal((await api.call('DELETE', `/v1/workspaces/${doomed}`, { key: a.apiKey })).status, 204);

      const security = before.filter((r) => r.kind === 'security').map((r) => r.id);
      assert.ok(security.length >= 2);
      for (const key of [a.apiKey, colleagueKey.apiKey]) {
        const rows = await everything(key, {}, 5);
        const ofDoomed = rows.filter((r) => r.workspace_id === doomed);
        assert.deepEqual(new Set(ofDoomed.map((r) => r.id)), new Set(security));
        const onlySecurity = await everything(key, { kind: 'security' }, 5);
        assert.ok(security.every((id) => onlySecurity.some((r) => r.id === id)));
        assert.ok(!(await everything(key, { kind: 'webhook' })).some((r) => r.workspace_id === doomed));
      }
      // The outsider belonged to it, but it was not its account's workspace.
      assert.ok(!(await everything(outsider.apiKey)).some((r) => r.workspace_id === doomed));
      // It is gone as a workspace: asking for it by id is 404.
      assert.equal((await feed(a.apiKey, { workspace_id: doomed })).status, 404);
    });

    it('retention keeps activity 90 days and security rows for ever', async () => {
      const a = await api.owner();
      const now = Date.now();
      const old = now - 120 * DAY;
      const oldSecurity = [
        await activity.memberJoined(api.db, { workspaceId: a.workspaceId, userId: a.userId, role: 'owner', actor: SYSTEM, at: old }),
        await activity.apiKeyCreated(api.db, { accountId: a.accountId, workspaceId: null, keyId: 'k1', userId: a.userId, scopes: ['search'], name: 'old CI key', actor: SYSTEM, at: old }),
        await activity.apiKeyRevoked(api.db, { accountId: a.accountId, workspaceId: null, keyId: 'k1', userId: a.userId, scopes: ['search'], name: 'old CI key', actor: SYSTEM, at: old }),
        await activity.memberLeft(api.db, { workspaceId: a.workspaceId, userId: a.userId, role: 'viewer', actor: SYSTEM, at: old }),
      ];
      const oldOther = [
        await delivery(api.db, a.workspaceId, old),
        await activity.workspaceLimitChanged(api.db, { accountId: a.accountId, from: 10, to: 11, actor: SYSTEM, at: old }),
        await activity.webhookPaused(api.db, { workspaceId: a.workspaceId, webhookId: crypto.randomUUID(), reason: 'gone', actor: SYSTEM, at: now - 91 * DAY }),
      ];
      const recent = await delivery(api.db, a.workspaceId, now - 89 * DAY);
      await applyRetention(api.db, { now, rules: retentionRules.filter((r) => r.table === 'activity') });
      const ids = new Set((await allRows(api)).map((r) => r.id));
      for (const id of oldSecurity) assert.ok(ids.has(id), 'security row kept');
      for (const id of oldOther) assert.ok(!ids.has(id), 'old non-security row pruned');
      assert.ok(ids.has(recent));
      const rows = await everything(a.apiKey, { kind: 'security' });
      for (const id of oldSecurity) assert.ok(rows.some((r) => r.id === id));
      const revoked = rows.find((r) => r.action === 'api_key.revoked' && r.target.id === 'k1');
      assert.deepEqual(revoked.target, { type: 'api_key', id: 'k1' });
      assert.equal(revoked.details.name, 'old CI key');
    });
  });
}
