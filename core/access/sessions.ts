import crypto from 'node:crypto';
import type { Schemas } from '../contract/index.ts';
import { Session, SsoSettingsRow, User, withTransaction, type DbOrTrx } from '../db/index.ts';
import { DomainError, NotFound, isUuid, newId, nowMs, toIso } from '../platform/index.ts';
import { sessionActor, userSecurityEvent, type Actor } from '../activity/index.ts';
import { twoStepStatus } from './two-step.ts';

// Sessions of people signed in (spec/sign-in.tsp): a random token in an HttpOnly cookie, only
// its SHA-256 digest stored; a CSRF token derived from it; read on every request, never cached,
// so a revoked session is refused on the next request everywhere.

export const SESSION_COOKIE = 'sitehealth_session';
const TOKEN_PREFIX = 'shs_';
const TOKEN_PATTERN = /^shs_[A-Za-z0-9_-]{43}$/;

/** A session ends this long after sign-in ... */
export const SESSION_LIFETIME_MS = 30 * 24 * 3600_000;
/** ... or this long after its last request, whichever comes first. */
export const SESSION_IDLE_MS = 14 * 24 * 3600_000;
/** last_seen_at is written at most this often per session. */
const LAST_SEEN_RESOLUTION_MS = 60_000;

export type SignInMethod = Schemas['SignInMethod'];

/** The client a request came from, as sessions and their audit rows record it. */
export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

export function looksLikeSessionToken(value: unknown): value is string {
  return typeof value === 'string' && TOKEN_PATTERN.test(value);
}

