import { addMember, isRole, ROLES } from '../../core/access/index.ts';
import { operatorActor } from '../../core/activity/index.ts';
import { defineCommand, required, UsageError, uuid } from '../command.ts';

export default defineCommand({
  name: 'members add',
  summary: 'add a user to a workspace, or change the role of a member',
  help: `Usage: npm run admin -- members add --workspace W --user U --role ${ROLES.join('|')} [--json]

Adds the user to the workspace with the role, or changes the role of an existing member.
Demoting the last owner is refused.

  --workspace W   workspace id (UUID)
  --user U        user id (UUID)
  --role R        one of ${ROLES.join(', ')}

--json prints {workspaceId, userId, role}.`,
  options: {
    workspace: { type: 'string' },
    user: { type: 'string' },
    role: { type: 'string' },
  },
  parse(values) {
    const workspaceId = uuid('workspace', required(values, 'workspace'));
    const userId = uuid('user', required(values, 'user'));
    const role = required(values, 'role');
    if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}, got "${role}"`);
    return { workspaceId, userId, role };
  },
  async run(db, input) {
    const r = await addMember(db, { ...input, actor: operatorActor() });
    return { workspaceId: r.workspaceId, userId: r.userId, role: r.role, previousRole: r.previousRole };
  },
  json: (r) => ({ workspaceId: r.workspaceId, userId: r.userId, role: r.role }),
  text(r) {
    if (r.previousRole === null) return `User ${r.userId} joined workspace ${r.workspaceId} as ${r.role}.`;
    if (r.previousRole === r.role) return `User ${r.userId} already is ${r.role} of workspace ${r.workspaceId}; nothing changed.`;
    return `User ${r.userId} is now ${r.role} of workspace ${r.workspaceId} (was ${r.previousRole}).`;
  },
});
