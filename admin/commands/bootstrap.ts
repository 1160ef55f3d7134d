import { createUser, createApiKey, isEmail, SCOPES } from '../../core/access/index.ts';
import { createWorkspace } from '../../core/workspaces/index.ts';
import { schemaErrors } from '../../core/contract/index.ts';
import { withTransaction } from '../../core/db/index.ts';
import { operatorActor } from '../../core/activity/index.ts';
import { defineCommand, lines, optional, required, UsageError } from '../command.ts';

export default defineCommand({
  name: 'bootstrap',
  summary: 'create an account, its owner, an optional workspace and an all-scope key',
  help: `Usage: npm run admin -- bootstrap --email E [--workspace-name N --website URL] [--json]

Creates an account, its owner user, optionally a workspace owned by that user, and an
API key with every scope that is not bound to a workspace. Everything or nothing is
created. The key is printed only here.

  --email E            the owner's email address
  --workspace-name N   name of the first workspace (needs --website)
  --website URL        http or https URL the workspace watches (needs --workspace-name)

--json prints {accountId, userId, workspaceId, apiKey}; workspaceId is null without a workspace.`,
  options: {
    email: { type: 'string' },
    'workspace-name': { type: 'string' },
    website: { type: 'string' },
  },
  parse(values) {
    const email = required(values, 'email');
    if (!isEmail(email)) throw new UsageError(`--email must be an email address, got "${email}"`);
    const name = optional(values, 'workspace-name');
    const website = optional(values, 'website');
    if ((name === undefined) !== (website === undefined)) throw new UsageError('--workspace-name and --website go together');
    if (name !== undefined && website !== undefined) {
      const errors = schemaErrors('WorkspaceCreate', { name, website });
      if (errors.length) {
        const flag = (p: string) => (p === '/name' ? '--workspace-name' : `--${p.slice(1)}`);
        throw new UsageError(errors.map((e) => `${flag(e.path)} ${e.message}`).join('; '));
      }
    }
    return { email, workspace: name !== undefined && website !== undefined ? { name, website } : null };
  },
  async run(db, input) {
    const actor = operatorActor();
    // One transaction: a taken slug must not leave an account without its key behind.
    return withTransaction(db, async (trx) => {
      const { userId, accountId } = await createUser(trx, input.email);
      const workspaceId = input.workspace
        ? (await createWorkspace(trx, { accountId, userId, input: input.workspace, actor })).id
        : null;
      const key = await createApiKey(trx, { userId, scopes: SCOPES, actor, name: 'bootstrap' });
      return { accountId, userId, workspaceId, apiKey: key.apiKey };
    });
  },
  json: (r) => r,
  text(r) {
    return `${lines([
      ['Account', r.accountId],
      ['User', r.userId],
      ['Workspace', r.workspaceId ?? '(none)'],
      ['API key', r.apiKey],
    ])}\n\nThe key has every scope and is shown only now: store it in a secret manager.`;
  },
});
