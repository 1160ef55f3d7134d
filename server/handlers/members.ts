import { keyActor } from '../../core/activity/index.ts';
import { acceptInvitation, changeMemberRole, inviteMember, listInvitations, listMembers, removeMemberAs, withdrawInvitation } from '../../core/access/index.ts';
import type { Handler } from '../handler-types.ts';

const MANAGE = 'manage members and invitations';

export const list: Handler<'Members_list'> = async ({ db, access, path }) => {
  const { workspace } = await access.workspace(path.id);
  return { status: 200, body: await listMembers(db, workspace.id) };
};

export const update: Handler<'Members_update'> = async ({ db, access, auth, path, body }) => {
  const { workspace, role } = await access.workspace(path.id, 'admin', MANAGE);
  return { status: 200, body: await changeMemberRole(db, { workspaceId: workspace.id, userId: path.userId, role: body.role, callerRole: role, actor: keyActor(auth) }) };
};

export const remove: Handler<'Members_delete'> = async ({ db, access, auth, path }) => {
  const { workspace, role } = await access.workspace(path.id, 'admin', MANAGE);
  await removeMemberAs(db, { workspaceId: workspace.id, userId: path.userId, callerRole: role, actor: keyActor(auth) });
  return { status: 204 };
};

export const listInvites: Handler<'Invitations_list'> = async ({ db, access, path }) => {
  const { workspace } = await access.workspace(path.id, 'admin', MANAGE);
  return { status: 200, body: await listInvitations(db, workspace.id) };
};

export const invite: Handler<'Invitations_create'> = async ({ db, access, auth, path, body, mail, config }) => {
  const { workspace, role } = await access.workspace(path.id, 'admin', MANAGE);
  const invitation = await inviteMember(db, mail, { workspaceId: workspace.id, email: body.email, role: body.role, callerRole: role, invitedBy: auth.userId, actor: keyActor(auth), publicUrl: config.publicUrl });
  return { status: 201, body: invitation };
};

export const withdraw: Handler<'Invitations_delete'> = async ({ db, access, auth, path }) => {
  const { workspace } = await access.workspace(path.id, 'admin', MANAGE);
  await withdrawInvitation(db, { workspaceId: workspace.id, invitationId: path.invitationId, actor: keyActor(auth) });
  return { status: 204 };
};

export const accept: Handler<'InvitationAcceptance_accept'> = async ({ db, body }) => ({ status: 200, body: await acceptInvitation(db, body.token, body.password) });
