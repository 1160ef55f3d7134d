import { ApiKey, Membership, User, Workspace, withTransaction, type DbOrTrx } from '../db/index.ts';
import { Forbidden, NotFound, ValidationFailed, isUuid, newId, nowMs } from '../platform/index.ts';
import { apiKeyCreated, apiKeyRevoked, operatorActor, type Actor } from '../activity/index.ts';
import { SCOPES, generateKey, hashKey, isScope, keyHint, keyLast4, type Scope } from './key-format.ts';

/**
 * Parses a scope list (array or comma-separated string): at least one, only known
 * names; duplicates are dropped and the result is in the canonical order of SCOPES.
 */
export function parseScopes(input: readonly string[] | string): Scope[] {
  const parts = (typeof input === 'string' ? input.split(',') : [...input]).map((s) => s.trim()).filter(Boolean);
  const unknown = parts.filter((s) => !isScope(s));
  if (unknown.length || parts.length === 0) {
    const detail = unknown.length
      ? `Unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; known scopes are ${SCOPES.join(', ')}.`
      : `At least one scope is needed: ${SCOPES.join(', ')}.`;
    throw new ValidationFailed(detail, [{ in: 'body', path: '/scopes', message: detail }]);
  }
  return SCOPES.filter((s) => parts.includes(s));
}

export interface CreatedApiKey {
  id: string;
  /** The only time the key is available: it is stored hashed. */
  apiKey: string;
  scopes: Scope[];
  workspaceId: string | null;
  name: string | null;
  createdAt: number;
  expiresAt: number | null;
  /** The stored row (no secret in it). */
  row: ApiKey;
}

/**
 * Creates a key for a user (api_key.created). A key bound to a workspace needs the user
 * to be a member of it; the row then belongs to that workspace, else to the user's account.
 */
export async function createApiKey(
  db: DbOrTrx,
  input: { userId: string; scopes: readonly string[] | string; workspaceId?: string | null; name?: string | null; expiresAt?: number | null; actor?: Actor },
): Promise<CreatedApiKey> {
  const scopes = parseScopes(input.scopes);
  const name = input.name?.trim() || null;
  if (name && name.length > 255) {
    throw new ValidationFailed('name is longer than 255 characters.', [{ in: 'body', path: '/name', message: 'must be at most 255 characters' }]);
  }
  const workspaceId = input.workspaceId ?? null;
  return withTransaction(db, async (trx) => {
    const user = isUuid(input.userId) ? await User.query(trx).findById(input.userId).select('id', 'account_id') : undefined;
    if (!user) throw new NotFound(`User ${input.userId} does not exist.`);
    let accountId = user.account_id;
    if (workspaceId !== null) {
      const ws = isUuid(workspaceId) ? await Workspace.query(trx).findById(workspaceId).select('account_id') : undefined;
      if (!ws) throw new NotFound(`Workspace ${workspaceId} does not exist.`);
      const member = await Membership.query(trx).findById([workspaceId, user.id]).select('role');
      if (!member) throw new Forbidden(`User ${user.id} is not a member of workspace ${workspaceId}; a bound key needs a membership.`);
      accountId = ws.account_id;
    }
    const { row, apiKey } = await insertKey(trx, { userId: user.id, workspaceId, name, scopes, expiresAt: input.expiresAt ?? null });
    await apiKeyCreated(trx, { accountId, workspaceId, keyId: row.id, userId: user.id, scopes, name, actor: input.actor ?? operatorActor(), at: row.created_at });
    return { id: row.id, apiKey, scopes, workspaceId, name, createdAt: row.created_at, expiresAt: row.expires_at, row };
  });
}

/** The one insert of a new key: a fresh secret, of which only the digest, the prefix and the last 4 characters are kept. */
export async function insertKey(
  trx: DbOrTrx,
  k: { userId: string; workspaceId: string | null; name: string | null; scopes: readonly Scope[]; expiresAt: number | null },
): Promise<{ row: ApiKey; apiKey: string }> {
  const apiKey = generateKey();
  const row = await ApiKey.query(trx).insert({
    id: newId(),
    user_id: k.userId,
    workspace_id: k.workspaceId,
    name: k.name,
    key_hash: hashKey(apiKey),
    key_hint: keyHint(apiKey),
    key_last4: keyLast4(apiKey),
    scopes: k.scopes.join(','),
    created_at: nowMs(),
    last_used_at: null,
    revoked_at: null,
    expires_at: k.expiresAt,
    replaced_by: null,
    expiry_recorded_at: null,
  });
  return { row, apiKey };
}

