import { Forbidden } from '../../core/platform/index.ts';
import { keyActor } from '../../core/activity/index.ts';
import { createWorkspace, deleteWorkspace, listWorkspaces, updateWorkspace, workspaceToApi } from '../../core/workspaces/index.ts';
import type { Handler } from '../handler-types.ts';

export const list: Handler<'Workspaces_list'> = async ({ db, auth }) => {
  return { status: 200, body: { data: await listWorkspaces(db, auth) } };
};

export const create: Handler<'Workspaces_create'> = async ({ db, auth, body, access }) => {
  if (auth.workspaceId) throw new Forbidden('A key bound to one workspace cannot create workspaces.');
  const row = await createWorkspace(db, { accountId: auth.accountId, userId: auth.userId, input: body, actor: keyActor(auth) });
  access.markWorkspace(row.id);
  return { status: 201, body: { data: workspaceToApi(row) } };
};

export const get: Handler<'Workspaces_get'> = async ({ access, path }) => {
  const { workspace } = await access.workspace(path.id);
  return { status: 200, body: { data: workspaceToApi(workspace) } };
};

export const update: Handler<'Workspaces_update'> = async ({ db, access, path, body }) => {
  await access.workspace(path.id, 'admin', 'update it');
  return { status: 200, body: { data: workspaceToApi(await updateWorkspace(db, path.id, body)) } };
};

export const remove: Handler<'Workspaces_delete'> = async ({ db, access, path }) => {
  await access.workspace(path.id, 'owner', 'delete it');
  await deleteWorkspace(db, path.id);
  return { status: 204 };
};
