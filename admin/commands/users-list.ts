import { isEmail, listUsers } from '../../core/access/index.ts';
import { toIso } from '../../core/platform/index.ts';
import { defineCommand, optional, limitFlag, uuid, UsageError } from '../command.ts';

export default defineCommand({
  name: 'users list',
  summary: 'list users (to find an id again)',
  help: `Usage: npm run admin -- users list [--account A] [--email E] [--limit N] [--json]

Lists users, oldest first: the way back to an id when bootstrap's output is lost.

  --account A   only the users of account A (UUID)
  --email E     only the user with this email
  --limit N     at most N users (1 to 1000, default 100)

--json prints {users: [{id, accountId, email, createdAt}]}.`,
  options: {
    account: { type: 'string' },
    email: { type: 'string' },
    limit: { type: 'string' },
  },
  parse(values) {
    const account = optional(values, 'account');
    const email = optional(values, 'email');
    if (email !== undefined && !isEmail(email.trim())) throw new UsageError(`--email must be an email address, got "${email}"`);
    const limit = limitFlag(values, 100);
    return { accountId: account === undefined ? undefined : uuid('account', account), email, limit };
  },
  async run(db, input) {
    const users = await listUsers(db, input);
    return { users: users.map((u) => ({ ...u, createdAt: toIso(u.createdAt)! })) };
  },
  json: (r) => r,
  text(r) {
    if (r.users.length === 0) return 'No users.';
    return r.users.map((u) => `${u.id}  ${u.email}  account ${u.accountId}  created ${u.createdAt}`).join('\n');
  },
});
