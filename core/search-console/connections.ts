// A workspace's Search Console connection (spec/search-console.tsp): starting an OAuth 2.0
// authorization (a single-use `state`, stored as its SHA-256), completing it when Google sends
// the browser back (the code exchanged for a refresh token, sealed with the core/secrets keyring),
// disconnecting, and queueing syncs. This domain alone writes search_console_connections.

import crypto from 'node:crypto';
import { SearchConsoleConnection, withTransaction, type Db, type DbOrTrx } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import {
  SYSTEM_ACTOR,
  searchConsoleAuthorizationStarted,
  searchConsoleConnected,
  searchConsoleConsentRefused,
  searchConsoleDisconnected,
  type Actor,
} from '../activity/index.ts';
import { enqueue } from '../jobs/index.ts';
import { DomainError, NotFound, ServiceUnavailable, newId, nowMs, redactSecrets, toIso, type Config } from '../platform/index.ts';
import { keyringFor, type Keyring } from '../secrets/index.ts';
import { SEARCH_CONSOLE_SCOPE, classify, oauthClient, redirectUriOf, type GoogleSettings } from './google.ts';

/** An authorization must come back within an hour. */
const STATE_TTL_MS = 3_600_000;
const LAST_ERROR_LIMIT = 500;

/** What the Search Console domain needs from the process. */
export interface SearchConsoleSettings {
  google: GoogleSettings;
  keyring: Keyring;
  publicUrl: string;
  timeoutMs: number;
}

const settingsByConfig = new WeakMap<Config, SearchConsoleSettings>();

export function searchConsoleSettings(config: Config): SearchConsoleSettings {
  let s = settingsByConfig.get(config);
  if (!s) {
    s = { google: config.google, keyring: keyringFor(config), publicUrl: config.publicUrl, timeoutMs: Math.max(config.fetchTimeoutMs, 30_000) };
    settingsByConfig.set(config, s);
  }
  return s;
}

/** Sealed tokens name their row, so one copied to another row does not open. */
export const refreshTokenContext = (id: string) => `search_console_connections/${id}/refresh_token`;

const stateHash = (state: string) => crypto.createHash('sha256').update(state, 'utf8').digest('hex');

export function searchConsoleToApi(c: SearchConsoleConnection): Schemas['SearchConsoleConnection'] {
  return {
    id: c.id,
    workspaceId: c.workspace_id,
    siteUrl: c.site_url,
    state: c.state,
    connectedAt: toIso(c.connected_at),
    lastSyncAt: toIso(c.last_sync_at),
    syncedThrough: c.synced_through === null ? null : String(c.synced_through),
    lastSyncRows: c.last_sync_rows,
    lastSyncMs: c.last_sync_ms,
    lastError: c.last_error,
    lastErrorAt: toIso(c.last_error_at),
    createdAt: toIso(c.created_at)!,
    updatedAt: toIso(c.updated_at)!,
  };
}

export async function getSearchConsole(db: DbOrTrx, workspaceId: string): Promise<SearchConsoleConnection> {
  const c = await SearchConsoleConnection.query(db).findOne({ workspace_id: workspaceId });
  if (!c) throw new NotFound('This workspace has no Search Console connection.');
  return c;
}

export async function findSearchConsole(db: DbOrTrx, id: string): Promise<SearchConsoleConnection | undefined> {
  return SearchConsoleConnection.query(db).findById(id);
}

class SearchConsoleUnconfigured extends ServiceUnavailable {
  constructor() {
    super('This server has no Google OAuth client (GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET), so Search Console cannot be connected; ask the operator to set one.', 3600, 'search_console_unconfigured', 'Search Console not configured');
  }
}

/**
 * Starts (or restarts) the authorization of a workspace's connection: a new single-use state,
 * valid an hour, and the URL of Google's consent screen. An existing connection keeps its token
 * until a new grant replaces it.
 */
