import { setWorkspaceLimit } from '../../core/access/index.ts';
import { operatorActor } from '../../core/activity/index.ts';
import { defineCommand, positiveInt, required, uuid } from '../command.ts';

export default defineCommand({
  name: 'accounts set-limit',
  summary: 'set how many workspaces an account may hold',
  help: `Usage: npm run admin -- accounts set-limit --account A --workspaces N [--json]

Sets the account's workspace limit (a new account's is 10). A limit below the current
number of workspaces keeps them but refuses new ones.

  --account A      account id (UUID)
  --workspaces N   a positive integer

--json prints {accountId, workspaceLimit}.`,
  options: {
    account: { type: 'string' },
    workspaces: { type: 'string' },
  },
  parse(values) {
    return { accountId: uuid('account', required(values, 'account')), limit: positiveInt('workspaces', required(values, 'workspaces')) };
  },
  async run(db, input) {
    const r = await setWorkspaceLimit(db, input.accountId, input.limit, { actor: operatorActor() });
    return { accountId: r.accountId, workspaceLimit: r.workspaceLimit, previousLimit: r.previousLimit };
  },
  json: (r) => ({ accountId: r.accountId, workspaceLimit: r.workspaceLimit }),
  text(r) {
    return `Account ${r.accountId} may now hold ${r.workspaceLimit} workspace(s) (was ${r.previousLimit}).`;
  },
});
