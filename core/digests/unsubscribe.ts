// Unsubscribe tokens (spec/digests.tsp Unsubscribe): one per digest sent, in its link and its
// `List-Unsubscribe` header. The token names its digest and carries 32 random bytes; only its
// SHA-256 is stored, so the database alone cannot produce a working link, and a token whose
// random part was changed matches nothing. Using it sets `unsubscribed_at`: it works once.
import crypto from 'node:crypto';
import { Workspace, User, runSql, withTransaction, type DbOrTrx } from '../db/index.ts';
import { Conflict, NotFound, isUuid, nowMs } from '../platform/index.ts';
import type { Schemas } from '../contract/index.ts';
import { setDigest } from './preferences.ts';

const PREFIX = 'shu_';

export function hashUnsubscribeToken(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A new token for a digest, and the hash to store. */
export function newUnsubscribeToken(digestId: string): { token: string; hash: string } {
  const token = `${PREFIX}${digestId}.${crypto.randomBytes(32).toString('base64url')}`;
  return { token, hash: hashUnsubscribeToken(token) };
}

interface TokenRow {
  id: string;
  workspace_id: string;
  user_id: string;
  token_hash: string | null;
  unsubscribed_at: number | null;
}

const UNKNOWN = 'No digest has this unsubscribe token: check that the link was copied whole.';
const USED = 'This unsubscribe link was used already: each works once. You are unsubscribed from this workspace\'s digests.';

/** The digest a token belongs to, or 404 (unknown, malformed or tampered) / 409 token_used. */
async function digestOfToken(db: DbOrTrx, token: string): Promise<TokenRow> {
  const id = token.startsWith(PREFIX) ? token.slice(PREFIX.length, PREFIX.length + 36) : '';
  if (!isUuid(id) || token[PREFIX.length + 36] !== '.') throw new NotFound(UNKNOWN);
  const [row] = await runSql<TokenRow>(db, 'SELECT id, workspace_id, user_id, token_hash, unsubscribed_at FROM digests WHERE id = ?', [id.toLowerCase()]);
  const given = Buffer.from(hashUnsubscribeToken(token), 'hex');
  if (!row?.token_hash || !crypto.timingSafeEqual(given, Buffer.from(row.token_hash, 'hex'))) throw new NotFound(UNKNOWN);
  if (row.unsubscribed_at !== null) throw new Conflict('token_used', USED);
  return row;
}

async function describe(db: DbOrTrx, row: TokenRow): Promise<Schemas['Unsubscribed']> {
  // One after the other: `db` is a transaction when the token is used, and its one connection
  // takes one statement at a time (pg queues a second behind the first; should the first meet
  // the database going away, the ROLLBACK then queues behind that one on a client that will
  // never be ready again).
  const ws = await Workspace.query(db).findById(row.workspace_id).select('name');
  const user = await User.query(db).findById(row.user_id).select('email');
  if (!ws || !user) throw new NotFound(UNKNOWN);
  return { workspaceId: row.workspace_id, workspaceName: ws.name, email: user.email, digest: 'none' };
}

/** What the token would do, changing nothing (the page a link opens). */
export async function previewUnsubscribe(db: DbOrTrx, token: string): Promise<Schemas['Unsubscribed']> {
  return describe(db, await digestOfToken(db, token));
}

/** Uses the token: the member's digest for that workspace becomes `none` (`digest.unsubscribed`). */
export async function unsubscribe(db: DbOrTrx, token: string): Promise<Schemas['Unsubscribed']> {
  return withTransaction(db, async (trx) => {
    const row = await digestOfToken(trx, token);
    const out = await describe(trx, row);
    // Conditional: of two uses at once, one changes the row and the other is told it was used.
    const taken = await runSql<{ id: string }>(trx, 'UPDATE digests SET unsubscribed_at = ? WHERE id = ? AND unsubscribed_at IS NULL RETURNING id', [nowMs(), row.id]);
    if (taken.length !== 1) throw new Conflict('token_used', USED);
    await setDigest(trx, { workspaceId: row.workspace_id, userId: row.user_id, digest: 'none', actor: { type: 'user', id: row.user_id, label: 'unsubscribe link' }, via: 'unsubscribe' });
    return out;
  });
}
