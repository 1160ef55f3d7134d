import { ValidationFailed } from '../../core/platform/index.ts';
import { MANUAL_ORIGIN, deployDetail, deployToApi, getDeploy, listDeploys, recordDeploy } from '../../core/deploys/index.ts';
import type { Handler } from '../handler-types.ts';

export const create: Handler<'Deploys_create'> = async ({ db, auth, access, body, config }) => {
  const { workspaceId: named, ...input } = body;
  const workspaceId = named ?? auth.workspaceId;
  if (!workspaceId) {
    throw new ValidationFailed('workspaceId is required for a key that is not bound to a workspace.', [
      { in: 'body', path: '/workspaceId', message: 'is required for a key that is not bound to a workspace' },
    ]);
  }
  await access.workspace(workspaceId, 'member', 'record deploys');
  const { deploy } = await recordDeploy(db, workspaceId, input, config, auth.credential === 'session' ? MANUAL_ORIGIN : null);
  return { status: 201, body: deployToApi(deploy) };
};

export const list: Handler<'Deploys_list'> = async ({ db, access, query }) => {
  await access.workspace(query.workspace_id);
  return { status: 200, body: await listDeploys(db, query.workspace_id, { from: query.from, to: query.to, environment: query.environment, source: query.source, limit: query.limit, cursor: query.cursor }) };
};

export const get: Handler<'Deploys_get'> = async ({ db, access, path }) => {
  const deploy = await getDeploy(db, path.id);
  await access.workspace(deploy.workspace_id);
  return { status: 200, body: await deployDetail(db, deploy) };
};
