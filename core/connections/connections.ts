import crypto from 'node:crypto';
import { Connection, isUniqueViolation, withTransaction, type DbOrTrx } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { connectionCreated, connectionRemoved, connectionUpdated, type Actor } from '../activity/index.ts';
import { checkPublicUrl } from '../net/index.ts';
import { Conflict, DomainError, NotFound, ValidationFailed, isUuid, newId, nowMs, toIso, type Config } from '../platform/index.ts';
import { keyringFor, type Keyring } from '../secrets/index.ts';
import { DEFAULT_BASE_URL, HostError, hostClient, type Provider } from './hosts.ts';

/** What connecting needs from the process: its keys, how it reaches hosts, and where it is reached. */
export interface ConnectionSettings {
  keyring: Keyring;
  allowPrivateNetwork: boolean;
  /** One call to the host, everything included. */
  timeoutMs: number;
  /** PUBLIC_URL: the root of the webhook URLs and of the links in commit statuses. */
  publicUrl: string;
}

const settingsByConfig = new WeakMap<Config, ConnectionSettings>();

/** The settings of a process, from its configuration (one keyring per process). */
export function connectionSettings(config: Config): ConnectionSettings {
  let s = settingsByConfig.get(config);
  if (!s) {
    s = { keyring: keyringFor(config), allowPrivateNetwork: config.allowPrivateNetwork, timeoutMs: config.fetchTimeoutMs, publicUrl: config.publicUrl };
    settingsByConfig.set(config, s);
  }
  return s;
}

/** Sealed values name the row and what they are, so one copied to another row or column does not open. */
const sealContext = (id: string, what: 'token' | 'webhook_secret' | 'signing_token') => `repository_connections/${id}/${what}`;

export function webhookUrlOf(publicUrl: string, c: { id: string; provider: string }): string {
  return `${publicUrl}/v1/hooks/${c.provider}/${c.id}`;
}

export function connectionToApi(c: Connection, publicUrl: string): Schemas['Connection'] {
  return {
    id: c.id,
    workspaceId: c.workspace_id,
    provider: c.provider,
    baseUrl: c.base_url,
    repository: c.repository,
    branches: c.branches,
    trigger: c.trigger_kind,
    failOn: c.fail_on,
    state: c.state,
    lastError: c.last_error ?? null,
    lastErrorAt: toIso(c.last_error_at),
    verifiedAt: toIso(c.verified_at),
    webhookUrl: webhookUrlOf(publicUrl, c),
    createdAt: toIso(c.created_at)!,
    updatedAt: toIso(c.updated_at)!,
  };
}

/** The plaintext secrets of a connection, for the code that must use them; never logged or returned. */
export interface OpenedSecrets {
  token: string;
  webhookSecret: string;
  signingToken: string | null;
}

export function openSecrets(c: Connection, keyring: Keyring): OpenedSecrets {
  return {
    token: keyring.open(c.token, sealContext(c.id, 'token')),
    webhookSecret: keyring.open(c.webhook_secret, sealContext(c.id, 'webhook_secret')),
    signingToken: c.signing_token === null ? null : keyring.open(c.signing_token, sealContext(c.id, 'signing_token')),
  };
}

