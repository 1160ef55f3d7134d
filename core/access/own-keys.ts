import type { Schemas } from '../contract/index.ts';
import { ApiKey, Membership, User, Workspace, afterKeyset, isPostgres, withTransaction, type DbOrTrx } from '../db/index.ts';
import { Conflict, DomainError, NotFound, ValidationFailed, decodeCursor, encodeCursor, isUuid, nowMs, toIso } from '../platform/index.ts';
import { apiKeyCreated, apiKeyExpired, apiKeyRotated, keyActor } from '../activity/index.ts';
import { activityAccountOf, insertKey, parseScopes, revokeRow } from './api-keys.ts';
import type { Scope } from './key-format.ts';
import { roleAtLeast, type Role } from './roles.ts';

// The caller's own API keys over the API (spec/api-keys.tsp): a key never grants more than the
// key that creates or rotates it, and a caller sees only its own user's keys (a bound caller only
// those bound to its workspace; anything else is 404).

/** The key making the request, as these rules need it (AuthContext has all of it). */
export interface KeyCaller {
  keyId: string;
  keyName: string | null;
  userId: string;
  accountId: string;
  /** The caller's binding, or null. */
  workspaceId: string | null;
  scopes: readonly Scope[];
  expiresAt: number | null;
}

/** Roles that may record deploys (docs/api.md#who-may-do-what): a key with `deploys` needs one. */
const DEPLOY_ROLE: Role = 'member';
/** expiresAt may be set at most this far ahead. */
const MAX_LIFETIME_MS = 10 * 365 * 24 * 3600_000;
/** overlapSeconds of a rotation: 0 to 7 days (spec/api-keys.tsp). */
export const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;

export type ApiKeyJson = Schemas['ApiKey'];
export type ApiKeyWithSecretJson = Schemas['ApiKeyWithSecret'];

export function apiKeyToApi(k: ApiKey): ApiKeyJson {
  return {
    id: k.id,
    name: k.name,
    prefix: k.key_hint,
    last4: k.key_last4 ?? null,
    scopes: parseScopes(k.scopes),
    workspaceId: k.workspace_id,
    createdAt: toIso(Number(k.created_at))!,
    expiresAt: k.expires_at === null || k.expires_at === undefined ? null : toIso(Number(k.expires_at)),
    lastUsedAt: k.last_used_at === null ? null : toIso(Number(k.last_used_at)),
    revokedAt: k.revoked_at === null ? null : toIso(Number(k.revoked_at)),
    replacedBy: k.replaced_by ?? null,
  };
}

function escalation(code: string, title: string, detail: string): DomainError {
  return new DomainError(403, code, title, detail);
}

/**
 * The no-escalation rules for a key about to be given out (created, or rotated to a new secret):
 * each is a 403 whose code names it. The caller can already see `workspaceId` (the HTTP layer's
 * guard answered 404 otherwise).
 */
async function assertGrantable(trx: DbOrTrx, caller: KeyCaller, k: { scopes: readonly Scope[]; workspaceId: string | null; expiresAt: number | null }): Promise<void> {
  const extra = k.scopes.filter((s) => !caller.scopes.includes(s));
  if (extra.length) {
    throw escalation('scope_escalation', 'Scope escalation', `Your key does not carry the scope${extra.length > 1 ? 's' : ''} ${extra.join(', ')}; a key can only give out scopes it holds (${caller.scopes.join(', ')}).`);
  }
  if (caller.workspaceId !== null && k.workspaceId !== caller.workspaceId) {
    throw escalation('workspace_escalation', 'Workspace escalation', 'Your key is bound to one workspace: it can only give out keys bound to that workspace.');
  }
  if (k.scopes.includes('deploys')) {
    const q = Membership.query(trx).where({ user_id: caller.userId }).whereIn('role', ['owner', 'admin', 'member']);
    if (k.workspaceId !== null) q.where({ workspace_id: k.workspaceId });
    const role = (await q.select('role').first()) as { role: Role } | undefined;
    if (!role || !roleAtLeast(role.role, DEPLOY_ROLE)) {
      throw escalation(
        'role_escalation',
        'Role escalation',
        k.workspaceId !== null
          ? 'A key with the deploys scope needs the member role or above in its workspace; your role there cannot record deploys.'
          : 'A key with the deploys scope needs the member role or above in at least one workspace; you have none.',
      );
    }
  }
  if (caller.expiresAt !== null && (k.expiresAt === null || k.expiresAt > caller.expiresAt)) {
    throw escalation('expiry_escalation', 'Expiry escalation', `Your key expires at ${toIso(caller.expiresAt)}; a key it gives out cannot outlive it.`);
  }
}

