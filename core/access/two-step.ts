import crypto from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Schemas } from '../contract/index.ts';
import { RecoveryCode, SignInChallenge, User, isPostgres, withTransaction, type Db, type DbOrTrx } from '../db/index.ts';
import { Conflict, DomainError, newId, nowMs, toIso } from '../platform/index.ts';
import { userSecurityEvent, type Actor } from '../activity/index.ts';
import type { Keyring } from '../secrets/index.ts';
import { checkPassword, recordFailure } from './sign-in.ts';
import { startSession, type ClientInfo } from './sessions.ts';
import type { Session } from '../db/index.ts';

// Two-step verification (spec/sign-in.tsp): TOTP per RFC 6238 through `otpauth`, the secret sealed
// with SECRETS_KEY, each code accepted once (the last accepted time step is kept, and only a later
// one is taken), ten single-use recovery codes kept as digests, and the second step of a sign-in
// as a short-lived, single-use challenge.

const PERIOD_S = 30;
/** One step of clock drift either way. */
const WINDOW = 1;
const RECOVERY_CODES = 10;
const CHALLENGE_TTL_MS = 5 * 60_000;
const CHALLENGE_PREFIX = 'sh2s_';
/** Wrong codes a challenge survives. */
const CHALLENGE_FAILURES = 5;
// Base32 without the look-alikes: a recovery code is typed from paper.
const RECOVERY_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export class InvalidTwoStepCode extends DomainError {
  constructor(detail = 'The code is wrong, or was used already: enter the code the app shows now.') {
    super(401, 'invalid_two_step_code', 'Invalid two-step code', detail);
  }
}

class TwoStepExpired extends DomainError {
  constructor() {
    super(401, 'two_step_expired', 'Two-step sign-in expired', 'This sign-in is over (used, expired after 5 minutes, or ended by wrong codes): sign in with the password again.');
  }
}

const notStarted = () => new Conflict('two_step_not_started', 'Two-step verification is not set up: start with POST /v1/me/two-step.');
const digest = (text: string) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');
const sealContext = (userId: string) => `user:${userId}:two_step`;
const normalizeRecoveryCode = (code: string) => code.replace(/[\s-]/g, '').toUpperCase();

function totpOf(base32: string, email: string): TOTP {
  return new TOTP({ issuer: 'sitehealth', label: email, secret: Secret.fromBase32(base32), algorithm: 'SHA1', digits: 6, period: PERIOD_S });
}

/** The time step a code belongs to (within the drift window), or null when it matches none. */
function stepOf(totp: TOTP, code: string, now: number): number | null {
  const delta = totp.validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD_S) + delta;
}

