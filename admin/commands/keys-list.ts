import { listApiKeys } from '../../core/access/index.ts';
import { toIso } from '../../core/platform/index.ts';
import { defineCommand, optional, limitFlag, uuid, UsageError } from '../command.ts';

export default defineCommand({
  name: 'keys list',
  summary: 'list API keys (never their secret)',
  help: `Usage: npm run admin -- keys list [--user U | --account A] [--limit N] [--json]

Lists API keys, newest first, with their hint (the first characters), scopes, binding and
when they were last used or revoked. The secret itself is never stored, so it cannot be shown:
create a new key and revoke the old one.

  --user U      only the keys of user U (UUID)
  --account A   only the keys of the users of account A (UUID)
  --limit N     at most N keys (1 to 1000, default 100)

--json prints {keys: [{id, userId, name, hint, scopes, workspaceId, createdAt, lastUsedAt, revokedAt}]}.`,
  options: {
    user: { type: 'string' },
    account: { type: 'string' },
    limit: { type: 'string' },
  },
  parse(values) {
    const user = optional(values, 'user');
    const account = optional(values, 'account');
    if (user !== undefined && account !== undefined) throw new UsageError('give --user or --account, not both');
    const limit = limitFlag(values, 100);
    return { userId: user === undefined ? undefined : uuid('user', user), accountId: account === undefined ? undefined : uuid('account', account), limit };
  },
  async run(db, input) {
    const keys = await listApiKeys(db, input);
    return {
      keys: keys.map((k) => ({ ...k, createdAt: toIso(k.createdAt)!, lastUsedAt: toIso(k.lastUsedAt), revokedAt: toIso(k.revokedAt) })),
    };
  },
  json: (r) => r,
  text(r) {
    if (r.keys.length === 0) return 'No keys.';
    return r.keys
      .map((k) => `${k.id}  ${k.hint}…  ${k.scopes.join(',')}  user ${k.userId}${k.workspaceId ? `  bound to ${k.workspaceId}` : ''}${k.name ? `  "${k.name}"` : ''}  ${k.revokedAt ? `revoked ${k.revokedAt}` : k.lastUsedAt ? `last used ${k.lastUsedAt}` : 'never used'}`)
      .join('\n');
  },
});
