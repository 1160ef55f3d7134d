import crypto from 'node:crypto';
import type { Schemas } from '../contract/index.ts';
import { Membership, SsoAttempt, SsoSettingsRow, User, Workspace, isPostgres, runSql, withTransaction, type Db, type DbOrTrx, type RetentionRule } from '../db/index.ts';
import { DAY_MS } from '../db/index.ts';
import { DomainError, Forbidden, NotFound, ValidationFailed, isUuid, newId, nowMs, toIso, type Config } from '../platform/index.ts';
import { keyringFor, type Keyring } from '../secrets/index.ts';
import { userSecurityEvent, type Actor } from '../activity/index.ts';
import { normalizeEmail } from './users.ts';
import { revokeNonSsoSessionsOfAccount, servedFromLoopback, startSession, type ClientInfo } from './sessions.ts';
import type { AuthContext } from './authenticate.ts';
import { SsoProviderError, authorizationUrl, discoverProvider, exchangeCode, type ProviderSettings } from './sso-provider.ts';

// Single sign-on per account (spec/sso.tsp): the account's OpenID Connect client, sign-in
// attempts (state, nonce and PKCE verifier kept here, single use, 10 minutes, bound to the
// browser by a cookie), and the switch that makes it the only way in for the account's people.

/** The cookie that binds an attempt to the browser that started it. */
export const SSO_BINDING_COOKIE = 'sitehealth_sso';
export const SSO_CALLBACK_PATH = '/v1/sso/callback';
/** An attempt ends this long after it started. */
export const SSO_ATTEMPT_TTL_MS = 10 * 60_000;

class SsoNotConfigured extends DomainError {
  constructor() {
    super(404, 'sso_not_configured', 'Single sign-on not configured', 'There is no single sign-on for this address or account.');
  }
}

class SsoStateInvalid extends DomainError {
  constructor(detail: string) {
    super(400, 'sso_state_invalid', 'Sign-in attempt invalid', `${detail} Start again from the sign-in page in this browser; nothing was changed.`);
  }
}

class SsoExpired extends DomainError {
  constructor() {
    super(400, 'sso_expired', 'Sign-in attempt expired', `The sign-in attempt is older than ${SSO_ATTEMPT_TTL_MS / 60_000} minutes; start again. Nothing was changed.`);
  }
}

class SsoUserUnknown extends DomainError {
  constructor(detail: string) {
    super(403, 'sso_user_unknown', 'No such user in the account', `${detail} Ask an admin to invite the address first; nothing was changed.`);
  }
}

/** What SSO needs from the process: its keys, how it reaches providers, and where it is reached. */
export interface SsoSettings extends ProviderSettings {
  keyring: Keyring;
  /** PUBLIC_URL: the redirect URI's root and where a signed-in browser goes. */
  publicUrl: string;
}

const settingsByConfig = new WeakMap<Config, SsoSettings>();

export function ssoSettings(config: Config): SsoSettings {
  let s = settingsByConfig.get(config);
  if (!s) {
    s = { keyring: keyringFor(config), allowPrivateNetwork: config.allowPrivateNetwork, timeoutMs: config.fetchTimeoutMs, publicUrl: config.publicUrl };
    settingsByConfig.set(config, s);
  }
  return s;
}

export const redirectUriOf = (publicUrl: string) => `${publicUrl.replace(/\/+$/, '')}${SSO_CALLBACK_PATH}`;
const sealContext = (table: 'sso_settings' | 'sso_attempts', id: string, what: string) => `${table}/${id}/${what}`;
const digest = (value: string) => crypto.createHash('sha256').update(value, 'utf8').digest('hex');
const isRequired = (row: Pick<SsoSettingsRow, 'required'>) => row.required === true || Number(row.required) === 1;

function toApi(row: SsoSettingsRow, publicUrl: string): Schemas['SsoSettings'] {
  return {
    accountId: row.account_id,
    issuer: row.issuer,
    clientId: row.client_id,
    required: isRequired(row),
    redirectUri: redirectUriOf(publicUrl),
    createdAt: toIso(Number(row.created_at))!,
    updatedAt: toIso(Number(row.updated_at))!,
  };
}

/**
 * Only a caller who owns every workspace of the account (and at least one) manages its SSO: it
 * decides how every member signs in. A key bound to one workspace never does.
 */
