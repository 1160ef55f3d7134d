import { createUser, isEmail } from '../../core/access/index.ts';
import { defineCommand, lines, optional, required, UsageError, uuid } from '../command.ts';

export default defineCommand({
  name: 'users create',
  summary: 'create a user (in a new account unless --account is given)',
  help: `Usage: npm run admin -- users create --email E [--account A] [--json]

  --email E     the user's email address (unique; compared case-insensitively)
  --account A   the account (UUID) to add the user to; a new account when absent

--json prints {userId, accountId}.`,
  options: {
    email: { type: 'string' },
    account: { type: 'string' },
  },
  parse(values) {
    const email = required(values, 'email');
    if (!isEmail(email)) throw new UsageError(`--email must be an email address, got "${email}"`);
    const account = optional(values, 'account');
    return { email, accountId: account === undefined ? null : uuid('account', account) };
  },
  async run(db, input) {
    const { userId, accountId } = await createUser(db, input.email, input.accountId);
    return { userId, accountId };
  },
  json: (r) => r,
  text(r) {
    return lines([
      ['User', r.userId],
      ['Account', r.accountId],
    ]);
  },
});
