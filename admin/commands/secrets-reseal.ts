import { resealSsoSecrets, resealTwoStepSecrets } from '../../core/access/index.ts';
import { connectionSettings, resealConnections } from '../../core/connections/index.ts';
import { loadConfig } from '../../core/platform/index.ts';
import { resealSearchConsole } from '../../core/search-console/index.ts';
import { resealWebhookSecrets } from '../../core/webhooks/index.ts';
import { defineCommand } from '../command.ts';

export default defineCommand({
  name: 'secrets reseal',
  summary: 'seal stored credentials again with the first key of SECRETS_KEY',
  help: `Usage: npm run admin -- secrets reseal [--json]

After SECRETS_KEY gained a new first key (docs/operating.md#rotating-secrets_key), seals every
stored credential that an older key sealed (connected repositories' tokens and secrets, Search
Console refresh tokens, two-step secrets, single sign-on client secrets, webhook signing secrets)
with the new one, so the older key can be removed. It also seals any webhook secret stored as given:
while SECRETS_KEY was unset, or by a server of a release before webhook secrets were sealed
during a rolling upgrade (docs/operating.md#upgrades).
Idempotent.

--json prints {resealed, twoStepSecrets, ssoSecrets, webhookSecrets}.`,
  options: {},
  parse() {
    return {};
  },
  async run(db) {
    const keyring = connectionSettings(loadConfig()).keyring;
    return {
      resealed: (await resealConnections(db, keyring)) + (await resealSearchConsole(db, keyring)),
      twoStepSecrets: await resealTwoStepSecrets(db, keyring),
      ssoSecrets: await resealSsoSecrets(db, keyring),
      webhookSecrets: await resealWebhookSecrets(db, keyring),
    };
  },
  json: (r) => r,
  text: (r) => `Re-sealed ${r.resealed} connection(s) (repositories and Search Console), ${r.twoStepSecrets} two-step secret(s), ${r.ssoSecrets} single sign-on secret(s) and ${r.webhookSecrets} webhook(s)' signing secrets with the current key.`,
});
