import { Connection, withTransaction, type DbOrTrx } from '../db/index.ts';
import { SYSTEM_ACTOR, connectionBroken } from '../activity/index.ts';
import { nowMs } from '../platform/index.ts';
import { redactSecrets } from '../platform/index.ts';

// What a connection shows of its host: the last error (cleared by the next success) and the
// `broken` state when the host refuses the token.

const LAST_ERROR_LIMIT = 500;

export async function recordHostError(db: DbOrTrx, connectionId: string, message: string): Promise<void> {
  const now = nowMs();
  await Connection.query(db).findById(connectionId).patch({ last_error: redactSecrets(message).slice(0, LAST_ERROR_LIMIT), last_error_at: now, updated_at: now });
}

export async function clearHostError(db: DbOrTrx, connectionId: string): Promise<void> {
  await Connection.query(db).findById(connectionId).whereNotNull('last_error').patch({ last_error: null, last_error_at: null });
}

/** The host refused the token: the connection is `broken` until a new token is given, with one activity row. */
export async function markBroken(db: DbOrTrx, c: Connection, message: string): Promise<void> {
  await withTransaction(db, async (trx) => {
    const now = nowMs();
    const reason = redactSecrets(message).slice(0, LAST_ERROR_LIMIT);
    const n = await Connection.query(trx).findById(c.id).whereNot('state', 'broken').patch({ state: 'broken', last_error: reason, last_error_at: now, updated_at: now });
    if (n > 0) await connectionBroken(trx, { workspaceId: c.workspace_id, actor: SYSTEM_ACTOR, connectionId: c.id, provider: c.provider, repository: c.repository, reason });
  });
}