async function assertAccountOwner(db: DbOrTrx, auth: AuthContext): Promise<void> {
  const refuse = () => new Forbidden('Only an owner of every workspace of the account may manage its single sign-on.', 'owner');
  if (auth.workspaceId !== null) throw refuse();
  const [workspaces, owned] = await Promise.all([
    Workspace.query(db).where({ account_id: auth.accountId }).resultSize(),
    Membership.query(db).join('workspaces as w', 'w.id', 'memberships.workspace_id').where({ 'w.account_id': auth.accountId, 'memberships.user_id': auth.userId, 'memberships.role': 'owner' }).resultSize(),
  ]);
  if (workspaces === 0 || owned !== workspaces) throw refuse();
}

export async function getSsoSettings(db: DbOrTrx, auth: AuthContext, publicUrl: string): Promise<Schemas['SsoSettings']> {
  await assertAccountOwner(db, auth);
  const row = await SsoSettingsRow.query(db).findById(auth.accountId);
  if (!row) throw new NotFound('This account has no single sign-on.');
  return toApi(row, publicUrl);
}

/**
 * Configures the account's SSO (sso.configured, and sso.required when the switch changes). The
 * provider is discovered first, outside any transaction, so a provider that cannot be used
 * changes nothing.
 */
export async function configureSso(db: Db, s: SsoSettings, f: { auth: AuthContext; actor: Actor; input: Schemas['SsoSettingsUpdate'] }): Promise<Schemas['SsoSettings']> {
  await assertAccountOwner(db, f.auth);
  const existing = await SsoSettingsRow.query(db).findById(f.auth.accountId);
  const issuer = f.input.issuer.replace(/\/+$/, '');
  if (f.input.clientSecret === undefined && !existing) {
    throw new ValidationFailed('clientSecret is required the first time single sign-on is configured.', [{ in: 'body', path: '/clientSecret', message: 'is required the first time single sign-on is configured' }]);
  }
  // Without SECRETS_KEY nothing can be sealed (503 secrets_unconfigured), nor the stored secret opened.
  if (f.input.clientSecret === undefined && !s.keyring.configured) s.keyring.seal('', '');
  const secret = f.input.clientSecret ?? s.keyring.open(existing!.client_secret, sealContext('sso_settings', existing!.account_id, 'client_secret'));
  const provider = await discoverProvider({ issuer, clientId: f.input.clientId, clientSecret: secret, redirectUri: redirectUriOf(s.publicUrl) }, s);
  const discovered = provider.serverMetadata().issuer;
  const required = f.input.required ?? false;
  return withTransaction(db, async (trx) => {
    const now = nowMs();
    const row = {
      issuer: discovered,
      client_id: f.input.clientId,
      client_secret: s.keyring.seal(secret, sealContext('sso_settings', f.auth.accountId, 'client_secret')),
      required,
      updated_at: now,
    };
    const q = SsoSettingsRow.query(trx).findById(f.auth.accountId);
    if (isPostgres(trx)) q.forUpdate();
    const before = await q;
    if (before) await SsoSettingsRow.query(trx).findById(f.auth.accountId).patch(row);
    else await SsoSettingsRow.query(trx).insert({ ...row, account_id: f.auth.accountId, created_at: now });
    const base = { accountId: f.auth.accountId, userId: f.auth.userId, actor: f.actor, at: now };
    await userSecurityEvent(trx, 'sso.configured', {
      ...base,
      details: { issuer: discovered, client_id: f.input.clientId, secret_changed: f.input.clientSecret !== undefined, first: !before },
    });
    if ((before ? isRequired(before) : false) !== required) {
      await userSecurityEvent(trx, 'sso.required', { ...base, details: { required } });
      // A requirement takes effect at once: sessions signed in another way end now.
      if (required) await revokeNonSsoSessionsOfAccount(trx, { accountId: f.auth.accountId, keep: f.auth.credential === 'session' ? f.auth.keyId : null, actor: f.actor });
    }
    return toApi((await SsoSettingsRow.query(trx).findById(f.auth.accountId))!, s.publicUrl);
  });
}

/** Removes the account's SSO (sso.removed); its requirement, and attempts in flight, end with it. */
export async function removeSso(db: Db, f: { auth: AuthContext; actor: Actor }): Promise<void> {
  await assertAccountOwner(db, f.auth);
  await withTransaction(db, async (trx) => {
    const row = await SsoSettingsRow.query(trx).findById(f.auth.accountId);
    if (!row) throw new NotFound('This account has no single sign-on.');
    await SsoSettingsRow.query(trx).deleteById(f.auth.accountId);
    await SsoAttempt.query(trx).where({ account_id: f.auth.accountId }).delete();
    await userSecurityEvent(trx, 'sso.removed', { accountId: f.auth.accountId, userId: f.auth.userId, actor: f.actor, details: { issuer: row.issuer, client_id: row.client_id, required_was: isRequired(row) } });
  });
}