function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, () => {
    const chars = Array.from(crypto.randomBytes(12), (b) => RECOVERY_ALPHABET[b % RECOVERY_ALPHABET.length]).join('');
    return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8)}`;
  });
}

async function replaceRecoveryCodes(trx: DbOrTrx, userId: string): Promise<string[]> {
  const codes = newRecoveryCodes();
  const now = nowMs();
  await RecoveryCode.query(trx).where({ user_id: userId }).delete();
  for (const code of codes) await RecoveryCode.query(trx).insert({ id: newId(), user_id: userId, code_hash: digest(normalizeRecoveryCode(code)), created_at: now, used_at: null });
  return codes;
}

export async function twoStepStatus(db: DbOrTrx, user: Pick<User, 'id' | 'two_step_enabled_at'>): Promise<Schemas['TwoStepStatus']> {
  if (user.two_step_enabled_at === null) return { enabled: false, enabledAt: null, recoveryCodesLeft: 0 };
  const left = await RecoveryCode.query(db).where({ user_id: user.id }).whereNull('used_at').select('id');
  return { enabled: true, enabledAt: toIso(Number(user.two_step_enabled_at))!, recoveryCodesLeft: left.length };
}

/** A new secret to set up (replacing an unconfirmed one); 409 while two-step is on. */
export async function startTwoStep(db: DbOrTrx, keyring: Keyring, userId: string): Promise<Schemas['TwoStepSetup']> {
  const secret = new Secret({ size: 20 });
  const sealed = keyring.seal(secret.base32, sealContext(userId)); // 503 without SECRETS_KEY
  return withTransaction(db, async (trx) => {
    const user = await User.query(trx).findById(userId).select('id', 'email', 'two_step_enabled_at');
    if (!user) throw new DomainError(404, 'not_found', 'Not found', 'No such user.');
    if (user.two_step_enabled_at !== null) throw new Conflict('two_step_enabled', 'Two-step verification is on already: turn it off first to set up another app.');
    await User.query(trx).findById(userId).patch({ two_step_pending_secret: sealed });
    return { secret: secret.base32, otpauthUrl: totpOf(secret.base32, user.email).toString() };
  });
}

/** Confirms the setup with a code (two_step.enabled) and answers the recovery codes, once. */
export async function confirmTwoStep(db: DbOrTrx, keyring: Keyring, f: { userId: string; code: string; actor: Actor }): Promise<Schemas['RecoveryCodes']> {
  return withTransaction(db, async (trx) => {
    const user = await User.query(trx).findById(f.userId).select('id', 'account_id', 'email', 'two_step_enabled_at', 'two_step_pending_secret');
    if (!user || user.two_step_enabled_at !== null || user.two_step_pending_secret === null) throw notStarted();
    const base32 = keyring.open(user.two_step_pending_secret, sealContext(user.id));
    const now = nowMs();
    const step = stepOf(totpOf(base32, user.email), f.code, now);
    if (step === null) throw new InvalidTwoStepCode('The code does not match: check the app was set up with this secret and its clock is right.');
    await User.query(trx)
      .findById(user.id)
      .patch({ two_step_secret: keyring.seal(base32, sealContext(user.id)), two_step_pending_secret: null, two_step_enabled_at: now, two_step_last_step: step });
    const recoveryCodes = await replaceRecoveryCodes(trx, user.id);
    await userSecurityEvent(trx, 'two_step.enabled', { accountId: user.account_id, userId: user.id, actor: f.actor, at: now, details: { method: 'totp' } });
    return { recoveryCodes };
  });
}

/** Turns two-step off, by the user (with their password) or by the operator (account recovery). */
export async function disableTwoStep(db: DbOrTrx, f: { userId: string; actor: Actor; action: 'two_step.disabled' | 'two_step.reset_by_operator' }): Promise<void> {
  await withTransaction(db, async (trx) => {
    const user = await User.query(trx).findById(f.userId).select('id', 'account_id', 'two_step_enabled_at');
    if (!user || user.two_step_enabled_at === null) throw notStarted();
    await User.query(trx).findById(user.id).patch({ two_step_secret: null, two_step_enabled_at: null, two_step_last_step: null, two_step_pending_secret: null });
    await RecoveryCode.query(trx).where({ user_id: user.id }).delete();
    await userSecurityEvent(trx, f.action, { accountId: user.account_id, userId: user.id, actor: f.actor });
  });
}

/** The signed-in user turns two-step off, proving it with the password again. */
export async function disableOwnTwoStep(db: Db, { client, ...f }: { userId: string; password: string; actor: Actor; client: ClientInfo }): Promise<void> {
  const user = await User.query(db).findById(f.userId).select('email');
  if (!user) throw notStarted();
  await checkPassword(db, user.email, f.password, client);
  await disableTwoStep(db, { userId: f.userId, actor: f.actor, action: 'two_step.disabled' });
}

/** New recovery codes (recovery_codes.regenerated), with the password again. */
export async function regenerateRecoveryCodes(db: Db, { client, ...f }: { userId: string; password: string; actor: Actor; client: ClientInfo }): Promise<Schemas['RecoveryCodes']> {
  const found = await User.query(db).findById(f.userId).select('email');
  if (!found) throw notStarted();
  await checkPassword(db, found.email, f.password, client);
  return withTransaction(db, async (trx) => {
    const user = await User.query(trx).findById(f.userId).select('id', 'account_id', 'two_step_enabled_at');
    if (!user || user.two_step_enabled_at === null) throw notStarted();
    const recoveryCodes = await replaceRecoveryCodes(trx, user.id);
    await userSecurityEvent(trx, 'recovery_codes.regenerated', { accountId: user.account_id, userId: user.id, actor: f.actor });
    return { recoveryCodes };
  });
}

/** After a correct password: the challenge for the second step (only its digest is stored). */
export async function startChallenge(db: DbOrTrx, userId: string, client: ClientInfo): Promise<Schemas['TwoStepRequired']> {
  const token = CHALLENGE_PREFIX + crypto.randomBytes(32).toString('base64url');
  const now = nowMs();
  await SignInChallenge.query(db).insert({
    id: newId(),
    user_id: userId,
    token_hash: digest(token),
    user_agent: client.userAgent?.slice(0, 512) ?? null,
    ip: client.ip?.slice(0, 64) ?? null,
    failures: 0,
    created_at: now,
    expires_at: now + CHALLENGE_TTL_MS,
    used_at: null,
  });
  return { status: 'two_step_required', challenge: token, expiresAt: toIso(now + CHALLENGE_TTL_MS)!, methods: ['totp', 'recovery_code'] };
}

/**
 * The second step: a TOTP code (a later time step than any accepted before) or an unused recovery
 * code (recovery_code.used) ends the challenge and starts the session. A wrong code counts against
 * the challenge and as a failed sign-in.
 */
export async function completeChallenge(
  db: Db,
  keyring: Keyring,
  f: { challenge: string; code?: string; recoveryCode?: string; client: ClientInfo },
): Promise<{ token: string; session: Session }> {
  const outcome = await withTransaction(db, async (trx) => {
    const q = SignInChallenge.query(trx).where({ token_hash: digest(f.challenge) }).first();
    if (isPostgres(trx)) q.forUpdate();
    const challenge = await q;
    const now = nowMs();
    if (!challenge || challenge.used_at !== null || Number(challenge.expires_at) <= now || challenge.failures >= CHALLENGE_FAILURES) throw new TwoStepExpired();
    const user = await User.query(trx).findById(challenge.user_id).select('id', 'account_id', 'email', 'two_step_secret', 'two_step_last_step');
    if (!user || user.two_step_secret === null) throw new TwoStepExpired();
    let accepted = false;
    if (f.code !== undefined) {
      const step = stepOf(totpOf(keyring.open(user.two_step_secret, sealContext(user.id)), user.email), f.code, now);
      // Conditional: of two requests with one code, or a code replayed within its 30 seconds, one wins.
      if (step !== null) {
        const q = User.query(trx).findById(user.id).where((w) => w.whereNull('two_step_last_step').orWhere('two_step_last_step', '<', step));
        accepted = (await q.patch({ two_step_last_step: step })) === 1;
      }
    } else if (f.recoveryCode !== undefined) {
      const n = await RecoveryCode.query(trx).where({ user_id: user.id, code_hash: digest(normalizeRecoveryCode(f.recoveryCode)) }).whereNull('used_at').patch({ used_at: now });
      accepted = n === 1;
      if (accepted) {
        const left = (await RecoveryCode.query(trx).where({ user_id: user.id }).whereNull('used_at')).length;
        await userSecurityEvent(trx, 'recovery_code.used', { accountId: user.account_id, userId: user.id, actor: { type: 'user', id: user.id, label: user.email }, at: now, details: { recovery_codes_left: left, ip: f.client.ip } });
      }
    }
    if (!accepted) {
      await SignInChallenge.query(trx).findById(challenge.id).patch({ failures: challenge.failures + 1 });
      return { user, accepted: false as const };
    }
    if ((await SignInChallenge.query(trx).findById(challenge.id).whereNull('used_at').patch({ used_at: now })) !== 1) throw new TwoStepExpired();
    return { user, accepted: true as const };
  });
  if (!outcome.accepted) {
    await recordFailure(db, outcome.user.email, f.client, outcome.user);
    throw new InvalidTwoStepCode();
  }
  return startSession(db, { userId: outcome.user.id, method: 'password', client: f.client });
}

/** After SECRETS_KEY gained a new first key: two-step secrets an older key sealed, sealed again (docs/operating.md#rotating-secrets_key). */
export async function resealTwoStepSecrets(db: DbOrTrx, keyring: Keyring): Promise<number> {
  let count = 0;
  const users = await User.query(db).whereNotNull('two_step_secret').orWhereNotNull('two_step_pending_secret').select('id', 'two_step_secret', 'two_step_pending_secret');
  for (const u of users) {
    const stale = (v: string | null) => v !== null && keyring.isStale(v);
    if (!stale(u.two_step_secret) && !stale(u.two_step_pending_secret)) continue;
    const reseal = (v: string | null) => (v === null ? null : keyring.seal(keyring.open(v, sealContext(u.id)), sealContext(u.id)));
    await User.query(db).findById(u.id).patch({ two_step_secret: reseal(u.two_step_secret), two_step_pending_secret: reseal(u.two_step_pending_secret) });
    count++;
  }
  return count;
}
