import { keyActor } from '../../core/activity/index.ts';
import { connectionSettings, createConnection, getConnection, listConnections, removeConnection, updateConnection } from '../../core/connections/index.ts';
import type { Handler } from '../handler-types.ts';

const MANAGE = 'manage connected repositories';

export const list: Handler<'Connections_list'> = async ({ db, access, path, config }) => {
  const { workspace } = await access.workspace(path.id);
  return { status: 200, body: await listConnections(db, workspace.id, config.publicUrl) };
};

export const create: Handler<'Connections_create'> = async ({ db, access, auth, path, body, config }) => {
  const { workspace } = await access.workspace(path.id, 'admin', MANAGE);
  return { status: 201, body: await createConnection(db, workspace.id, body, connectionSettings(config), keyActor(auth)) };
};

export const update: Handler<'Connections_update'> = async ({ db, access, auth, path, body, config }) => {
  const { workspace } = await access.workspace(path.id, 'admin', MANAGE);
  const c = await getConnection(db, workspace.id, path.connectionId);
  return { status: 200, body: await updateConnection(db, c, body, connectionSettings(config), keyActor(auth)) };
};

export const remove: Handler<'Connections_delete'> = async ({ db, access, auth, path }) => {
  const { workspace } = await access.workspace(path.id, 'admin', MANAGE);
  const c = await getConnection(db, workspace.id, path.connectionId);
  await removeConnection(db, c, keyActor(auth));
  return { status: 204 };
};
