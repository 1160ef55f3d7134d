import crypto from 'node:crypto';
import { StatementBatcher, isPostgres, runSql, type Db } from '../db/index.ts';
import { nowMs } from '../platform/index.ts';
import { SCOPES, hashKey, isScope, looksLikeKey, type Scope } from './key-format.ts';
import { hashSessionToken, isLive, looksLikeSessionToken, touchSession } from './sessions.ts';
import { isRole } from './roles.ts';
import type { Caller, VisibleWorkspace, WorkspaceRow } from './visibility.ts';

/** What a request authenticated with an API key or a session may act as. */
export interface AuthContext extends Caller {
  /** An API key, or a person's session (spec/sign-in.tsp): every scope, no binding, no expiry of its own. */
  credential: 'api_key' | 'session';
  /** The key's id, or the session's. */
  keyId: string;
  /** The key's name as the operator gave it, or the session user's email (the activity feed's actor label), or null. */
  keyName: string | null;
  /** The key user's account. */
  accountId: string;
  scopes: Scope[];
  /** When the key stops working (it has not yet), or null. */
  expiresAt: number | null;
}

/**
 * The workspace a request is about, when the HTTP layer can tell before reading anything: named
 * directly, or as the workspace of a row it names (`table` is the owning domain's table, whose
 * rows carry `id` and `workspace_id`; see registerRowTables). The key's binding is the default.
 */
export type WorkspaceHint = { workspaceId: string } | { table: string; id: string } | null;

export interface Authenticated {
  auth: AuthContext;
  /** The hinted workspace and the caller's role in it, when the user is a member of it. */
  prefetched: VisibleWorkspace | null;
}

/** last_used_at is refreshed at most this often per key, so reads do not all become writes. */
export const LAST_USED_RESOLUTION_MS = 60_000;

const WORKSPACE_COLUMNS = ['id', 'account_id', 'name', 'slug', 'type', 'logo', 'website', 'timezone', 'country', 'description', 'language', 'check_schedule', 'check_time', 'crawl_schedule', 'render_preset', 'schedule_changed_at', 'created_at', 'updated_at'] as const;

// Written out once and prepared per connection (runSql's `prepared`, core/db/statements.ts) rather than built and
// planned per request: on this path the query builder and PostgreSQL's planner cost more than
// the query itself (bench:api, server CPU per request).
function authSql(target: string, keyHash = '?'): string {
  return `SELECT k.id, k.user_id, k.workspace_id, k.name, k.key_hash, k.scopes, k.last_used_at, k.revoked_at, k.expires_at, u.account_id,
      m.role AS m_role, ${WORKSPACE_COLUMNS.map((c) => `w.${c} AS w_${c}`).join(', ')}
    FROM api_keys k
    JOIN users u ON u.id = k.user_id
    LEFT JOIN memberships m ON m.user_id = k.user_id AND m.workspace_id = ${target}
    LEFT JOIN workspaces w ON w.id = m.workspace_id
    WHERE k.key_hash = ${keyHash}
    LIMIT 1`;
}

const SQL_NAME = /^[a-z_][a-z0-9_]*$/;
/** Tables whose rows may name a request's workspace, as the owning domains declare them. */
const rowTables = new Set<string>();

/**
 * Declares the tables whose rows can name a request's workspace (each owning domain's, collected
 * where the server is assembled). A hint naming another table is a programming error.
 */
export function registerRowTables(tables: Iterable<string>): void {
  for (const table of tables) {
    if (!SQL_NAME.test(table)) throw new Error(`not a table name: ${table}`);
    rowTables.add(table);
  }
}

const rowWorkspace = (table: string, id: string) => `(SELECT workspace_id FROM ${table} WHERE id = ${id})`;

const BINDING_SQL = authSql('k.workspace_id');
const NAMED_SQL = authSql('COALESCE(?, k.workspace_id)');
const rowSql = (table: string) => authSql(`COALESCE(${rowWorkspace(table, '?')}, k.workspace_id)`);