function parseExpiry(raw: string | undefined, caller: KeyCaller, now: number): number | null {
  if (raw === undefined) return caller.expiresAt;
  const at = Date.parse(raw);
  const bad = (message: string) => new ValidationFailed(`expiresAt ${message}.`, [{ in: 'body', path: '/expiresAt', message }]);
  if (!Number.isFinite(at)) throw bad('must be a date-time with an offset');
  if (at <= now) throw bad('must be in the future');
  if (at > now + MAX_LIFETIME_MS) throw bad('must be at most 10 years ahead');
  return at;
}

/** Creates a key for the caller's user (api_key.created, the caller its actor). */
export async function createOwnKey(db: DbOrTrx, caller: KeyCaller, body: Schemas['ApiKeyCreate']): Promise<ApiKeyWithSecretJson> {
  const now = nowMs();
  const scopes = parseScopes(body.scopes);
  const name = body.name.trim();
  if (!name) throw new ValidationFailed('name is empty.', [{ in: 'body', path: '/name', message: 'must not be blank' }]);
  const workspaceId = body.workspaceId?.toLowerCase() ?? caller.workspaceId;
  const expiresAt = parseExpiry(body.expiresAt, caller, now);
  return withTransaction(db, async (trx) => {
    await assertGrantable(trx, caller, { scopes, workspaceId, expiresAt });
    const accountId = await accountOf(trx, caller, workspaceId);
    const { row, apiKey } = await insertKey(trx, { userId: caller.userId, workspaceId, name, scopes, expiresAt });
    await apiKeyCreated(trx, { accountId, workspaceId, keyId: row.id, userId: caller.userId, scopes, name, actor: keyActor(caller), at: row.created_at });
    return { ...apiKeyToApi(row), key: apiKey };
  });
}

async function accountOf(trx: DbOrTrx, caller: KeyCaller, workspaceId: string | null): Promise<string> {
  if (workspaceId === null) return caller.accountId;
  const ws = await Workspace.query(trx).findById(workspaceId).select('account_id');
  if (!ws) throw new NotFound();
  return ws.account_id;
}

function visibleKeys(db: DbOrTrx, caller: KeyCaller) {
  const q = ApiKey.query(db).where({ user_id: caller.userId });
  if (caller.workspaceId !== null) q.where({ workspace_id: caller.workspaceId });
  return q;
}

/** One of the caller's keys, or 404 (another user's key and a key outside a bound caller's workspace alike). */
export async function getOwnKey(db: DbOrTrx, caller: KeyCaller, id: string): Promise<ApiKey> {
  const key = isUuid(id) ? await visibleKeys(db, caller).findById(id.toLowerCase()) : undefined;
  if (!key) throw new NotFound();
  return key;
}

/** The caller's keys, newest first, one page. */
export async function listOwnKeys(db: DbOrTrx, caller: KeyCaller, q: { limit: number; cursor?: string }): Promise<Schemas['ApiKeyList']> {
  const query = visibleKeys(db, caller);
  if (q.cursor !== undefined) afterKeyset(query, 'created_at', decodeCursor(q.cursor, 'this list'));
  const rows = await query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return { data: page.map(apiKeyToApi), meta: { next_cursor: rows.length > q.limit && last ? encodeCursor({ at: Number(last.created_at), id: last.id }) : null } };
}

/** Revokes one of the caller's keys (api_key.revoked); a revoked key stays revoked, without a second row. */
export async function revokeOwnKey(db: DbOrTrx, caller: KeyCaller, id: string): Promise<void> {
  await withTransaction(db, async (trx) => {
    const key = await getOwnKey(trx, caller, id);
    if (key.revoked_at === null) await revokeRow(trx, key, keyActor(caller));
  });
}

