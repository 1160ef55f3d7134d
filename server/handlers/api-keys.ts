import { apiKeyToApi, createOwnKey, getOwnKey, listOwnKeys, revokeOwnKey, rotateOwnKey } from '../../core/access/index.ts';
import type { Handler } from '../handler-types.ts';

// The caller's own keys (spec/api-keys.tsp). The calling key is the KeyCaller: its user, binding,
// scopes and expiry bound what it may give out.

export const list: Handler<'ApiKeys_list'> = async ({ db, auth, query }) => ({ status: 200, body: await listOwnKeys(db, auth, query) });

export const create: Handler<'ApiKeys_create'> = async ({ db, access, auth, body }) => {
  // A workspace named by an unbound caller must be one it can see (404 naming the field); a
  // bound caller naming another workspace is refused by the escalation rules (403), whether or
  // not that workspace exists.
  if (body.workspaceId !== undefined && (auth.workspaceId === null || auth.workspaceId === body.workspaceId.toLowerCase())) await access.workspace(body.workspaceId);
  return { status: 201, body: await createOwnKey(db, auth, body) };
};

export const get: Handler<'ApiKeys_get'> = async ({ db, auth, path }) => ({ status: 200, body: apiKeyToApi(await getOwnKey(db, auth, path.id)) });

export const remove: Handler<'ApiKeys_delete'> = async ({ db, auth, path }) => {
  await revokeOwnKey(db, auth, path.id);
  return { status: 204 };
};

export const rotate: Handler<'ApiKeys_rotate'> = async ({ db, auth, path, body }) => ({
  status: 201,
  body: await rotateOwnKey(db, auth, path.id, body?.overlapSeconds ?? 0),
});
