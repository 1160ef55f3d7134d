import { revokeApiKey } from '../../core/access/index.ts';
import { operatorActor } from '../../core/activity/index.ts';
import { toIso } from '../../core/platform/index.ts';
import { defineCommand, required, uuid } from '../command.ts';

export default defineCommand({
  name: 'keys revoke',
  summary: 'revoke an API key',
  help: `Usage: npm run admin -- keys revoke --id K [--json]

Revokes the key at once. Revoking a revoked key changes nothing and prints its original
revocation time.

  --id K   key id (UUID), as printed by keys create

--json prints {id, revokedAt}.`,
  options: {
    id: { type: 'string' },
  },
  parse(values) {
    return { id: uuid('id', required(values, 'id')) };
  },
  async run(db, input) {
    const r = await revokeApiKey(db, input.id, { actor: operatorActor() });
    return { id: r.id, revokedAt: toIso(r.revokedAt)! };
  },
  json: (r) => r,
  text(r) {
    return `Key ${r.id} revoked at ${r.revokedAt}.`;
  },
});