async function settingsOf(db: DbOrTrx, start: Schemas['SsoStart']): Promise<SsoSettingsRow> {
  const given = (start.email === undefined ? 0 : 1) + (start.accountId === undefined ? 0 : 1);
  if (given !== 1) {
    throw new ValidationFailed('Send exactly one of email and accountId.', [{ in: 'body', path: start.email === undefined ? '' : '/accountId', message: 'must have exactly one of email and accountId' }]);
  }
  let accountId = start.accountId;
  if (start.email !== undefined) accountId = (await User.query(db).where({ email: normalizeEmail(start.email) }).select('account_id').first())?.account_id;
  const row = accountId && isUuid(accountId) ? await SsoSettingsRow.query(db).findById(accountId) : undefined;
  if (!row) throw new SsoNotConfigured();
  return row;
}

const openSecret = (s: SsoSettings, row: SsoSettingsRow) => s.keyring.open(row.client_secret, sealContext('sso_settings', row.account_id, 'client_secret'));

// The provider's discovery document and key set, kept per process for a few minutes: a sign-in
// would otherwise fetch both twice (start and callback). Keyed by the settings themselves, so a
// change of issuer, client or secret (sealed afresh each time) is used at once.
const PROVIDER_CACHE_MS = 5 * 60_000;
const PROVIDER_CACHE_SIZE = 1000;
const providers = new Map<string, { config: Awaited<ReturnType<typeof discoverProvider>>; until: number }>();

async function providerOf(s: SsoSettings, row: SsoSettingsRow) {
  const key = digest(`${row.account_id}\0${row.issuer}\0${row.client_id}\0${row.client_secret}`);
  const now = Date.now();
  const hit = providers.get(key);
  if (hit && hit.until > now) return hit.config;
  const config = await discoverProvider({ issuer: row.issuer, clientId: row.client_id, clientSecret: openSecret(s, row), redirectUri: redirectUriOf(s.publicUrl) }, s);
  if (providers.size >= PROVIDER_CACHE_SIZE) providers.clear();
  providers.set(key, { config, until: now + PROVIDER_CACHE_MS });
  return config;
}

/**
 * Starts an attempt: the provider's authorization URL, and the binding value for the browser's
 * cookie (returned once; only digests of it and of the state are kept).
 */
export async function startSso(db: Db, s: SsoSettings, start: Schemas['SsoStart']): Promise<{ authorizationUrl: string; expiresAt: number; binding: string }> {
  const row = await settingsOf(db, start);
  const redirectUri = redirectUriOf(s.publicUrl);
  const provider = await providerOf(s, row);
  const id = newId();
  const state = crypto.randomBytes(32).toString('base64url');
  const nonce = crypto.randomBytes(32).toString('base64url');
  const codeVerifier = crypto.randomBytes(32).toString('base64url');
  const binding = crypto.randomBytes(32).toString('base64url');
  const now = nowMs();
  await SsoAttempt.query(db).insert({
    id,
    account_id: row.account_id,
    state_hash: digest(state),
    binding_hash: digest(binding),
    nonce,
    code_verifier: s.keyring.seal(codeVerifier, sealContext('sso_attempts', id, 'code_verifier')),
    created_at: now,
    expires_at: now + SSO_ATTEMPT_TTL_MS,
    used_at: null,
  });
  return { authorizationUrl: await authorizationUrl(provider, { redirectUri, state, nonce, codeVerifier }), expiresAt: now + SSO_ATTEMPT_TTL_MS, binding };
}

export function bindingCookie(binding: string | null, publicUrl: string): string {
  const loopback = servedFromLoopback(publicUrl);
  const maxAge = binding === null ? 0 : SSO_ATTEMPT_TTL_MS / 1000;
  return `${SSO_BINDING_COOKIE}=${binding ?? ''}; Path=${SSO_CALLBACK_PATH}; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${loopback ? '' : '; Secure'}`;
}

export type CallbackQuery = Partial<Record<string, string>>;

/**
 * The attempt the callback names, checked and used up: its state must be known, unused, of this
 * browser and current. Used up before the provider is asked, so a replay never reaches it twice.
 */