export function hashSessionToken(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The session's CSRF token: derived from the cookie's secret, so it needs no storage, and
 * useless without the cookie (which a cross-site page can neither read nor set).
 */
export function csrfTokenFor(sessionToken: string): string {
  return crypto.createHash('sha256').update(`csrf\0${sessionToken}`, 'utf8').digest('base64url');
}

export function csrfMatches(sessionToken: string, sent: string): boolean {
  const expected = Buffer.from(csrfTokenFor(sessionToken));
  const given = Buffer.from(sent);
  return expected.length === given.length && crypto.timingSafeEqual(expected, given);
}

/** Cookies are Secure unless the service's public URL is a loopback address (local development). */
export function servedFromLoopback(publicUrl: string): boolean {
  const host = new URL(publicUrl).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
}

/** The cookie's attributes (spec/sign-in.tsp SessionCookie): Secure unless the service is served from loopback. */
export function sessionCookie(token: string | null, publicUrl: string): string {
  const loopback = servedFromLoopback(publicUrl);
  const value = token ?? '';
  const maxAge = token === null ? 0 : SESSION_LIFETIME_MS / 1000;
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${loopback ? '' : '; Secure'}`;
}

/** When a session stops working: 30 days after sign-in or 14 days after it was last seen. */
function endOf(s: { created_at: number; last_seen_at: number }): number {
  return Math.min(Number(s.created_at) + SESSION_LIFETIME_MS, Number(s.last_seen_at) + SESSION_IDLE_MS);
}

export function isLive(s: { created_at: number; last_seen_at: number; revoked_at: number | null }, now = nowMs()): boolean {
  return s.revoked_at === null && now < endOf(s);
}

export function sessionToApi(s: Session, currentId: string | null): Schemas['Session'] {
  return {
    id: s.id,
    current: s.id === currentId,
    method: s.method as SignInMethod,
    userAgent: s.user_agent,
    ip: s.ip,
    createdAt: toIso(Number(s.created_at))!,
    lastSeenAt: toIso(Number(s.last_seen_at))!,
    expiresAt: toIso(endOf(s))!,
  };
}

export class SsoRequired extends DomainError {
  constructor() {
    super(403, 'sso_required', 'Single sign-on required', "This account requires single sign-on: sign in through the account's identity provider (POST /v1/sso/start).");
  }
}

/**
 * While the user's account requires single sign-on (spec/sso.tsp), a session starts only through
 * it: every way of signing in starts its session here, so this is the one place that refuses (a
 * password sign-in that still needs its second step asks here too, before any code is asked for).
 */
export async function assertMethodAllowed(db: DbOrTrx, accountId: string, method: SignInMethod): Promise<void> {
  if (method === 'sso') return;
  const sso = await SsoSettingsRow.query(db).findById(accountId).select('required');
  if (sso && (sso.required === true || Number(sso.required) === 1)) throw new SsoRequired();
}

/**
 * Starts a session for a user who has proved who they are (session.signed_in), in the caller's
 * transaction when there is one. The token is returned once, for the cookie.
 */
export async function startSession(db: DbOrTrx, f: { userId: string; method: SignInMethod; client: ClientInfo }): Promise<{ token: string; session: Session; accountId: string; email: string }> {
  return withTransaction(db, async (trx) => {
    const user = await User.query(trx).findById(f.userId).select('id', 'account_id', 'email');
    if (!user) throw new NotFound();
    await assertMethodAllowed(trx, user.account_id, f.method);
    const token = TOKEN_PREFIX + crypto.randomBytes(32).toString('base64url');
    const now = nowMs();
    const session = await Session.query(trx).insert({
      id: newId(),
      user_id: user.id,
      token_hash: hashSessionToken(token),
      method: f.method,
      user_agent: f.client.userAgent?.slice(0, 512) ?? null,
      ip: f.client.ip?.slice(0, 64) ?? null,
      created_at: now,
      last_seen_at: now,
      expires_at: now + SESSION_LIFETIME_MS,
      revoked_at: null,
    });
    await userSecurityEvent(trx, 'session.signed_in', {
      accountId: user.account_id,
      userId: user.id,
      actor: sessionActor({ sessionId: session.id, email: user.email }),
      at: now,
      details: { method: f.method, user_agent: session.user_agent, ip: session.ip },
    });
    return { token, session, accountId: user.account_id, email: user.email };
  });
}

/** Bookkeeping off the request's path, as for keys: at most once a minute, never failing the request. */
export function touchSession(db: DbOrTrx, sessionId: string, lastSeenAt: number): void {
  const now = nowMs();
  if (now - lastSeenAt < LAST_SEEN_RESOLUTION_MS) return;
  Session.query(db)
    .where({ id: sessionId })
    .where('last_seen_at', '<=', now - LAST_SEEN_RESOLUTION_MS)
    .patch({ last_seen_at: now })
    .then(
      () => {},
      () => {},
    );
}

/** The user's live sessions, newest first. */
export async function listSessions(db: DbOrTrx, userId: string, currentId: string): Promise<Schemas['SessionList']> {
  const now = nowMs();
  const rows = await Session.query(db).where({ user_id: userId }).whereNull('revoked_at').orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
  return { data: rows.filter((s) => isLive(s, now)).map((s) => sessionToApi(s, currentId)) };
}

export async function getSession(db: DbOrTrx, sessionId: string): Promise<Session | undefined> {
  return Session.query(db).findById(sessionId);
}

async function revokeRows(trx: DbOrTrx, rows: Session[], actor: Actor, accountId: string, reason: string): Promise<number> {
  let revoked = 0;
  const at = nowMs();
  for (const s of rows) {
    // Guarded, so a concurrent revocation writes one audit row, not two.
    if ((await Session.query(trx).where({ id: s.id }).whereNull('revoked_at').patch({ revoked_at: at })) === 0) continue;
    revoked += 1;
    await userSecurityEvent(trx, 'session.revoked', { accountId, userId: s.user_id, actor, at, details: { session_id: s.id, reason, user_agent: s.user_agent, ip: s.ip } });
  }
  return revoked;
}

/** Signs one of the user's sessions out (session.revoked); another user's or an ended one is 404. */
export async function revokeSession(db: DbOrTrx, f: { userId: string; accountId: string; sessionId: string; actor: Actor }): Promise<void> {
  if (!isUuid(f.sessionId)) throw new NotFound();
  await withTransaction(db, async (trx) => {
    const s = await Session.query(trx).findById(f.sessionId.toLowerCase());
    if (!s || s.user_id !== f.userId || !isLive(s)) throw new NotFound();
    await revokeRows(trx, [s], f.actor, f.accountId, 'signed_out');
  });
}

/**
 * When an account starts requiring single sign-on: every live session of its users that did not
 * sign in through it ends now (session.revoked each), except `keep`, the session of the person who
 * turned the requirement on, who can still turn it off if the provider lets nobody in.
 */
export async function revokeNonSsoSessionsOfAccount(db: DbOrTrx, f: { accountId: string; keep: string | null; actor: Actor }): Promise<number> {
  return withTransaction(db, async (trx) => {
    const q = Session.query(trx)
      .whereIn('user_id', User.query(trx).select('id').where({ account_id: f.accountId }))
      .whereNull('revoked_at')
      .whereNot({ method: 'sso' });
    if (f.keep) q.whereNot({ id: f.keep });
    return revokeRows(trx, await q, f.actor, f.accountId, 'sso.required');
  });
}

/**
 * Signs out every live session of a user except `keep` (after a password change, a reset, or on
 * request), each with a session.revoked row; returns how many.
 */
export async function revokeSessionsOf(db: DbOrTrx, f: { userId: string; accountId: string; keep: string | null; actor: Actor; reason: string }): Promise<number> {
  return withTransaction(db, async (trx) => {
    const q = Session.query(trx).where({ user_id: f.userId }).whereNull('revoked_at');
    if (f.keep) q.whereNot({ id: f.keep });
    return revokeRows(trx, await q, f.actor, f.accountId, f.reason);
  });
}

/** The person signed in, with the current session and its CSRF token (spec/sign-in.tsp Me). */
export async function currentUser(db: DbOrTrx, f: { userId: string; sessionId: string; csrfToken: string }): Promise<Schemas['Me']> {
  const [user, session] = await Promise.all([User.query(db).findById(f.userId), Session.query(db).findById(f.sessionId)]);
  if (!user || !session) throw new NotFound();
  return {
    id: user.id,
    accountId: user.account_id,
    email: user.email,
    emailVerified: user.email_verified_at !== null,
    createdAt: toIso(Number(user.created_at))!,
    twoStep: await twoStepStatus(db, user),
    session: sessionToApi(session, session.id),
    csrfToken: f.csrfToken,
  };
}
