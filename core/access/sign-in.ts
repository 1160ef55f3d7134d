import crypto from 'node:crypto';
import { User, runSql, withTransaction, type Db, type DbOrTrx, type RetentionRule } from '../db/index.ts';
import { DAY_MS } from '../db/index.ts';
import { DomainError, nowMs } from '../platform/index.ts';
import { sessionActor, userSecurityEvent, type Actor } from '../activity/index.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { normalizeEmail } from './users.ts';
import { assertMethodAllowed, revokeSessionsOf, startSession, type ClientInfo } from './sessions.ts';
import type { Session } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { startChallenge } from './two-step.ts';

// Signing in with a password (spec/sign-in.tsp): throttled per email and per client address,
// one password hash per attempt whatever the outcome, the same answer for a wrong password and an
// unregistered email.

/** Failed sign-ins are counted in fixed windows of this length ... */
export const THROTTLE_WINDOW_MS = 15 * 60_000;
/** ... and refused past this many for one email address ... */
export const FAILURES_PER_EMAIL = 10;
/** ... or this many from one client address. */
export const FAILURES_PER_ADDRESS = 100;

export class InvalidCredentials extends DomainError {
  constructor() {
    super(401, 'invalid_credentials', 'Invalid credentials', 'The email and password do not match.');
  }
}

export class SignInThrottled extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'sign_in_throttled', 'Too many sign-in attempts', `Too many failed sign-ins; try again in ${retryAfterSeconds} s or reset the password by email.`);
  }

  override get retryAfter(): number {
    return this.retryAfterSeconds;
  }
}

// The email is counted by digest: the table then holds no address, and an unregistered email is
// throttled exactly like a registered one, so throttling tells nothing either.
const emailSubject = (email: string) => `email:${crypto.createHash('sha256').update(normalizeEmail(email)).digest('hex').slice(0, 40)}`;
const addressSubject = (ip: string | null) => `address:${ip ?? 'unknown'}`;

const windowOf = (now: number) => Math.floor(now / THROTTLE_WINDOW_MS) * THROTTLE_WINDOW_MS;

// One attempt claimed against a subject's allowance: counted before the password is checked, so
// concurrent guesses can never pass the limit together (a conditional upsert, as the rate limiter
// claims its chunks); a right password gives the attempt back.
const CLAIM_ATTEMPT = `INSERT INTO sign_in_failures (subject, window_start, count) VALUES (?, ?, 1)
  ON CONFLICT (subject, window_start) DO UPDATE SET count = sign_in_failures.count + 1
  WHERE sign_in_failures.count < ?
  RETURNING count`;
const GIVE_BACK = 'UPDATE sign_in_failures SET count = count - 1 WHERE subject = ? AND window_start = ? AND count > 0';

interface Claim {
  window: number;
  /** Attempts of the email in the window, this one included. */
  emailCount: number;
}

/** Claims an attempt for the email and the address, or refuses (429) when either is spent; costs no hash. */
async function claimAttempt(db: DbOrTrx, email: string, client: ClientInfo): Promise<Claim> {
  const now = nowMs();
  const window = windowOf(now);
  const throttled = () => new SignInThrottled(Math.max(1, Math.ceil((window + THROTTLE_WINDOW_MS - now) / 1000)));
  const [byEmail] = await runSql<{ count: number }>(db, CLAIM_ATTEMPT, [emailSubject(email), window, FAILURES_PER_EMAIL]);
  if (!byEmail) throw throttled();
  const [byAddress] = await runSql<{ count: number }>(db, CLAIM_ATTEMPT, [addressSubject(client.ip), window, FAILURES_PER_ADDRESS]);
  if (!byAddress) {
    await runSql(db, GIVE_BACK, [emailSubject(email), window]);
    throw throttled();
  }
  return { window, emailCount: Number(byEmail.count) };
}

async function giveBack(db: DbOrTrx, email: string, client: ClientInfo, window: number): Promise<void> {
  await runSql(db, GIVE_BACK, [emailSubject(email), window]);
  await runSql(db, GIVE_BACK, [addressSubject(client.ip), window]);
}

/** The failure that used up a registered user's allowance writes sign_in.throttled (once per window). */
async function auditThrottled(db: DbOrTrx, user: Pick<User, 'id' | 'account_id' | 'email'>, client: ClientInfo): Promise<void> {
  await userSecurityEvent(db, 'sign_in.throttled', {
    accountId: user.account_id,
    userId: user.id,
    actor: { type: 'user', id: user.id, label: user.email },
    details: { failures: FAILURES_PER_EMAIL, window_minutes: THROTTLE_WINDOW_MS / 60_000, ip: client.ip, user_agent: client.userAgent },
  });
}