async function takeAttempt(db: Db, state: string | undefined, binding: string | undefined): Promise<SsoAttempt> {
  if (!state) throw new SsoStateInvalid('The callback carries no state.');
  const attempt = await SsoAttempt.query(db).where({ state_hash: digest(state) }).first();
  if (!attempt) throw new SsoStateInvalid('The state is not one this service sent.');
  const bound = binding !== undefined && crypto.timingSafeEqual(Buffer.from(digest(binding)), Buffer.from(attempt.binding_hash));
  if (!bound) throw new SsoStateInvalid('The sign-in was started in another browser (its cookie is missing or different).');
  if (attempt.used_at !== null) throw new SsoStateInvalid('The sign-in attempt was used already.');
  const now = nowMs();
  if (now >= Number(attempt.expires_at)) throw new SsoExpired();
  const taken = await SsoAttempt.query(db).where({ id: attempt.id }).whereNull('used_at').patch({ used_at: now });
  if (taken === 0) throw new SsoStateInvalid('The sign-in attempt was used already.');
  return attempt;
}

/**
 * The provider sent the browser back: checks the attempt, exchanges the code with its PKCE
 * verifier, checks the ID token and its nonce, and signs the account's user with that verified
 * email in (method sso; sso.first_sign_in the first time).
 */
export async function completeSso(db: Db, s: SsoSettings, f: { query: CallbackQuery; binding: string | undefined; client: ClientInfo }) {
  const attempt = await takeAttempt(db, f.query.state, f.binding);
  if (f.query.error !== undefined) throw new SsoProviderError(`The identity provider refused the sign-in: ${f.query.error}${f.query.error_description ? `: ${f.query.error_description}` : ''}.`);
  const row = await SsoSettingsRow.query(db).findById(attempt.account_id);
  if (!row) throw new SsoNotConfigured();
  const redirectUri = redirectUriOf(s.publicUrl);
  const provider = await providerOf(s, row);
  const callbackUrl = new URL(redirectUri);
  for (const [k, v] of Object.entries(f.query)) if (v !== undefined) callbackUrl.searchParams.set(k, v);
  const identity = await exchangeCode(provider, callbackUrl, {
    state: f.query.state!,
    nonce: attempt.nonce,
    codeVerifier: s.keyring.open(attempt.code_verifier, sealContext('sso_attempts', attempt.id, 'code_verifier')),
  });
  if (!identity.email || !identity.emailVerified) throw new SsoUserUnknown('The provider did not name a verified email address.');
  const user = await User.query(db).where({ email: normalizeEmail(identity.email), account_id: attempt.account_id }).select('id', 'email').first();
  if (!user) throw new SsoUserUnknown('No user of this account has the address the provider named.');
  return withTransaction(db, async (trx) => {
    const started = await startSession(trx, { userId: user.id, method: 'sso', client: f.client });
    // Guarded by the key, so two first sign-ins at once write one sso.first_sign_in.
    const first = await runSql(trx, 'INSERT INTO sso_identities (user_id, issuer, subject, first_signed_in_at) VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO NOTHING RETURNING user_id', [
      user.id,
      row.issuer,
      identity.subject.slice(0, 255),
      nowMs(),
    ]);
    if (first.length > 0) {
      await userSecurityEvent(trx, 'sso.first_sign_in', {
        accountId: attempt.account_id,
        userId: user.id,
        actor: { type: 'session', id: started.session.id, label: user.email },
        details: { issuer: row.issuer, subject: identity.subject, ip: f.client.ip, user_agent: f.client.userAgent },
      });
    }
    return started;
  });
}

/**
 * After SECRETS_KEY gained a new first key: client secrets an older key sealed, sealed again
 * (docs/operating.md#rotating-secrets_key). Attempts' verifiers live 10 minutes and are not.
 */
export async function resealSsoSecrets(db: DbOrTrx, keyring: Keyring): Promise<number> {
  let count = 0;
  for (const row of await SsoSettingsRow.query(db).select('account_id', 'client_secret')) {
    if (!keyring.isStale(row.client_secret)) continue;
    const context = sealContext('sso_settings', row.account_id, 'client_secret');
    await SsoSettingsRow.query(db).findById(row.account_id).patch({ client_secret: keyring.seal(keyring.open(row.client_secret, context), context) });
    count++;
  }
  return count;
}

/** Attempts are over within 10 minutes; a day keeps them for inspection. */
export const ssoRetention: RetentionRule[] = [{ name: 'sso_attempts', table: 'sso_attempts', column: 'created_at', maxAgeMs: DAY_MS }];
