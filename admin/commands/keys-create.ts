import { createApiKey, parseScopes, SCOPES } from '../../core/access/index.ts';
import { operatorActor } from '../../core/activity/index.ts';
import { DomainError } from '../../core/platform/index.ts';
import { defineCommand, lines, optional, required, UsageError, uuid } from '../command.ts';

export default defineCommand({
  name: 'keys create',
  summary: 'create an API key for a user',
  help: `Usage: npm run admin -- keys create --user U --scopes ${SCOPES.join(',')} [--workspace W] [--name N] [--json]

Creates an API key. It is printed only here and stored only as a SHA-256 digest.

  --user U        user id (UUID) the key acts as (with that user's role in each workspace)
  --scopes S      comma-separated, at least one of: ${SCOPES.join(', ')}
  --workspace W   bind the key to this workspace (UUID); the user must be a member
  --name N        a label for the key, up to 255 characters

--json prints {id, apiKey, scopes, workspaceId}.`,
  options: {
    user: { type: 'string' },
    scopes: { type: 'string' },
    workspace: { type: 'string' },
    name: { type: 'string' },
  },
  parse(values) {
    const userId = uuid('user', required(values, 'user'));
    let scopes;
    try {
      scopes = parseScopes(required(values, 'scopes'));
    } catch (err) {
      if (err instanceof DomainError) throw new UsageError(`--scopes: ${err.message}`);
      throw err;
    }
    const workspace = optional(values, 'workspace');
    const name = optional(values, 'name');
    if (name !== undefined && name.length > 255) throw new UsageError('--name must be at most 255 characters');
    return { userId, scopes, workspaceId: workspace === undefined ? null : uuid('workspace', workspace), name: name ?? null };
  },
  async run(db, input) {
    const k = await createApiKey(db, { ...input, actor: operatorActor() });
    return { id: k.id, apiKey: k.apiKey, scopes: k.scopes, workspaceId: k.workspaceId };
  },
  json: (r) => r,
  text(r) {
    return `${lines([
      ['Key id', r.id],
      ['API key', r.apiKey],
      ['Scopes', r.scopes.join(', ')],
      ['Workspace', r.workspaceId ?? '(not bound)'],
    ])}\n\nThe key is shown only now: store it in a secret manager.`;
  },
});