export async function activityAccountOf(db: DbOrTrx, key: ApiKey): Promise<string> {
  if (key.workspace_id) {
    const ws = await Workspace.query(db).findById(key.workspace_id).select('account_id');
    if (ws) return ws.account_id;
  }
  const user = await User.query(db).findById(key.user_id).select('account_id');
  return user!.account_id;
}

export async function revokeRow(db: DbOrTrx, key: ApiKey, actor: Actor, accountId?: string): Promise<number | null> {
  const at = nowMs();
  // The `revoked_at is null` guard makes a concurrent second revocation a no-op instead
  // of a second audit row.
  const n = await ApiKey.query(db).where({ id: key.id }).whereNull('revoked_at').patch({ revoked_at: at });
  if (n === 0) return null;
  await apiKeyRevoked(db, {
    accountId: accountId ?? (await activityAccountOf(db, key)),
    workspaceId: key.workspace_id,
    keyId: key.id,
    userId: key.user_id,
    scopes: key.scopes.split(','),
    name: key.name,
    actor,
    at,
  });
  return at;
}

/**
 * Revokes a key (api_key.revoked). Revoking a revoked key returns its original time. Every
 * request reads its key from the database, so the next request with it is refused, on every
 * server process.
 */
export async function revokeApiKey(db: DbOrTrx, id: string, opts: { actor?: Actor } = {}): Promise<{ id: string; revokedAt: number }> {
  if (!isUuid(id)) throw new NotFound(`API key ${id} does not exist.`);
  return withTransaction(db, async (trx) => {
    const key = await ApiKey.query(trx).findById(id);
    if (!key) throw new NotFound(`API key ${id} does not exist.`);
    const at = key.revoked_at ?? (await revokeRow(trx, key, opts.actor ?? operatorActor()));
    if (at === null) {
      const again = await ApiKey.query(trx).findById(id);
      return { id, revokedAt: again!.revoked_at! };
    }
    return { id, revokedAt: Number(at) };
  });
}

/** Revokes the live keys of a user bound to a workspace (on removal from it). */
export async function revokeBoundKeysOf(db: DbOrTrx, f: { userId: string; workspaceId: string; accountId: string; actor: Actor }): Promise<string[]> {
  const keys = await ApiKey.query(db).where({ user_id: f.userId, workspace_id: f.workspaceId }).whereNull('revoked_at');
  const revoked: string[] = [];
  for (const key of keys) if ((await revokeRow(db, key, f.actor, f.accountId)) !== null) revoked.push(key.id);
  return revoked;
}

export interface ApiKeyView {
  id: string;
  userId: string;
  name: string | null;
  /** `sh_` and the key's first characters: enough to recognise it, never enough to use it. */
  hint: string;
  scopes: Scope[];
  workspaceId: string | null;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** API keys, newest first, never their secret: of one user, or of every user of an account (operator CLI). */
export async function listApiKeys(db: DbOrTrx, f: { userId?: string; accountId?: string; limit: number }): Promise<ApiKeyView[]> {
  const q = ApiKey.query(db).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(f.limit);
  if (f.userId !== undefined) q.where({ user_id: f.userId });
  if (f.accountId !== undefined) q.whereIn('user_id', User.query(db).select('id').where({ account_id: f.accountId }));
  return (await q).map((k) => ({
    id: k.id,
    userId: k.user_id,
    name: k.name,
    hint: k.key_hint,
    scopes: parseScopes(k.scopes),
    workspaceId: k.workspace_id,
    createdAt: Number(k.created_at),
    lastUsedAt: k.last_used_at === null ? null : Number(k.last_used_at),
    revokedAt: k.revoked_at === null ? null : Number(k.revoked_at),
  }));
}