// PostgreSQL: the lookups of concurrent requests in one execution (core/db/batch.ts). Each
// request's row is the same query as above, run per input row (LATERAL, LIMIT 1: index lookups
// whatever the planner guesses about the array's length); `ord` says whose row it is.
function authBatchSql(tables: readonly string[]): string {
  const rows = tables.map((t) => `WHEN '${t}' THEN ${rowWorkspace(t, 'r.row_id')}`).join(' ');
  const fromRow = tables.length ? `CASE r.row_table ${rows} END, ` : '';
  return `SELECT r.ord, a.*
  FROM unnest(?::text[], ?::uuid[], ?::text[], ?::uuid[]) WITH ORDINALITY AS r(key_hash, named, row_table, row_id, ord)
  CROSS JOIN LATERAL (${authSql(`COALESCE(r.named, ${fromRow}k.workspace_id)`, 'r.key_hash')}) a`;
}

type AuthRow = Record<string, unknown>;
interface Lookup {
  digest: string;
  hint: WorkspaceHint;
}

const authBatcher = new StatementBatcher<Lookup, AuthRow | undefined>(
  async (db, lookups) => {
    const column = (f: (l: Lookup) => string | null) => lookups.map(f);
    const tables = [...rowTables].sort();
    // Named by the tables it covers: registering another table makes it a new statement.
    const rows = await runSql<AuthRow>(db, authBatchSql(tables), [
      column((l) => l.digest),
      column((l) => (l.hint && 'workspaceId' in l.hint ? l.hint.workspaceId : null)),
      column((l) => (l.hint && 'table' in l.hint ? l.hint.table : null)),
      column((l) => (l.hint && 'table' in l.hint ? l.hint.id : null)),
    ], { prepared: `sitehealth_auth_batch_${tables.join('_')}` });
    const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
    return lookups.map((_, i) => byOrd.get(i + 1));
  },
  { maxInFlight: 2, maxBatch: 64 },
);

async function lookUpKey(db: Db, digest: string, hint: WorkspaceHint): Promise<AuthRow | undefined> {
  if (hint && 'table' in hint && !rowTables.has(hint.table)) throw new Error(`no row table registered as ${hint.table}`);
  if (isPostgres(db)) return authBatcher.submit(db, { digest, hint });
  // SQLite answers in-process: a round trip costs nothing there, so each request asks alone.
  if (hint && 'workspaceId' in hint) return (await runSql<AuthRow>(db, NAMED_SQL, [hint.workspaceId, digest], { prepared: 'sitehealth_auth_named' }))[0];
  if (hint) return (await runSql<AuthRow>(db, rowSql(hint.table), [hint.id, digest], { prepared: `sitehealth_auth_row_${hint.table}` }))[0];
  return (await runSql<AuthRow>(db, BINDING_SQL, [digest], { prepared: 'sitehealth_auth_binding' }))[0];
}

/**
 * The caller behind a raw `X-API-Key` value, or null for a malformed, unknown or revoked key.
 * Malformed keys (bad format or checksum) never reach the database.
 *
 * Nothing is cached: a revoked key, a removed membership or a changed role takes effect on the
 * very next request on every process. To keep that as cheap as the old 5 s cache, the key, its
 * user's account, and the caller's role in and row of the hinted workspace come back in one
 * query, and the access check then needs none of its own; on PostgreSQL concurrent requests
 * share that query's round trip. Plain SQL rather than the models: this runs on every request
 * (bench:api: the model layer cost about as much CPU as the query).
 */
export async function authenticateKey(db: Db, rawKey: string | null | undefined, hint: WorkspaceHint = null): Promise<Authenticated | null> {
  const result = await authenticateRequest(db, rawKey, hint);
  return 'auth' in result ? result : null;
}

/** Why a key was refused: unknown (malformed, not found, revoked: one answer) or expired. */
export type Refusal = { refused: 'unknown' } | { refused: 'expired'; keyId: string; expiresAt: number };