/** A webhook secret as both hosts accept it: 32 random bytes, base64url (43 characters). */
function newWebhookSecret(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export async function getConnection(db: DbOrTrx, workspaceId: string, id: string): Promise<Connection> {
  const c = isUuid(id) ? await Connection.query(db).findById(id).where({ workspace_id: workspaceId }) : undefined;
  if (!c) throw new NotFound();
  return c;
}

/** A connection by id alone (inbound hooks and jobs), or undefined. */
export async function findConnection(db: DbOrTrx, id: string): Promise<Connection | undefined> {
  return isUuid(id) ? Connection.query(db).findById(id.toLowerCase()) : undefined;
}

export async function listConnections(db: DbOrTrx, workspaceId: string, publicUrl: string): Promise<Schemas['ConnectionList']> {
  const rows = await Connection.query(db)
    .where({ workspace_id: workspaceId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return { data: rows.map((c) => connectionToApi(c, publicUrl)) };
}

function checkRepository(provider: Provider, repository: string): void {
  if (provider === 'github' && repository.split('/').length !== 2) {
    throw new ValidationFailed('A GitHub repository is owner/name.', [{ in: 'body', path: '/repository', message: 'must be owner/name on GitHub' }]);
  }
}

function checkBaseUrl(baseUrl: string, allowPrivateNetwork: boolean): void {
  // Plain http is for a host on the local network only (tests, a lab GitLab), as the operator allows it.
  const verdict = checkPublicUrl(baseUrl, { allowPrivateNetwork, httpsOnly: !allowPrivateNetwork });
  if (!verdict.ok) throw new ValidationFailed(`baseUrl: ${verdict.reason}`, [{ in: 'body', path: '/baseUrl', message: verdict.reason }]);
}

/** The one call that proves the token can read the repository (spec/connections.tsp). */
async function validateWithHost(provider: Provider, baseUrl: string, repository: string, token: string, s: ConnectionSettings): Promise<string> {
  try {
    const { externalId } = await hostClient({ provider, baseUrl, repository, token }, { allowPrivateNetwork: s.allowPrivateNetwork, timeoutMs: s.timeoutMs, attempts: 2 }).readRepository();
    return externalId;
  } catch (err) {
    const e = err instanceof HostError ? err : new HostError('other', String(err));
    const what = e.kind === 'auth' ? 'refused the token' : e.kind === 'not_found' ? `has no repository ${repository} that this token can read` : 'could not be reached';
    throw new DomainError(422, 'repository_unreachable', 'Repository unreachable', `${provider === 'github' ? 'GitHub' : 'GitLab'} at ${baseUrl} ${what}: ${e.message}`.slice(0, 500));
  }
}

function checkSigningToken(provider: Provider, signingToken: string | null | undefined): void {
  if (signingToken != null && provider !== 'gitlab') {
    throw new ValidationFailed('signingToken is for GitLab connections only.', [{ in: 'body', path: '/signingToken', message: 'is for GitLab connections only' }]);
  }
}

export async function createConnection(
  db: DbOrTrx,
  workspaceId: string,
  input: Schemas['ConnectionCreate'],
  s: ConnectionSettings,
  actor: Actor,
): Promise<Schemas['ConnectionWithSecret']> {
  if (!s.keyring.configured) s.keyring.seal('', ''); // throws secrets_unconfigured before the host is called
  const baseUrl = (input.baseUrl ?? DEFAULT_BASE_URL[input.provider]).replace(/\/+$/, '');
  checkRepository(input.provider, input.repository);
  checkBaseUrl(baseUrl, s.allowPrivateNetwork);
  checkSigningToken(input.provider, input.signingToken);
  const externalId = await validateWithHost(input.provider, baseUrl, input.repository, input.token, s);
  const id = newId();
  const now = nowMs();
  const webhookSecret = newWebhookSecret();
  try {
    const row = await withTransaction(db, async (trx) => {
      const inserted = await Connection.query(trx).insert({
        id,
        workspace_id: workspaceId,
        provider: input.provider,
        base_url: baseUrl,
        repository: input.repository,
        external_id: externalId,
        branches: input.branches,
        trigger_kind: input.trigger ?? 'push',
        fail_on: input.failOn ?? 'high',
        token: s.keyring.seal(input.token, sealContext(id, 'token')),
        webhook_secret: s.keyring.seal(webhookSecret, sealContext(id, 'webhook_secret')),
        signing_token: input.signingToken == null ? null : s.keyring.seal(input.signingToken, sealContext(id, 'signing_token')),
        state: 'pending',
        last_error: null,
        last_error_at: null,
        verified_at: null,
        created_at: now,
        updated_at: now,
      });
      await connectionCreated(trx, { workspaceId, actor, connectionId: id, provider: input.provider, repository: input.repository });
      return inserted;
    });
    return { ...connectionToApi(row, s.publicUrl), webhookSecret };
  } catch (err) {
    if (isUniqueViolation(err, 'repository_connections')) throw new Conflict('connection_exists', `${input.repository} is connected to this workspace already.`);
    throw err;
  }
}

export async function updateConnection(
  db: DbOrTrx,
  c: Connection,
  input: Schemas['ConnectionUpdate'],
  s: ConnectionSettings,
  actor: Actor,
): Promise<Schemas['Connection'] | Schemas['ConnectionWithSecret']> {
  checkSigningToken(c.provider, input.signingToken);
  const patch: Partial<Connection> = { updated_at: nowMs() };
  const changed: string[] = [];
  if (input.token !== undefined) {
    patch.external_id = await validateWithHost(c.provider, c.base_url, c.repository, input.token, s);
    patch.token = s.keyring.seal(input.token, sealContext(c.id, 'token'));
    // A new token is a fresh start: a broken connection is usable again.
    if (c.state === 'broken') patch.state = c.verified_at === null ? 'pending' : 'verified';
    patch.last_error = null;
    patch.last_error_at = null;
    changed.push('token');
  }
  if (input.signingToken !== undefined) {
    patch.signing_token = input.signingToken === null ? null : s.keyring.seal(input.signingToken, sealContext(c.id, 'signing_token'));
    changed.push('signingToken');
  }
  let webhookSecret: string | undefined;
  if (input.rotateSecret === true) {
    webhookSecret = newWebhookSecret();
    patch.webhook_secret = s.keyring.seal(webhookSecret, sealContext(c.id, 'webhook_secret'));
    changed.push('webhookSecret');
  }
  if (input.branches !== undefined) {
    patch.branches = input.branches;
    changed.push('branches');
  }
  if (input.trigger !== undefined) {
    patch.trigger_kind = input.trigger;
    changed.push('trigger');
  }
  if (input.failOn !== undefined) {
    patch.fail_on = input.failOn;
    changed.push('failOn');
  }
  const row = await withTransaction(db, async (trx) => {
    const n = await Connection.query(trx).findById(c.id).patch(patch);
    if (n === 0) throw new NotFound();
    if (changed.length > 0) {
      const security = changed.some((x) => x === 'token' || x === 'signingToken' || x === 'webhookSecret');
      await connectionUpdated(trx, { workspaceId: c.workspace_id, actor, connectionId: c.id, provider: c.provider, repository: c.repository, changed, security });
    }
    return (await Connection.query(trx).findById(c.id))!;
  });
  const api = connectionToApi(row, s.publicUrl);
  return webhookSecret === undefined ? api : { ...api, webhookSecret };
}

export async function removeConnection(db: DbOrTrx, c: Connection, actor: Actor): Promise<void> {
  await withTransaction(db, async (trx) => {
    const n = await Connection.query(trx).deleteById(c.id);
    if (n === 0) throw new NotFound();
    await connectionRemoved(trx, { workspaceId: c.workspace_id, actor, connectionId: c.id, provider: c.provider, repository: c.repository });
  });
}

/**
 * Re-seals every stored secret with the current key (after SECRETS_KEY gained a new first key),
 * so the older key can then be removed. Returns how many connections were re-sealed.
 */
export async function resealConnections(db: DbOrTrx, keyring: Keyring): Promise<number> {
  let count = 0;
  for (const c of await Connection.query(db)) {
    if (!keyring.isStale(c.token) && !keyring.isStale(c.webhook_secret) && (c.signing_token === null || !keyring.isStale(c.signing_token))) continue;
    const open = openSecrets(c, keyring);
    await Connection.query(db)
      .findById(c.id)
      .patch({
        token: keyring.seal(open.token, sealContext(c.id, 'token')),
        webhook_secret: keyring.seal(open.webhookSecret, sealContext(c.id, 'webhook_secret')),
        signing_token: open.signingToken === null ? null : keyring.seal(open.signingToken, sealContext(c.id, 'signing_token')),
      });
    count++;
  }
  return count;
}
