import { User, isUniqueViolation, withTransaction, type DbOrTrx } from '../db/index.ts';
import { Conflict, NotFound, ValidationFailed, newId, nowMs } from '../platform/index.ts';
import { createAccount, getAccount } from './accounts.ts';

// Pragmatic, not RFC 5322: one @, no spaces, a dot in the domain, RFC 5321 lengths.
// Real verification belongs to a confirmation email, not a regex.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export function isEmail(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 320 || !EMAIL_PATTERN.test(value)) return false;
  return value.indexOf('@') <= 64;
}

/** Emails compare case-insensitively (as every mail provider in practice does). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

function emailTaken(email: string): Conflict {
  return new Conflict('email_taken', `A user with email ${email} already exists.`);
}

/** Creates a user in `accountId`, or in a new account of its own when it is absent. */
export async function createUser(db: DbOrTrx, email: string, accountId?: string | null): Promise<{ userId: string; accountId: string; email: string }> {
  if (!isEmail(email.trim())) {
    throw new ValidationFailed('email is not a valid email address.', [{ in: 'body', path: '/email', message: 'must be an email address' }]);
  }
  const normalized = normalizeEmail(email);
  return withTransaction(db, async (trx) => {
    let account = accountId ?? null;
    if (account !== null) {
      if (!(await getAccount(trx, account))) throw new NotFound(`Account ${account} does not exist.`);
    } else {
      account = (await createAccount(trx)).id;
    }
    // A pre-check gives the common case a clear answer; the unique index still decides races.
    if (await User.query(trx).where({ email: normalized }).select('id').first()) throw emailTaken(normalized);
    const userId = newId();
    try {
      await User.query(trx).insert({ id: userId, account_id: account, email: normalized, created_at: nowMs() });
    } catch (err) {
      if (isUniqueViolation(err, 'email')) throw emailTaken(normalized);
      throw err;
    }
    return { userId, accountId: account, email: normalized };
  });
}

export interface UserView {
  id: string;
  accountId: string;
  email: string;
  createdAt: number;
}

/** Users, oldest first: of one account, or with one email, or all of them (operator CLI). */
export async function listUsers(db: DbOrTrx, f: { accountId?: string; email?: string; limit: number }): Promise<UserView[]> {
  const q = User.query(db).orderBy([{ column: 'created_at' }, { column: 'id' }]).limit(f.limit);
  if (f.accountId !== undefined) q.where({ account_id: f.accountId });
  if (f.email !== undefined) q.where({ email: normalizeEmail(f.email) });
  return (await q).map((u) => ({ id: u.id, accountId: u.account_id, email: u.email, createdAt: Number(u.created_at) }));
}
