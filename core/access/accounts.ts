import { Account, withTransaction, type DbOrTrx } from '../db/index.ts';
import { NotFound, ValidationFailed, isUuid, newId, nowMs } from '../platform/index.ts';
import { operatorActor, workspaceLimitChanged, type Actor } from '../activity/index.ts';

export const DEFAULT_WORKSPACE_LIMIT = 10;

export interface AccountInfo {
  id: string;
  workspaceLimit: number;
  createdAt: number;
}

export async function createAccount(db: DbOrTrx, opts: { workspaceLimit?: number } = {}): Promise<AccountInfo> {
  const row = await Account.query(db).insert({ id: newId(), workspace_limit: opts.workspaceLimit ?? DEFAULT_WORKSPACE_LIMIT, created_at: nowMs() });
  return { id: row.id, workspaceLimit: row.workspace_limit, createdAt: row.created_at };
}

export async function getAccount(db: DbOrTrx, accountId: string): Promise<AccountInfo | null> {
  if (!isUuid(accountId)) return null;
  const a = await Account.query(db).findById(accountId);
  return a ? { id: a.id, workspaceLimit: a.workspace_limit, createdAt: a.created_at } : null;
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
    throw new ValidationFailed('The workspace limit must be a positive integer.', [{ in: 'body', path: '/workspaces', message: 'must be a positive integer' }]);
  }
  return withTransaction(db, async (trx) => {
    const before = await getAccount(trx, accountId);
    if (!before) throw new NotFound(`Account ${accountId} does not exist.`);
    await Account.query(trx).findById(accountId).patch({ workspace_limit: limit });
    // Written even when the value is unchanged: the row records the operator's decision.
    await workspaceLimitChanged(trx, { accountId, from: before.workspaceLimit, to: limit, actor: opts.actor ?? operatorActor() });
    return { accountId, workspaceLimit: limit, previousLimit: before.workspaceLimit };
  });
}
