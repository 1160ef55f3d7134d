import type { DbOrTrx } from '../db/index.ts';
import { Forbidden, NotFound, referenceNotFound, type ReferencingField } from '../platform/index.ts';
import { roleAtLeast, type Role } from './roles.ts';
import { bindingAllows, visibleWorkspace, visibleWorkspaceIds, type Caller, type VisibleWorkspace } from './visibility.ts';

const ROLE_NEEDED: Record<Role, string> = {
  viewer: 'a member of',
  member: 'a member, admin or owner of',
  admin: 'an admin or owner of',
  owner: 'the owner of',
};

/**
 * Who may see and do what, per docs/api.md#who-may-do-what, for one request. A workspace the key
 * cannot see is 404 (never 403); only once it is visible does a too-low role become 403.
 */
export class WorkspaceGuard {
  constructor(
    private readonly db: DbOrTrx,
    private readonly caller: Caller,
    /** The workspace authentication already read (authenticateKey's hint), if any. */
    private readonly prefetched: VisibleWorkspace | null,
    /** Called with every workspace the caller can see that this request touches (request logs). */
    private readonly onWorkspace: (workspaceId: string) => void = () => {},
    /**
     * The body or query field that names the request's workspace (the operation's `x-workspace`,
     * spec/main.tsp) and the id it gave: a 404 for that id names the field.
     */
    private readonly namingField: (ReferencingField & { id: string }) | null = null,
  ) {}

  /** The workspace, once the caller can see it and has at least `minRole` in it. */
  async workspace(workspaceId: string, minRole: Role = 'viewer', action = 'do this'): Promise<VisibleWorkspace> {
    const found =
      this.prefetched && this.prefetched.workspace.id === workspaceId && bindingAllows(this.caller, workspaceId)
        ? this.prefetched
        : await visibleWorkspace(this.db, this.caller, workspaceId);
    if (!found) {
      // The same answer for a workspace that does not exist and one the caller cannot see.
      const field = this.namingField && this.namingField.id.toLowerCase() === workspaceId.toLowerCase() ? this.namingField : null;
      throw field ? referenceNotFound('workspace', field) : new NotFound();
    }
    this.onWorkspace(workspaceId);
    if (!roleAtLeast(found.role, minRole)) {
      throw new Forbidden(`Only ${ROLE_NEEDED[minRole]} this workspace may ${action}; your role is ${found.role}.`, minRole);
    }
    return found;
  }

  /** Marks a workspace as touched by this request (e.g. the one a create made) for the request log. */
  markWorkspace(workspaceId: string): void {
    this.onWorkspace(workspaceId);
  }

  /** Ids of every workspace the caller can see (only the bound one for a bound key), oldest first. */
  workspaceIds(): Promise<string[]> {
    return visibleWorkspaceIds(this.db, this.caller);
  }
}
