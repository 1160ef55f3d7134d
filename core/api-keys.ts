import crypto from 'node:crypto';
import type { DbOrTrx } from './db/connection.ts';
import { ApiKey } from './db/models/ApiKey.ts';
import { isUuid, newId } from './ids.ts';
import { nowMs } from './clock.ts';
import { Forbidden, NotFound, ValidationFailed } from './errors.ts';
import { apiKeyCreated, apiKeyRevoked, operatorActor, type Actor } from './activity.ts';
import { SCOPES, generateKey, hashKey, isScope, keyHint, looksLikeKey, type Scope } from './keys.ts';

/** What a request authenticated with an API key may act as. */
export interface AuthContext {
  keyId: string;
  userId: string;
  /** The key user's account. */
  accountId: string;
  /** Set when the key is bound to one workspace. */
  workspaceId: string | null;
  scopes: Scope[];
  /** e.g. `sh_AbCdE`: safe to log and to show as an activity actor. */
  keyHint: string;
}

/** Same shape; the name server/auth.ts uses. */
export type AuthenticatedKey = AuthContext;

// Re-exported so the HTTP layer can reject malformed keys before any lookup or cache.
export { looksLikeKey };

/** last_used_at is refreshed at most this often per key, so reads do not all become writes. */
export const LAST_USED_RESOLUTION_MS = 60_000;

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
  hint: string;
  createdAt: number;
}

/**
 * Creates a key for a user (api_key.created). A key bound to a workspace needs the user
 * to be a member of it; the row then belongs to that workspace, else to the user's account.
 */
export async function createApiKey(
  db: DbOrTrx,
  input: { userId: string; scopes: readonly string[] | string; workspaceId?: string | null; name?: string | null; actor?: Actor },
): Promise<CreatedApiKey> {
  const scopes = parseScopes(input.scopes);
  const name = input.name?.trim() || null;
  if (name && name.length > 255) {
    throw new ValidationFailed('name is longer than 255 characters.', [{ in: 'body', path: '/name', message: 'must be at most 255 characters' }]);
  }
  const workspaceId = input.workspaceId ?? null;
  return db.transaction(async (trx) => {
    const user = isUuid(input.userId)
      ? ((await trx('users').where({ id: input.userId }).first('id', 'account_id')) as { id: string; account_id: string } | undefined)
      : undefined;
    if (!user) throw new NotFound(`User ${input.userId} does not exist.`);
    let accountId = user.account_id;
    if (workspaceId !== null) {
      const ws = isUuid(workspaceId)
        ? ((await trx('workspaces').where({ id: workspaceId }).first('account_id')) as { account_id: string } | undefined)
        : undefined;
      if (!ws) throw new NotFound(`Workspace ${workspaceId} does not exist.`);
      const member = await trx('memberships').where({ workspace_id: workspaceId, user_id: user.id }).first('role');
      if (!member) throw new Forbidden(`User ${user.id} is not a member of workspace ${workspaceId}; a bound key needs a membership.`);
      accountId = ws.account_id;
    }
    const apiKey = generateKey();
    const row = {
      id: newId(),
      user_id: user.id,
      workspace_id: workspaceId,
      name,
      key_hash: hashKey(apiKey),
      key_hint: keyHint(apiKey),
      scopes: scopes.join(','),
      created_at: nowMs(),
      last_used_at: null,
      revoked_at: null,
    };
    await trx('api_keys').insert(row);
    await apiKeyCreated(trx, {
      accountId,
      workspaceId,
      keyId: row.id,
      userId: user.id,
      hint: row.key_hint,
      scopes,
      name,
      actor: input.actor ?? operatorActor(),
      at: row.created_at,
    });
    return { id: row.id, apiKey, scopes, workspaceId, name, hint: row.key_hint, createdAt: row.created_at };
  });
}

async function activityAccountOf(db: DbOrTrx, key: ApiKey): Promise<string> {
  if (key.workspace_id) {
    const ws = (await db('workspaces').where({ id: key.workspace_id }).first('account_id')) as { account_id: string } | undefined;
    if (ws) return ws.account_id;
  }
  const user = (await db('users').where({ id: key.user_id }).first('account_id')) as { account_id: string };
  return user.account_id;
}

