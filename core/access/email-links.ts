import crypto from 'node:crypto';
import { EmailToken, User, isPostgres, withTransaction, type DbOrTrx } from '../db/index.ts';
import { DomainError, newId, nowMs, toIso } from '../platform/index.ts';
import { userSecurityEvent, type Actor } from '../activity/index.ts';
import type { Mailer } from '../mail/index.ts';
import { normalizeEmail } from './users.ts';
import { storePassword } from './sign-in.ts';
import { hashPassword } from './passwords.ts';

// Single-use links by email (spec/sign-in.tsp): password reset (1 hour) and address verification
// (24 hours). Only the token's digest is stored; a new link of a purpose supersedes older ones.

type Purpose = EmailToken['purpose'];

const LIFETIME_MS: Record<Purpose, number> = { reset_password: 3600_000, verify_email: 24 * 3600_000 };
const PREFIX: Record<Purpose, string> = { reset_password: 'shrst_', verify_email: 'shver_' };
/** At most one reset mail per address in this long, so the endpoint cannot be used to flood an inbox. */
const RESET_MAIL_INTERVAL_MS = 60_000;

export class LinkInvalid extends DomainError {
  constructor(detail: string) {
    super(400, 'link_invalid', 'Link invalid', detail);
  }
}

const digestOf = (token: string) => crypto.createHash('sha256').update(token, 'utf8').digest('hex');

async function issue(trx: DbOrTrx, userId: string, purpose: Purpose): Promise<{ token: string; expiresAt: number }> {
  const now = nowMs();
  // Older links of the purpose stop working: only the newest mail's link counts.
  await EmailToken.query(trx).where({ user_id: userId, purpose }).whereNull('used_at').patch({ used_at: now });
  const token = PREFIX[purpose] + crypto.randomBytes(32).toString('base64url');
  const expiresAt = now + LIFETIME_MS[purpose];
  await EmailToken.query(trx).insert({ id: newId(), user_id: userId, purpose, token_hash: digestOf(token), created_at: now, expires_at: expiresAt, used_at: null });
  return { token, expiresAt };
}

/** Uses a token once: its row, or 400 link_invalid naming why (the holder of a link may know that much). */
async function consume(trx: DbOrTrx, token: string, purpose: Purpose): Promise<EmailToken> {
  const q = EmailToken.query(trx).where({ token_hash: digestOf(token), purpose }).first();
  if (isPostgres(trx)) q.forUpdate();
  const row = await q;
  if (!row) throw new LinkInvalid('This link is not valid: ask for a new one.');
  const now = nowMs();
  if (row.used_at !== null) throw new LinkInvalid('This link was used already, or a newer one was sent: links work once.');
  if (Number(row.expires_at) <= now) throw new LinkInvalid(`This link expired at ${toIso(Number(row.expires_at))}: ask for a new one.`);
  // Guarded: of two concurrent uses, one patches and the other is refused.
  if ((await EmailToken.query(trx).where({ id: row.id }).whereNull('used_at').patch({ used_at: now })) !== 1) throw new LinkInvalid('This link was used already: links work once.');
  return row;
}

/**
 * Mails a reset link when a user has the address; answers the same either way (the caller always
 * says 202). A mail that cannot be sent leaves no working link behind.
 */
export async function requestPasswordReset(db: DbOrTrx, mail: Mailer, f: { email: string; publicUrl: string }): Promise<void> {
  const email = normalizeEmail(f.email);
  const issued = await withTransaction(db, async (trx) => {
    const user = await User.query(trx).where({ email }).select('id').first();
    if (!user) return null;
    const recent = await EmailToken.query(trx).where({ user_id: user.id, purpose: 'reset_password' }).where('created_at', '>', nowMs() - RESET_MAIL_INTERVAL_MS).first();
    if (recent) return null;
    return { userId: user.id, ...(await issue(trx, user.id, 'reset_password')) };
  });
  if (!issued) return;
  const link = `${f.publicUrl}/reset-password#token=${issued.token}`;
  try {
    await mail.send({
      to: email,
      subject: 'Reset your sitehealth password',
      text: [
        'Someone asked to reset the password of your sitehealth account.',
        '',
        `Set a new password: ${link}`,
        '',
        `The link works once and expires at ${toIso(issued.expiresAt)}. Every device signed in to your account will be signed out.`,
        'If you did not ask for this, ignore this email: your password stays as it is.',
        '',
      ].join('\n'),
    });
  } catch {
    await EmailToken.query(db).where({ user_id: issued.userId, purpose: 'reset_password' }).whereNull('used_at').patch({ used_at: nowMs() });
  }
}

/** Sets the password from a reset link (password.reset): every session ends; the address counts as verified. */
export async function completePasswordReset(db: DbOrTrx, f: { token: string; password: string }): Promise<void> {
  // A link that cannot work costs no hash; the hash then runs outside the transaction.
  const found = await EmailToken.query(db).where({ token_hash: digestOf(f.token), purpose: 'reset_password' }).whereNull('used_at').first();
  if (!found) throw new LinkInvalid('This link is not valid, was used already, or a newer one was sent: ask for a new one.');
  const digest = await hashPassword(f.password);
  await withTransaction(db, async (trx) => {
    const row = await consume(trx, f.token, 'reset_password');
    const user = await User.query(trx).findById(row.user_id).select('id', 'email');
    if (!user) throw new LinkInvalid('This link is not valid: ask for a new one.');
    const actor: Actor = { type: 'user', id: user.id, label: user.email };
    await storePassword(trx, { userId: user.id, digest, action: 'password.reset', actor, keepSession: null, verifiesEmail: true });
  });
}

/** Mails the signed-in user a verification link. */
export async function sendEmailVerification(db: DbOrTrx, mail: Mailer, f: { userId: string; publicUrl: string }): Promise<void> {
  const issued = await withTransaction(db, async (trx) => {
    const user = await User.query(trx).findById(f.userId).select('id', 'email');
    if (!user) return null;
    return { email: user.email, ...(await issue(trx, user.id, 'verify_email')) };
  });
  if (!issued) return;
  await mail.send({
    to: issued.email,
    subject: 'Verify your email address for sitehealth',
    text: [
      `Verify this address: ${f.publicUrl}/verify-email#token=${issued.token}`,
      '',
      `The link works once and expires at ${toIso(issued.expiresAt)}.`,
      '',
    ].join('\n'),
  });
}

/** Marks the address verified (email.verified). */
export async function completeEmailVerification(db: DbOrTrx, token: string): Promise<void> {
  await withTransaction(db, async (trx) => {
    const row = await consume(trx, token, 'verify_email');
    const user = await User.query(trx).findById(row.user_id).select('id', 'account_id', 'email', 'email_verified_at');
    if (!user) throw new LinkInvalid('This link is not valid: ask for a new one.');
    const now = nowMs();
    if (user.email_verified_at === null) await User.query(trx).findById(user.id).patch({ email_verified_at: now });
    await userSecurityEvent(trx, 'email.verified', { accountId: user.account_id, userId: user.id, actor: { type: 'user', id: user.id, label: user.email }, at: now, details: { email: user.email } });
  });
}