/**
 * Gives one of the caller's keys a new secret: a new key with the same name, scopes, binding and
 * expiry; the old one works `overlapSeconds` longer, then is refused as expired (api_key.rotated).
 */
export async function rotateOwnKey(db: DbOrTrx, caller: KeyCaller, id: string, overlapSeconds: number): Promise<ApiKeyWithSecretJson> {
  if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_OVERLAP_SECONDS) {
    throw new ValidationFailed(`overlapSeconds must be 0 to ${MAX_OVERLAP_SECONDS}.`, [{ in: 'body', path: '/overlapSeconds', message: `must be 0 to ${MAX_OVERLAP_SECONDS}` }]);
  }
  return withTransaction(db, async (trx) => {
    if (!isUuid(id)) throw new NotFound();
    const q = visibleKeys(trx, caller).findById(id.toLowerCase());
    // Two rotations of one key at once: the second waits here and then sees replaced_by.
    if (isPostgres(trx)) q.forUpdate();
    const old = await q;
    if (!old) throw new NotFound();
    const now = nowMs();
    const oldExpires = old.expires_at === null ? null : Number(old.expires_at);
    if (old.revoked_at !== null || old.replaced_by !== null || (oldExpires !== null && oldExpires <= now)) {
      const why = old.revoked_at !== null ? 'revoked' : old.replaced_by !== null ? `already replaced by ${old.replaced_by}` : 'expired';
      throw new Conflict('key_inactive', `This key is ${why}; only a live key can be rotated.`);
    }
    const scopes = parseScopes(old.scopes);
    await assertGrantable(trx, caller, { scopes, workspaceId: old.workspace_id, expiresAt: oldExpires });
    const { row, apiKey } = await insertKey(trx, { userId: old.user_id, workspaceId: old.workspace_id, name: old.name, scopes, expiresAt: oldExpires });
    const until = Math.min(oldExpires ?? Number.MAX_SAFE_INTEGER, now + overlapSeconds * 1000);
    const n = await ApiKey.query(trx).where({ id: old.id }).whereNull('replaced_by').whereNull('revoked_at').patch({ expires_at: until, replaced_by: row.id });
    if (n !== 1) throw new Conflict('key_inactive', 'This key was rotated or revoked meanwhile; only a live key can be rotated.');
    await apiKeyRotated(trx, {
      accountId: await activityAccountOf(trx, old),
      workspaceId: old.workspace_id,
      keyId: old.id,
      userId: old.user_id,
      scopes,
      name: old.name,
      actor: keyActor(caller),
      at: now,
      replacedBy: row.id,
      overlapSeconds,
      oldExpiresAt: until,
    });
    return { ...apiKeyToApi(row), key: apiKey };
  });
}

/**
 * The first request made with a key after it expired writes api_key.expired, once per key (the
 * conditional update decides between concurrent requests). Never fails the request: the caller
 * gets its 401 whatever happens here.
 */
export async function recordExpiredUse(db: DbOrTrx, keyId: string): Promise<void> {
  try {
    await withTransaction(db, async (trx) => {
      const key = await ApiKey.query(trx).findById(keyId);
      if (!key || key.expires_at === null || key.expiry_recorded_at !== null) return;
      const n = await ApiKey.query(trx).where({ id: keyId }).whereNull('expiry_recorded_at').patch({ expiry_recorded_at: nowMs() });
      if (n !== 1) return;
      const user = await User.query(trx).findById(key.user_id).select('account_id');
      await apiKeyExpired(trx, {
        accountId: key.workspace_id ? await activityAccountOf(trx, key) : user!.account_id,
        workspaceId: key.workspace_id,
        keyId: key.id,
        userId: key.user_id,
        scopes: parseScopes(key.scopes),
        name: key.name,
        actor: keyActor({ keyId: key.id, keyName: key.name }),
        expiredAt: Number(key.expires_at),
      });
    });
  } catch {
    // A busy database: the row is written by the next request with the key.
  }
}
