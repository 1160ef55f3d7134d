import { Membership, User, Workspace, isPostgres, withTransaction, type DbOrTrx } from '../db/index.ts';
import { Conflict, NotFound, ValidationFailed, isUuid, nowMs } from '../platform/index.ts';
import { memberJoined, memberLeft, memberRoleChanged, operatorActor, type Actor } from '../activity/index.ts';
import { revokeBoundKeysOf } from './api-keys.ts';
import { ROLES, isRole, type Role } from './roles.ts';

export async function roleIn(db: DbOrTrx, userId: string, workspaceId: string): Promise<Role | null> {
  if (!isUuid(userId) || !isUuid(workspaceId)) return null;
  const m = await Membership.query(db).findById([workspaceId, userId]).select('role');
  return m && isRole(m.role) ? m.role : null;
}

interface MemberContext {
  workspace: Workspace;
  user: User;
  current: Role | null;
}

// Membership changes of one workspace are serialised (row lock on PostgreSQL; SQLite's
// immediate transactions take the one write lock) so two concurrent demotions cannot both pass
// the last-owner check.
async function loadForChange(trx: DbOrTrx, workspaceId: string, userId: string): Promise<MemberContext> {
  if (!isUuid(workspaceId)) throw new NotFound(`Workspace ${workspaceId} does not exist.`);
  if (!isUuid(userId)) throw new NotFound(`User ${userId} does not exist.`);
  const wq = Workspace.query(trx).findById(workspaceId).select('id', 'account_id');
  if (isPostgres(trx)) wq.forUpdate();
  const workspace = await wq;
  if (!workspace) throw new NotFound(`Workspace ${workspaceId} does not exist.`);
  const user = await User.query(trx).findById(userId).select('id', 'email');
  if (!user) throw new NotFound(`User ${userId} does not exist.`);
  return { workspace, user, current: await roleIn(trx, userId, workspaceId) };
}

async function assertNotLastOwner(trx: DbOrTrx, workspaceId: string, what: string): Promise<void> {
  const owners = await Membership.query(trx).where({ workspace_id: workspaceId, role: 'owner' }).resultSize();
  // Without an owner nobody could delete the workspace or manage it; add another owner first.
  if (owners <= 1) throw new Conflict('last_owner', `Cannot ${what} the last owner of workspace ${workspaceId}; add another owner first.`);
}

export interface MemberChange {
  workspaceId: string;
  userId: string;
  role: Role;
  /** The role before the call; null when the user just joined. */
  previousRole: Role | null;
}

/**
 * Adds a member, or changes the role of an existing one (member.joined or
 * member.role_changed). Setting the role a member already has writes nothing. The next request
 * of any of the user's keys sees the change: roles are read on every request, never cached.
 */
export async function addMember(db: DbOrTrx, input: { workspaceId: string; userId: string; role: Role; actor?: Actor }): Promise<MemberChange> {
  const { workspaceId, userId, role } = input;
  if (!isRole(role)) {
    throw new ValidationFailed(`role must be one of ${ROLES.join(', ')}.`, [{ in: 'body', path: '/role', message: `must be one of ${ROLES.join(', ')}` }]);
  }
  const actor = input.actor ?? operatorActor();
  return withTransaction(db, async (trx) => {
    const ctx = await loadForChange(trx, workspaceId, userId);
    const fields = { workspaceId, accountId: ctx.workspace.account_id, userId, email: ctx.user.email, actor };
    if (ctx.current === role) return { workspaceId, userId, role, previousRole: role };
    if (ctx.current === null) {
      await Membership.query(trx).insert({ workspace_id: workspaceId, user_id: userId, role, created_at: nowMs() });
      await memberJoined(trx, { ...fields, role });
    } else {
      if (ctx.current === 'owner') await assertNotLastOwner(trx, workspaceId, 'demote');
      await Membership.query(trx).findById([workspaceId, userId]).patch({ role });
      await memberRoleChanged(trx, { ...fields, from: ctx.current, to: role });
    }
    return { workspaceId, userId, role, previousRole: ctx.current };
  });
}

/**
 * Removes a member (member.left). Keys of that user bound to the workspace are revoked
 * too: they could never see anything again, and a revocation row says so in the audit.
 */
export async function removeMember(
  db: DbOrTrx,
  input: { workspaceId: string; userId: string; actor?: Actor },
): Promise<{ workspaceId: string; userId: string; role: Role; revokedKeyIds: string[] }> {
  const { workspaceId, userId } = input;
  const actor = input.actor ?? operatorActor();
  return withTransaction(db, async (trx) => {
    const ctx = await loadForChange(trx, workspaceId, userId);
    if (ctx.current === null) throw new NotFound(`User ${userId} is not a member of workspace ${workspaceId}.`);
    if (ctx.current === 'owner') await assertNotLastOwner(trx, workspaceId, 'remove');
    await Membership.query(trx).findById([workspaceId, userId]).delete();
    await memberLeft(trx, { workspaceId, accountId: ctx.workspace.account_id, userId, email: ctx.user.email, role: ctx.current, actor });
    const revokedKeyIds = await revokeBoundKeysOf(trx, { userId, workspaceId, accountId: ctx.workspace.account_id, actor });
    return { workspaceId, userId, role: ctx.current, revokedKeyIds };
  });
}
