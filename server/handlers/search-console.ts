import { keyActor } from '../../core/activity/index.ts';
import {
  completeAuthorization,
  disconnectSearchConsole,
  getSearchConsole,
  searchConsoleSettings,
  searchConsoleToApi,
  startAuthorization,
  syncNow,
} from '../../core/search-console/index.ts';
import type { Handler } from '../handler-types.ts';

const MANAGE = 'connect or disconnect Search Console';

export const get: Handler<'SearchConsole_get'> = async ({ db, access, path }) => {
  const { workspace } = await access.workspace(path.id);
  return { status: 200, body: searchConsoleToApi(await getSearchConsole(db, workspace.id)) };
};

export const connect: Handler<'SearchConsole_connect'> = async ({ db, access, auth, path, body, config }) => {
  const { workspace } = await access.workspace(path.id, 'admin', MANAGE);
  return { status: 201, body: await startAuthorization(db, workspace.id, body, searchConsoleSettings(config), keyActor(auth)) };
};

export const disconnect: Handler<'SearchConsole_disconnect'> = async ({ db, access, auth, path }) => {
  const { workspace } = await access.workspace(path.id, 'admin', MANAGE);
  await disconnectSearchConsole(db, workspace.id, keyActor(auth));
  return { status: 204 };
};

export const sync: Handler<'SearchConsole_sync'> = async ({ db, access, path }) => {
  const { workspace } = await access.workspace(path.id, 'member', 'sync Search Console');
  return { status: 202, body: await syncNow(db, workspace.id) };
};

export const complete: Handler<'SearchConsoleCallback_complete'> = async ({ db, query, config }) => ({
  status: 200,
  body: await completeAuthorization(db, { state: query.state, code: query.code, error: query.error, scope: query.scope }, searchConsoleSettings(config)),
});