async function revokeRow(db: DbOrTrx, key: ApiKey, actor: Actor, accountId?: string): Promise<number | null> {
  const at = nowMs();
  // The `revoked_at is null` guard makes a concurrent second revocation a no-op instead
  // of a second audit row.
  const n = await db('api_keys').where({ id: key.id }).whereNull('revoked_at').update({ revoked_at: at });
  if (n === 0) return null;
  await apiKeyRevoked(db, {
    accountId: accountId ?? (await activityAccountOf(db, key)),
    workspaceId: key.workspace_id,
    keyId: key.id,
    userId: key.user_id,
    hint: key.key_hint,
    scopes: key.scopes.split(','),
    name: key.name,
    actor,
    at,
  });
  return at;
}

/** Revokes a key (api_key.revoked). Revoking a revoked key returns its original time. */
export async function revokeApiKey(
  db: DbOrTrx,
  id: string,
  opts: { actor?: Actor } = {},
): Promise<{ id: string; revokedAt: number }> {
  if (!isUuid(id)) throw new NotFound(`API key ${id} does not exist.`);
  return db.transaction(async (trx) => {
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
export async function revokeBoundKeysOf(
  db: DbOrTrx,
  f: { userId: string; workspaceId: string; accountId: string; actor: Actor },
): Promise<string[]> {
  const keys = await ApiKey.query(db).where({ user_id: f.userId, workspace_id: f.workspaceId }).whereNull('revoked_at');
  const revoked: string[] = [];
  for (const key of keys) if ((await revokeRow(db, key, f.actor, f.accountId)) !== null) revoked.push(key.id);
  return revoked;
}

interface KeyLookup {
  id: string;
  user_id: string;
  workspace_id: string | null;
  key_hash: string;
  key_hint: string;
  scopes: string;
  last_used_at: number | null;
  revoked_at: number | null;
  account_id: string;
}

/**
 * The caller behind a raw `X-API-Key` value, or null for a malformed, unknown or revoked
 * key. Malformed keys (bad format or checksum) never reach the database.
 */
export async function authenticateKey(db: DbOrTrx, rawKey: string | null | undefined): Promise<AuthContext | null> {
  if (!looksLikeKey(rawKey)) return null;
  const digest = hashKey(rawKey);
  const row = (await db('api_keys as k')
    .join('users as u', 'u.id', 'k.user_id')
    .where('k.key_hash', digest)
    .first('k.id', 'k.user_id', 'k.workspace_id', 'k.key_hash', 'k.key_hint', 'k.scopes', 'k.last_used_at', 'k.revoked_at', 'u.account_id')) as
    | KeyLookup
    | undefined;
  // The lookup is by an indexed digest, so its timing says nothing useful about the key;
  // comparing again in constant time guards against an index or collation that would
  // match a value that is not byte-for-byte equal.
  if (!row) return null;
  const stored = Buffer.from(String(row.key_hash), 'utf8');
  const given = Buffer.from(digest, 'utf8');
  if (stored.length !== given.length || !crypto.timingSafeEqual(stored, given)) return null;
  if (row.revoked_at !== null && row.revoked_at !== undefined) return null;
  const now = nowMs();
  if (row.last_used_at === null || row.last_used_at === undefined || now - Number(row.last_used_at) >= LAST_USED_RESOLUTION_MS) {
    // Conditional so that concurrent requests of one key write once per minute at most.
    await db('api_keys')
      .where({ id: row.id })
      .andWhere((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<=', now - LAST_USED_RESOLUTION_MS))
      .update({ last_used_at: now });
  }
  return {
    keyId: row.id,
    userId: row.user_id,
    accountId: row.account_id,
    workspaceId: row.workspace_id ?? null,
    scopes: row.scopes.split(',').filter(isScope),
    keyHint: row.key_hint,
  };
}