/** Counts a failure of a later step (a wrong two-step code) against the same allowance; past it, refused. */
export async function recordFailure(db: DbOrTrx, email: string, client: ClientInfo, user: Pick<User, 'id' | 'account_id' | 'email'>): Promise<void> {
  const claim = await claimAttempt(db, email, client);
  if (claim.emailCount === FAILURES_PER_EMAIL) await auditThrottled(db, user, client);
}

/**
 * Failure windows are only read while current (a day keeps them for inspection); a session is
 * over 30 days after sign-in and an email link within a day (kept a week, then deleted).
 */
export const signInRetention: RetentionRule[] = [
  { name: 'sign_in_failures', table: 'sign_in_failures', column: 'window_start', key: ['subject', 'window_start'], maxAgeMs: DAY_MS },
  { name: 'sessions', table: 'sessions', column: 'created_at', maxAgeMs: 60 * DAY_MS },
  { name: 'email_tokens', table: 'email_tokens', column: 'created_at', maxAgeMs: 7 * DAY_MS },
];

/** The user behind an email and password, or 401 (after one hash); throttled before any hash. */
export async function checkPassword(db: DbOrTrx, email: string, password: string, client: ClientInfo): Promise<Pick<User, 'id' | 'account_id' | 'email' | 'two_step_enabled_at'>> {
  const claim = await claimAttempt(db, email, client);
  const user = await User.query(db).where({ email: normalizeEmail(email) }).select('id', 'account_id', 'email', 'password_hash', 'two_step_enabled_at').first();
  if (!(await verifyPassword(password, user?.password_hash ?? null)) || !user) {
    if (user && claim.emailCount === FAILURES_PER_EMAIL) await auditThrottled(db, user, client);
    throw new InvalidCredentials();
  }
  await giveBack(db, email, client, claim.window);
  return user;
}

/**
 * Email and password sign-in: a new session (session.signed_in) and its token, once; or, for an
 * account with two-step verification, the challenge of the second step (core/access/two-step.ts).
 */
export async function signInWithPassword(
  db: Db,
  { email, password, client }: { email: string; password: string; client: ClientInfo },
): Promise<{ token: string; session: Session } | { twoStep: Schemas['TwoStepRequired'] }> {
  const user = await checkPassword(db, email, password, client);
  if (user.two_step_enabled_at !== null) {
    await assertMethodAllowed(db, user.account_id, 'password');
    return { twoStep: await startChallenge(db, user.id, client) };
  }
  return startSession(db, { userId: user.id, method: 'password', client });
}

type PasswordAction = 'password.changed' | 'password.reset' | 'password.set_by_operator';

/**
 * Sets a user's password (one of password.changed, password.reset, password.set_by_operator)
 * and signs out every session but `keepSession`. The hash is computed before the transaction, so
 * no lock is held while it runs.
 */
export async function setPassword(db: DbOrTrx, f: { userId: string; password: string; action: PasswordAction; actor: Actor; keepSession: string | null }): Promise<void> {
  const digest = await hashPassword(f.password);
  await withTransaction(db, (trx) => storePassword(trx, { ...f, digest }));
}

/** The write of setPassword, for a caller that must do it in its own transaction (a reset link is used in the same one). */
export async function storePassword(
  trx: DbOrTrx,
  f: { userId: string; digest: string; action: PasswordAction; actor: Actor; keepSession: string | null; verifiesEmail?: boolean },
): Promise<void> {
  const user = await User.query(trx).findById(f.userId).select('id', 'account_id', 'email_verified_at');
  if (!user) throw new DomainError(404, 'not_found', 'Not found', 'No such user.');
  const now = nowMs();
  await User.query(trx)
    .findById(user.id)
    .patch({ password_hash: f.digest, password_changed_at: now, ...(f.verifiesEmail && user.email_verified_at === null ? { email_verified_at: now } : {}) });
  await userSecurityEvent(trx, f.action, { accountId: user.account_id, userId: user.id, actor: f.actor, at: now });
  await revokeSessionsOf(trx, { userId: user.id, accountId: user.account_id, keep: f.keepSession, actor: f.actor, reason: f.action });
}

/** A signed-in user changes their password: the current one must match (a failure counts as a failed sign-in). */
export async function changePassword(db: Db, { client, ...f }: { userId: string; sessionId: string; currentPassword: string; newPassword: string; client: ClientInfo }): Promise<void> {
  const user = await User.query(db).findById(f.userId).select('email');
  if (!user) throw new InvalidCredentials();
  const checked = await checkPassword(db, user.email, f.currentPassword, client);
  await setPassword(db, { userId: checked.id, password: f.newPassword, action: 'password.changed', actor: sessionActor({ sessionId: f.sessionId, email: checked.email }), keepSession: f.sessionId });
}