export async function startAuthorization(
  db: Db,
  workspaceId: string,
  input: Schemas['SearchConsoleConnect'],
  s: SearchConsoleSettings,
  actor: Actor,
): Promise<Schemas['SearchConsoleAuthorization']> {
  if (!s.google.clientId || !s.google.clientSecret) throw new SearchConsoleUnconfigured();
  if (!s.keyring.configured) s.keyring.seal('', ''); // secrets_unconfigured: the grant could not be stored
  const state = crypto.randomBytes(32).toString('base64url');
  const now = nowMs();
  const row = await withTransaction(db, async (trx) => {
    const existing = await SearchConsoleConnection.query(trx).findOne({ workspace_id: workspaceId }).forUpdate();
    const patch = { site_url: input.siteUrl, auth_state_hash: stateHash(state), auth_state_expires_at: now + STATE_TTL_MS, updated_at: now };
    let id: string;
    if (existing) {
      id = existing.id;
      await SearchConsoleConnection.query(trx).findById(id).patch(patch);
    } else {
      id = newId();
      await SearchConsoleConnection.query(trx).insert({
        id,
        workspace_id: workspaceId,
        state: 'pending',
        refresh_token: null,
        connected_at: null,
        last_sync_at: null,
        synced_through: null,
        last_sync_rows: null,
        last_sync_ms: null,
        last_error: null,
        last_error_at: null,
        created_at: now,
        ...patch,
      });
    }
    await searchConsoleAuthorizationStarted(trx, { workspaceId, actor, connectionId: id, siteUrl: input.siteUrl });
    return (await SearchConsoleConnection.query(trx).findById(id))!;
  });
  const authorizationUrl = oauthClient(s.google, redirectUriOf(s.publicUrl)).generateAuthUrl({
    access_type: 'offline',
    // Google sends a refresh token only with a consent screen shown: ask for it every time.
    prompt: 'consent',
    scope: [SEARCH_CONSOLE_SCOPE],
    state,
  });
  return { connection: searchConsoleToApi(row), authorizationUrl };
}

/**
 * Google sent the browser back. The state is consumed first (exactly once, whatever follows), then
 * the code exchanged; the sealed refresh token, the `connected` state, a security activity row and
 * the first sync commit together.
 */
export async function completeAuthorization(
  db: Db,
  q: { state: string; code?: string; error?: string; scope?: string },
  s: SearchConsoleSettings,
): Promise<Schemas['SearchConsoleCallbackResult']> {
  const now = nowMs();
  const hash = stateHash(q.state);
  const c = await withTransaction(db, async (trx) => {
    const row = await SearchConsoleConnection.query(trx).findOne({ auth_state_hash: hash }).where('auth_state_expires_at', '>', now);
    if (!row) return null;
    const n = await SearchConsoleConnection.query(trx).findById(row.id).where({ auth_state_hash: hash }).patch({ auth_state_hash: null, auth_state_expires_at: null, updated_at: now });
    return n === 1 ? row : null;
  });
  if (!c) throw new NotFound('This authorization is unknown, expired or was used already; start again with POST /v1/workspaces/{id}/search-console.');
  const fields = { workspaceId: c.workspace_id, actor: SYSTEM_ACTOR, connectionId: c.id, siteUrl: c.site_url };

  const refuse = async (reason: string) => {
    const at = nowMs();
    await withTransaction(db, async (trx) => {
      await SearchConsoleConnection.query(trx).findById(c.id).patch({ last_error: redactSecrets(reason).slice(0, LAST_ERROR_LIMIT), last_error_at: at, updated_at: at });
      await searchConsoleConsentRefused(trx, { ...fields, reason });
    });
  };
  if (q.error !== undefined || q.code === undefined) {
    const reason = `Access was not granted at Google (${q.error ?? 'no code'})`;
    await refuse(reason);
    return { workspaceId: c.workspace_id, outcome: 'refused' };
  }

  let refreshToken: string | null | undefined;
  try {
    const { tokens } = await oauthClient(s.google, redirectUriOf(s.publicUrl)).getToken({ code: q.code });
    refreshToken = tokens.refresh_token;
  } catch (err) {
    const reason = `Google would not exchange the authorization code: ${classify(err).message}`;
    await refuse(reason);
    throw new DomainError(422, 'search_console_refused', 'Search Console refused', reason.slice(0, LAST_ERROR_LIMIT));
  }
  if (!refreshToken) {
    const reason = 'Google granted access without a refresh token; remove sitehealth from the Google account\'s third-party access and connect again';
    await refuse(reason);
    throw new DomainError(422, 'search_console_refused', 'Search Console refused', reason);
  }
  await withTransaction(db, async (trx) => {
    const at = nowMs();
    await SearchConsoleConnection.query(trx)
      .findById(c.id)
      .patch({ refresh_token: s.keyring.seal(refreshToken, refreshTokenContext(c.id)), state: 'connected', connected_at: at, last_error: null, last_error_at: null, updated_at: at });
    await searchConsoleConnected(trx, { ...fields, scope: q.scope ?? null });
    await queueSync(trx, c);
  });
  return { workspaceId: c.workspace_id, outcome: 'connected' };
}

