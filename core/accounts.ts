import type { DbOrTrx } from './db/connection.ts';
import { Account } from './db/models/Account.ts';
import { newId, isUuid } from './ids.ts';
import { nowMs } from './clock.ts';
import { Conflict, NotFound, ValidationFailed } from './errors.ts';
import { operatorActor, workspaceLimitChanged, type Actor } from './activity.ts';

// Accounts and users. Memberships and API keys live in their own files and are
// re-exported here, so `core/accounts.ts` is the one import for the access domain.
export * from './memberships.ts';
export * from './api-keys.ts';

export const DEFAULT_WORKSPACE_LIMIT = 10;

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

/** A unique-constraint violation on either engine, optionally on a given column or constraint. */
export function isUniqueViolation(err: unknown, hint?: string): boolean {
  const e = err as { code?: string; constraint?: string; message?: string } | null;
  if (!e) return false;
  const unique = e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
  if (!unique || !hint) return unique;
  // PostgreSQL names the constraint (`workspaces_slug_unique`); SQLite names the column
  // in its message (`UNIQUE constraint failed: workspaces.slug`).
  return `${e.constraint ?? ''} ${e.message ?? ''}`.includes(hint);
}

export interface AccountInfo {
  id: string;
  workspaceLimit: number;
  createdAt: number;
}

export async function createAccount(db: DbOrTrx, opts: { workspaceLimit?: number } = {}): Promise<AccountInfo> {
  const row = { id: newId(), workspace_limit: opts.workspaceLimit ?? DEFAULT_WORKSPACE_LIMIT, created_at: nowMs() };
  await db('accounts').insert(row);
  return { id: row.id, workspaceLimit: row.workspace_limit, createdAt: row.created_at };
}

export async function getAccount(db: DbOrTrx, accountId: string): Promise<AccountInfo | null> {
  if (!isUuid(accountId)) return null;
  const a = await Account.query(db).findById(accountId);
  return a ? { id: a.id, workspaceLimit: a.workspace_limit, createdAt: a.created_at } : null;
}

/** Creates a user in `accountId`, or in a new account of its own when it is absent. */
export async function createUser(
  db: DbOrTrx,
  email: string,
  accountId?: string | null,
): Promise<{ userId: string; accountId: string; email: string }> {
  if (!isEmail(email.trim())) {
    throw new ValidationFailed('email is not a valid email address.', [{ in: 'body', path: '/email', message: 'must be an email address' }]);
  }
  const normalized = normalizeEmail(email);
  return db.transaction(async (trx) => {
    let account = accountId ?? null;
    if (account !== null) {
      if (!(await getAccount(trx, account))) throw new NotFound(`Account ${account} does not exist.`);
    } else {
      account = (await createAccount(trx)).id;
    }
    // A pre-check gives the common case a clear answer; the unique index still decides races.
    if (await trx('users').where({ email: normalized }).first('id')) {
      throw new Conflict('email_taken', `A user with email ${normalized} already exists.`);
    }
    const userId = newId();
    try {
      await trx('users').insert({ id: userId, account_id: account, email: normalized, created_at: nowMs() });
    } catch (err) {
      if (isUniqueViolation(err, 'email')) throw new Conflict('email_taken', `A user with email ${normalized} already exists.`);
      throw err;
    }
    return { userId, accountId: account, email: normalized };
  });
}

/**
 * Sets how many workspaces the account may hold. A limit below the current count is
 * allowed: existing workspaces stay, new ones are refused (402) until there is room.
 */
export async function setWorkspaceLimit(
  db: DbOrTrx,
  accountId: string,
  limit: number,
  opts: { actor?: Actor } = {},
): Promise<{ accountId: string; workspaceLimit: number; previousLimit: number }> {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new ValidationFailed('The workspace limit must be a positive integer.', [
      { in: 'body', path: '/workspaces', message: 'must be a positive integer' },
    ]);
  }
  return db.transaction(async (trx) => {
    const before = await getAccount(trx, accountId);
    if (!before) throw new NotFound(`Account ${accountId} does not exist.`);
    await trx('accounts').where({ id: accountId }).update({ workspace_limit: limit });
    // Written even when the value is unchanged: the row records the operator's decision.
    await workspaceLimitChanged(trx, { accountId, from: before.workspaceLimit, to: limit, actor: opts.actor ?? operatorActor() });
    return { accountId, workspaceLimit: limit, previousLimit: before.workspaceLimit };
  });
}
