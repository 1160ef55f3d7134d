import type { DbOrTrx } from './db/connection.ts';
import { isPostgres } from './db/connection.ts';
import { isUuid } from './ids.ts';
import { nowMs } from './clock.ts';
import { Conflict, NotFound, ValidationFailed } from './errors.ts';
import { memberJoined, memberLeft, memberRoleChanged, operatorActor, type Actor } from './activity.ts';
import { revokeBoundKeysOf } from './api-keys.ts';

/** Highest first: owner > admin > member > viewer (CONTRACT 2.1). */
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** True when `role` is `min` or higher. */
export function roleAtLeast(role: Role | null | undefined, min: Role): boolean {
  return !!role && ROLES.indexOf(role) <= ROLES.indexOf(min);
}

/** What the access checks need from an authenticated key. */
export interface Caller {
  userId: string;
  /** The key's binding; null for an unbound key. */
  workspaceId: string | null;
}

export async function roleIn(db: DbOrTrx, userId: string, workspaceId: string): Promise<Role | null> {
  if (!isUuid(userId) || !isUuid(workspaceId)) return null;
  // Plain Knex rather than the Objection model: this runs on every workspace-scoped request
  // (the access check), and the model layer costs as much CPU as the query itself.
  const m = (await db('memberships').where({ workspace_id: workspaceId, user_id: userId }).first('role')) as { role: string } | undefined;
  return m && isRole(m.role) ? m.role : null;
}

/**
 * Workspaces the caller can see, oldest first: the user's memberships, narrowed to the
 * binding for a bound key (and empty when the user has left the bound workspace).
 */
export async function visibleWorkspaceIds(db: DbOrTrx, auth: Caller): Promise<string[]> {
  const q = db('memberships as m')
    .join('workspaces as w', 'w.id', 'm.workspace_id')
    .where('m.user_id', auth.userId)
    .orderBy([{ column: 'w.created_at' }, { column: 'w.id' }])
    .select('w.id');
  if (auth.workspaceId) q.andWhere('w.id', auth.workspaceId);
  return ((await q) as Array<{ id: string }>).map((r) => r.id);
}

interface MemberContext {
  workspace: { id: string; account_id: string };
  user: { id: string; email: string };
  current: Role | null;
}

// Membership changes of one workspace are serialised (row lock on PostgreSQL; SQLite has
// one writer) so two concurrent demotions cannot both pass the last-owner check.
async function loadForChange(trx: DbOrTrx, workspaceId: string, userId: string): Promise<MemberContext> {
  if (!isUuid(workspaceId)) throw new NotFound(`Workspace ${workspaceId} does not exist.`);
  if (!isUuid(userId)) throw new NotFound(`User ${userId} does not exist.`);
  const wq = trx('workspaces').where({ id: workspaceId }).first('id', 'account_id');
  if (isPostgres(trx)) wq.forUpdate();
  const workspace = (await wq) as MemberContext['workspace'] | undefined;
  if (!workspace) throw new NotFound(`Workspace ${workspaceId} does not exist.`);
  const user = (await trx('users').where({ id: userId }).first('id', 'email')) as MemberContext['user'] | undefined;
  if (!user) throw new NotFound(`User ${userId} does not exist.`);
  return { workspace, user, current: await roleIn(trx, userId, workspaceId) };
}

async function assertNotLastOwner(trx: DbOrTrx, workspaceId: string, what: string): Promise<void> {
  const row = (await trx('memberships').where({ workspace_id: workspaceId, role: 'owner' }).count({ n: '*' }).first()) as {
    n: number | string;
  };
  // Without an owner nobody could delete the workspace or manage it; add another owner first.
  if (Number(row.n) <= 1) throw new Conflict('last_owner', `Cannot ${what} the last owner of workspace ${workspaceId}; add another owner first.`);
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
 * member.role_changed). Setting the role a member already has writes nothing.
 */
export async function addMember(
  db: DbOrTrx,
  input: { workspaceId: string; userId: string; role: Role; actor?: Actor },
): Promise<MemberChange> {
  const { workspaceId, userId, role } = input;
  if (!isRole(role)) {
    throw new ValidationFailed(`role must be one of ${ROLES.join(', ')}.`, [{ in: 'body', path: '/role', message: `must be one of ${ROLES.join(', ')}` }]);
  }
  const actor = input.actor ?? operatorActor();
  return db.transaction(async (trx) => {
    const ctx = await loadForChange(trx, workspaceId, userId);
    const fields = { workspaceId, accountId: ctx.workspace.account_id, userId, email: ctx.user.email, actor };
    if (ctx.current === role) return { workspaceId, userId, role, previousRole: role };
    if (ctx.current === null) {
      await trx('memberships').insert({ workspace_id: workspaceId, user_id: userId, role, created_at: nowMs() });
      await memberJoined(trx, { ...fields, role });
    } else {
      if (ctx.current === 'owner') await assertNotLastOwner(trx, workspaceId, 'demote');
      await trx('memberships').where({ workspace_id: workspaceId, user_id: userId }).update({ role });
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
  return db.transaction(async (trx) => {
    const ctx = await loadForChange(trx, workspaceId, userId);
    if (ctx.current === null) throw new NotFound(`User ${userId} is not a member of workspace ${workspaceId}.`);
    if (ctx.current === 'owner') await assertNotLastOwner(trx, workspaceId, 'remove');
    await trx('memberships').where({ workspace_id: workspaceId, user_id: userId }).delete();
    await memberLeft(trx, { workspaceId, accountId: ctx.workspace.account_id, userId, email: ctx.user.email, role: ctx.current, actor });
    const revokedKeyIds = await revokeBoundKeysOf(trx, { userId, workspaceId, accountId: ctx.workspace.account_id, actor });
    return { workspaceId, userId, role: ctx.current, revokedKeyIds };
  });
}