/** As authenticateKey, but says when a valid key was refused because it expired (401 key_expired). */
export async function authenticateRequest(db: Db, rawKey: string | null | undefined, hint: WorkspaceHint = null): Promise<Authenticated | Refusal> {
  const unknown: Refusal = { refused: 'unknown' };
  if (!looksLikeKey(rawKey)) return unknown;
  const digest = hashKey(rawKey);
  const row = await lookUpKey(db, digest, hint);
  if (!row) return unknown;
  // The lookup is by an indexed digest, so its timing says nothing useful about the key;
  // comparing again in constant time guards against an index or collation that would
  // match a value that is not byte-for-byte equal.
  const stored = Buffer.from(String(row.key_hash), 'utf8');
  const given = Buffer.from(digest, 'utf8');
  if (stored.length !== given.length || !crypto.timingSafeEqual(stored, given)) return unknown;
  if (row.revoked_at !== null && row.revoked_at !== undefined) return unknown;

  const keyId = String(row.id);
  const expiresAt = row.expires_at === null || row.expires_at === undefined ? null : Number(row.expires_at);
  if (expiresAt !== null && nowMs() >= expiresAt) return { refused: 'expired', keyId, expiresAt };
  touchLastUsed(db, keyId, row.last_used_at as number | null);
  const auth: AuthContext = {
    credential: 'api_key',
    keyId,
    keyName: (row.name as string | null) ?? null,
    userId: String(row.user_id),
    accountId: String(row.account_id),
    workspaceId: (row.workspace_id as string | null) ?? null,
    scopes: String(row.scopes).split(',').filter(isScope),
    expiresAt,
  };
  return { auth, prefetched: prefetchedWorkspace(row) };
}

function prefetchedWorkspace(row: AuthRow): VisibleWorkspace | null {
  if (!row.w_id || !isRole(row.m_role)) return null;
  const workspace = Object.fromEntries(WORKSPACE_COLUMNS.map((c) => [c, row[`w_${c}`] ?? null])) as unknown as WorkspaceRow;
  return { workspace, role: row.m_role };
}

// The session's lookup: the same membership and workspace columns as a key's, for the same
// reason. People make few requests, so it is not batched.
function sessionSql(target: string): string {
  return `SELECT s.id, s.user_id, s.token_hash, s.created_at, s.last_seen_at, s.revoked_at, u.account_id, u.email,
      m.role AS m_role, ${WORKSPACE_COLUMNS.map((c) => `w.${c} AS w_${c}`).join(', ')}
    FROM sessions s
    JOIN users u ON u.id = s.user_id
    LEFT JOIN memberships m ON m.user_id = s.user_id AND m.workspace_id = ${target}
    LEFT JOIN workspaces w ON w.id = m.workspace_id
    WHERE s.token_hash = ?
    LIMIT 1`;
}

/**
 * The person behind a session cookie, read with the workspace the request names as for a key; null
 * for a malformed, unknown, revoked or ended session. A session holds every scope and no binding:
 * the user's role in each workspace is what limits it.
 */
export async function authenticateSession(db: Db, token: string | null | undefined, hint: WorkspaceHint = null): Promise<Authenticated | null> {
  if (!looksLikeSessionToken(token)) return null;
  if (hint && 'table' in hint && !rowTables.has(hint.table)) throw new Error(`no row table registered as ${hint.table}`);
  const digest = hashSessionToken(token);
  const [target, params, name] = !hint
    ? ['NULL', [digest], 'none']
    : 'workspaceId' in hint
      ? ['?', [hint.workspaceId, digest], 'named']
      : [rowWorkspace(hint.table, '?'), [hint.id, digest], `row_${hint.table}`];
  const row = (await runSql<AuthRow>(db, sessionSql(target), params, { prepared: `sitehealth_session_${name}` }))[0];
  if (!row || row.token_hash !== digest) return null;
  const session = { created_at: Number(row.created_at), last_seen_at: Number(row.last_seen_at), revoked_at: row.revoked_at === null || row.revoked_at === undefined ? null : Number(row.revoked_at) };
  if (!isLive(session)) return null;
  const sessionId = String(row.id);
  touchSession(db, sessionId, session.last_seen_at);
  const auth: AuthContext = {
    credential: 'session',
    keyId: sessionId,
    keyName: String(row.email),
    userId: String(row.user_id),
    accountId: String(row.account_id),
    workspaceId: null,
    scopes: [...SCOPES],
    expiresAt: null,
  };
  return { auth, prefetched: prefetchedWorkspace(row) };
}

/**
 * Bookkeeping off the request's path: at most once a minute per key (conditional, so concurrent
 * requests write once), never waiting for a busy database, and never failing the request.
 */
function touchLastUsed(db: Db, keyId: string, lastUsedAt: number | null): void {
  const now = nowMs();
  if (lastUsedAt !== null && lastUsedAt !== undefined && now - Number(lastUsedAt) < LAST_USED_RESOLUTION_MS) return;
  db('api_keys')
    .where({ id: keyId })
    .andWhere((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<=', now - LAST_USED_RESOLUTION_MS))
    .update({ last_used_at: now })
    .options({ busyWaitMs: 0 })
    .then(
      () => {},
      () => {},
    );
}
