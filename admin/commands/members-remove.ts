import { removeMember } from '../../core/access/index.ts';
import { operatorActor } from '../../core/activity/index.ts';
import { defineCommand, required, uuid } from '../command.ts';

export default defineCommand({
  name: 'members remove',
  summary: 'remove a user from a workspace',
  help: `Usage: npm run admin -- members remove --workspace W --user U [--json]

Removes the member and revokes the user's keys bound to that workspace. Removing the
last owner is refused.

  --workspace W   workspace id (UUID)
  --user U        user id (UUID)

--json prints {workspaceId, userId}.`,
  options: {
    workspace: { type: 'string' },
    user: { type: 'string' },
  },
  parse(values) {
    return { workspaceId: uuid('workspace', required(values, 'workspace')), userId: uuid('user', required(values, 'user')) };
  },
  async run(db, input) {
    const r = await removeMember(db, { ...input, actor: operatorActor() });
    return { workspaceId: r.workspaceId, userId: r.userId, revokedKeyIds: r.revokedKeyIds };
  },
  json: (r) => ({ workspaceId: r.workspaceId, userId: r.userId }),
  text(r) {
    const keys = r.revokedKeyIds.length ? ` Revoked ${r.revokedKeyIds.length} key(s) bound to it: ${r.revokedKeyIds.join(', ')}.` : '';
    return `User ${r.userId} left workspace ${r.workspaceId}.${keys}`;
  },
});
