import { resealTwoStepSecrets } from '../../core/access/index.ts';
import { connectionSettings, resealConnections } from '../../core/connections/index.ts';
import { loadConfig } from '../../core/platform/index.ts';
import { defineCommand } from '../command.ts';

export default defineCommand({
  name: 'secrets reseal',
  summary: 'seal stored credentials again with the first key of SECRETS_KEY',
  help: `Usage: npm run admin -- secrets reseal [--json]

After SECRETS_KEY gained a new first key (docs/operating.md#rotating-secrets_key), seals every
stored credential that an older key sealed (connected repositories' tokens and secrets, two-step
secrets) with the
new one, so the older key can be removed. Idempotent.

--json prints {resealed, twoStepSecrets}.`,
  options: {},
  parse() {
    return {};
  },
  async run(db) {
    const keyring = connectionSettings(loadConfig()).keyring;
    return { resealed: await resealConnections(db, keyring), twoStepSecrets: await resealTwoStepSecrets(db, keyring) };
  },
  json: (r) => r,
  text: (r) => `Re-sealed ${r.resealed} connection(s) and ${r.twoStepSecrets} two-step secret(s) with the current key.`,
});
