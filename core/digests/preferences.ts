// Each member's digest choice per workspace (spec/digests.tsp DigestFrequency): weekly unless
// the member chose otherwise.
import type { Schemas } from '../contract/index.ts';
import { User, Workspace, runSql, withTransaction, type DbOrTrx } from '../db/index.ts';
import { digestEvent, type Actor } from '../activity/index.ts';
import { NotFound, nowMs, toIso } from '../platform/index.ts';

export type DigestFrequency = Schemas['DigestFrequency'];
export const DEFAULT_DIGEST: DigestFrequency = 'weekly';

/** The caller's settings in a workspace (the workspace is visible to them: the HTTP guard said so). */
export async function notificationSettings(db: DbOrTrx, workspaceId: string, userId: string): Promise<Schemas['NotificationSettings']> {
  const [ws, user, rows] = await Promise.all([
    Workspace.query(db).findById(workspaceId).select('id', 'timezone'),
    User.query(db).findById(userId).select('id', 'email'),
    runSql<{ digest: DigestFrequency; updated_at: number }>(db, 'SELECT digest, updated_at FROM digest_preferences WHERE workspace_id = ? AND user_id = ?', [workspaceId, userId]),
  ]);
  if (!ws || !user) throw new NotFound();
  const row = rows[0];
  return { workspaceId, userId, email: user.email, digest: row?.digest ?? DEFAULT_DIGEST, timezone: ws.timezone, updatedAt: row ? toIso(Number(row.updated_at)) : null };
}

/**
 * Sets a member's digest (`digest.preference_changed`, or `digest.unsubscribed` from a link); a
 * choice equal to the current one changes nothing and writes no row.
 */
export async function setDigest(
  db: DbOrTrx,
  f: { workspaceId: string; userId: string; digest: DigestFrequency; actor: Actor; via?: 'unsubscribe' },
): Promise<void> {
  await withTransaction(db, async (trx) => {
    const [row] = await runSql<{ digest: DigestFrequency }>(trx, 'SELECT digest FROM digest_preferences WHERE workspace_id = ? AND user_id = ?', [f.workspaceId, f.userId]);
    const from = row?.digest ?? DEFAULT_DIGEST;
    if (row && from === f.digest) return;
    await runSql(
      trx,
      `INSERT INTO digest_preferences (workspace_id, user_id, digest, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (workspace_id, user_id) DO UPDATE SET digest = excluded.digest, updated_at = excluded.updated_at`,
      [f.workspaceId, f.userId, f.digest, nowMs()],
    );
    if (from !== f.digest) {
      await digestEvent(trx, f.via === 'unsubscribe' ? 'digest.unsubscribed' : 'digest.preference_changed', { workspaceId: f.workspaceId, userId: f.userId, actor: f.actor, details: { from, to: f.digest } });
    }
  });
}

export interface Recipient {
  userId: string;
  email: string;
}

/**
 * The members who get a workspace's `frequency` digest due at `slotAt`: members then (joined at
 * or before it) whose choice, made at or before it, is that frequency.
 */
export async function digestRecipients(db: DbOrTrx, workspaceId: string, frequency: Exclude<DigestFrequency, 'none'>, slotAt: number): Promise<Recipient[]> {
  const rows = await runSql<{ user_id: string; email: string; digest: DigestFrequency | null; updated_at: number | null }>(
    db,
    `SELECT m.user_id, u.email, p.digest, p.updated_at FROM memberships m
       JOIN users u ON u.id = m.user_id
       LEFT JOIN digest_preferences p ON p.workspace_id = m.workspace_id AND p.user_id = m.user_id
      WHERE m.workspace_id = ? AND m.created_at <= ?
      ORDER BY m.created_at, m.user_id`,
    [workspaceId, slotAt],
  );
  return rows.filter((r) => (r.digest ?? DEFAULT_DIGEST) === frequency && (r.updated_at === null || Number(r.updated_at) <= slotAt)).map((r) => ({ userId: r.user_id, email: r.email }));
}