/** Deletes the connection and its token; the search data stays. */
export async function disconnectSearchConsole(db: Db, workspaceId: string, actor: Actor): Promise<void> {
  await withTransaction(db, async (trx) => {
    const c = await getSearchConsole(trx, workspaceId);
    await SearchConsoleConnection.query(trx).deleteById(c.id);
    await searchConsoleDisconnected(trx, { workspaceId, actor, connectionId: c.id, siteUrl: c.site_url });
  });
}

/** Whether a connection can sync: it holds a grant Google has not refused. */
export function canSync(c: SearchConsoleConnection): boolean {
  return c.refresh_token !== null && (c.state === 'connected' || c.state === 'failing');
}

/** Queues a sync in the caller's transaction; one queued or running per connection. */
export async function queueSync(trx: DbOrTrx, c: { id: string; workspace_id: string }, runAt?: number): Promise<string> {
  const { id } = await enqueue(trx, 'search_sync', { connectionId: c.id }, { dedupeKey: `search_sync:${c.id}`, workspaceId: c.workspace_id, runAt });
  return id;
}

/** `POST .../search-console/sync`: a sync now, for a connection that can sync. */
export async function syncNow(db: Db, workspaceId: string): Promise<Schemas['SearchConsoleConnection']> {
  return withTransaction(db, async (trx) => {
    const c = await getSearchConsole(trx, workspaceId);
    if (!canSync(c)) {
      throw new DomainError(409, 'search_console_not_connected', 'Search Console not connected', `The Search Console connection is ${c.state}: grant access first (POST /v1/workspaces/{id}/search-console).`);
    }
    await queueSync(trx, c);
    return searchConsoleToApi(c);
  });
}

/** The connections the daily schedule syncs, with when each became connected (slots before are skipped). */
export async function syncableConnections(db: DbOrTrx): Promise<Array<{ id: string; workspaceId: string; since: number }>> {
  const rows = await SearchConsoleConnection.query(db).whereIn('state', ['connected', 'failing']).whereNotNull('refresh_token').select('id', 'workspace_id', 'connected_at');
  return rows.map((r) => ({ id: r.id, workspaceId: r.workspace_id, since: Number(r.connected_at ?? 0) }));
}


/** Re-seals every refresh token an older key sealed (`npm run admin -- secrets reseal`); returns how many. */
export async function resealSearchConsole(db: DbOrTrx, keyring: Keyring): Promise<number> {
  let count = 0;
  for (const c of await SearchConsoleConnection.query(db).whereNotNull('refresh_token')) {
    if (!keyring.isStale(c.refresh_token!)) continue;
    const plain = keyring.open(c.refresh_token!, refreshTokenContext(c.id));
    await SearchConsoleConnection.query(db).findById(c.id).patch({ refresh_token: keyring.seal(plain, refreshTokenContext(c.id)) });
    count++;
  }
  return count;
}
