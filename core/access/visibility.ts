import type { ModelObject } from 'objection';
import { Membership, Workspace, type DbOrTrx } from '../db/index.ts';
import { isUuid } from '../platform/index.ts';
import { isRole, type Role } from './roles.ts';

/** The caller as access rules see it: a user, narrowed to one workspace by a bound key. */
export interface Caller {
  userId: string;
  /** The key's binding; null for an unbound key. */
  workspaceId: string | null;
}

export type WorkspaceRow = ModelObject<Workspace>;

export interface VisibleWorkspace {
  workspace: WorkspaceRow;
  role: Role;
}

/** A bound key sees only its workspace. */
export function bindingAllows(caller: Caller, workspaceId: string): boolean {
  return caller.workspaceId === null || caller.workspaceId === workspaceId;
}

/**
 * The workspace and the caller's role in it, in one query, or null when the caller cannot see
 * it (no such workspace, not a member, or another workspace than the key's binding).
 */
export async function visibleWorkspace(db: DbOrTrx, caller: Caller, workspaceId: string): Promise<VisibleWorkspace | null> {
  if (!isUuid(workspaceId) || !bindingAllows(caller, workspaceId)) return null;
  const row = (await Workspace.query(db)
    .join('memberships as m', 'm.workspace_id', 'workspaces.id')
    .where({ 'workspaces.id': workspaceId, 'm.user_id': caller.userId })
    .select('workspaces.*', 'm.role as member_role')
    .first()) as (Workspace & { member_role?: string }) | undefined;
  if (!row || !isRole(row.member_role)) return null;
  const { member_role: role, ...workspace } = row.toJSON() as WorkspaceRow & { member_role: Role };
  return { workspace, role };
}

/**
 * Ids of the workspaces the caller can see, oldest first: the user's memberships, narrowed to
 * the binding for a bound key (and empty when the user has left the bound workspace).
 */
export async function visibleWorkspaceIds(db: DbOrTrx, caller: Caller): Promise<string[]> {
  const q = Membership.query(db)
    .join('workspaces as w', 'w.id', 'memberships.workspace_id')
    .where('memberships.user_id', caller.userId)
    .orderBy([{ column: 'w.created_at' }, { column: 'w.id' }])
    .select('w.id as id');
  if (caller.workspaceId) q.where('w.id', caller.workspaceId);
  return ((await q) as unknown as Array<{ id: string }>).map((r) => r.id);
}
