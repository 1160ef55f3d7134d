import { ValidationFailed, NotFound } from '../../core/errors.ts';
import { deployDetail, deployToApi, getDeploy, listDeploys, recordDeploy } from '../../core/deploys.ts';
import type { components } from '../../generated/types.ts';
import type { Handler } from '../handler-types.ts';

type S = components['schemas'];

export const create: Handler<'Deploys_create'> = async ({ db, auth, access, body, config }) => {
  const workspaceId = body.workspaceId ?? auth.workspaceId;
  if (!workspaceId) {
    throw new ValidationFailed('workspaceId is required for a key that is not bound to a workspace.', [
      { in: 'body', path: '/workspaceId', message: 'is required for a key that is not bound to a workspace' },
    ]);
  }
  await access.workspace(workspaceId, 'member', 'record deploys');
  const { deploy } = await recordDeploy(db, workspaceId, body, config);
  return { status: 201, body: deployToApi(deploy) as S['Deploy'] };
};

export const list: Handler<'Deploys_list'> = async ({ db, access, query }) => {
  await access.workspace(query.workspace_id);
  const data = await listDeploys(db, query.workspace_id, { from: query.from, to: query.to, limit: query.limit ?? 50 });
  return { status: 200, body: { data: data as S['DeployListItem'][] } };
};

export const get: Handler<'Deploys_get'> = async ({ db, access, path }) => {
  const deploy = await getDeploy(db, path.id);
  if (!deploy) throw new NotFound();
  await access.workspace(deploy.workspace_id);
  return { status: 200, body: (await deployDetail(db, deploy)) as S['DeployDetail'] };
};
