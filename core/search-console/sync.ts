// The sync of one connection (the `search_sync` job): the days from 3 before the newest day the
// last sync read (Search Console revises its recent days) through yesterday, or the last
// SEARCH_SYNC_BACKFILL_DAYS on a first sync. Each day is read twice from the Search Analytics
// API, by date and page (the per-page totals, anonymized queries included) and by date, page,
// query, country and device (the detail), then replaces that day in one short transaction
// (core/search-data replaceDay), so a sync that fails half-way leaves whole days. Days Search
// Console calls incomplete (`metadata.firstIncompleteDate`) and the last 3 days read are
// provisional: deploy impact leaves them out until a later sync reads them again.
//
// A refused refresh token makes the connection `revoked`; any other failure `failing`; each with
// `lastError` on the connection and, when the state changes, an activity row.

import { SearchConsoleConnection, withTransaction, type Db } from '../db/index.ts';
import { SYSTEM_ACTOR, searchConsoleRevoked, searchConsoleSyncFailed } from '../activity/index.ts';
import { nowMs, redactSecrets } from '../platform/index.ts';
import { normalizeUrl } from '../pages/index.ts';
import { addDays, dayOf, daysBetween, replaceDay, type SyncedRow } from '../search-data/index.ts';
import { canSync, refreshTokenContext, type SearchConsoleSettings } from './connections.ts';
import { SearchAnalytics, classify, type ApiRow, type GoogleFailure } from './google.ts';

/** Days before the newest day read that every sync reads again: Search Console revises them. */
export const REREAD_DAYS = 3;
const LAST_ERROR_LIMIT = 500;

export interface SyncResult {
  outcome: 'synced' | 'skipped' | 'revoked' | 'failed';
  from?: string;
  to?: string;
  days?: number;
  /** Rows written: detailed plus per-page. */
  rows?: number;
  ms?: number;
  failure?: GoogleFailure;
}

/** A failure the job should retry (Search Console's 5xx, a timeout, a network error). */
export class TransientSyncError extends Error {
  constructor(readonly failure: GoogleFailure) {
    super(failure.message);
    this.name = 'TransientSyncError';
  }
}

/** The days a sync reads: from REREAD_DAYS before the last day read (or the back-fill) through yesterday. */
export function syncRange(c: { synced_through: string | null }, today: string, backfillDays: number): { from: string; to: string } {
  const to = addDays(today, -1);
  const backfill = addDays(today, -backfillDays);
  let from = c.synced_through === null ? backfill : addDays(String(c.synced_through), -(REREAD_DAYS - 1));
  if (daysBetween(backfill, from) < 0) from = backfill; // a connection idle for months reads the back-fill, not more
  if (daysBetween(from, to) < 0) from = to;
  return { from, to };
}

/** Merges rows whose normalised keys collide (a page with and without a fragment): sums, position weighted. */
function merge(rows: ApiRow[], date: string, keyed: boolean): SyncedRow[] {
  const out = new Map<string, SyncedRow & { pw: number; pi: number }>();
  for (const r of rows) {
    const keys = r.keys ?? [];
    if (keys[0] !== date) continue;
    const page = normalizeUrl(String(keys[1] ?? ''));
    if (page === null) continue;
    const query = keyed ? String(keys[2] ?? '') : '';
    const country = keyed ? String(keys[3] ?? '').toLowerCase() : '';
    const device = keyed ? String(keys[4] ?? '').toLowerCase() : '';
    const clicks = Math.round(r.clicks ?? 0);
    const impressions = Math.round(r.impressions ?? 0);
    const position = typeof r.position === 'number' ? r.position : null;
    const k = keyed ? JSON.stringify([page, query, country, device]) : page;
    let m = out.get(k);
    if (!m) {
      m = { page, query, country, device, clicks: 0, impressions: 0, position: null, pw: 0, pi: 0 };
      out.set(k, m);
    }
    m.clicks += clicks;
    m.impressions += impressions;
    if (position !== null) {
      m.pw += position * impressions;
      m.pi += impressions;
    }
  }
  return [...out.values()].map(({ pw, pi, ...r }) => ({ ...r, position: pi > 0 ? pw / pi : null }));
}

async function recordFailure(db: Db, c: SearchConsoleConnection, f: GoogleFailure): Promise<void> {
  const now = nowMs();
  const state = f.kind === 'revoked' ? 'revoked' : 'failing';
  const reason = redactSecrets(f.message).slice(0, LAST_ERROR_LIMIT);
  await withTransaction(db, async (trx) => {
    const n = await SearchConsoleConnection.query(trx).findById(c.id).whereNot('state', state).patch({ state, last_error: reason, last_error_at: now, last_sync_at: now, updated_at: now });
    if (n === 0) {
      await SearchConsoleConnection.query(trx).findById(c.id).patch({ last_error: reason, last_error_at: now, last_sync_at: now, updated_at: now });
      return;
    }
    // One activity row per change of state, not one per failed day or attempt.
    const fields = { workspaceId: c.workspace_id, actor: SYSTEM_ACTOR, connectionId: c.id, siteUrl: c.site_url, reason };
    if (state === 'revoked') await searchConsoleRevoked(trx, fields);
    else await searchConsoleSyncFailed(trx, { ...fields, status: f.status });
  });
}

/**
 * Syncs one connection. Throws TransientSyncError for a failure worth retrying (after recording it
 * when `lastAttempt`); records and returns other failures.
 */
export async function runSync(
  db: Db,
  connectionId: string,
  s: SearchConsoleSettings & { backfillDays: number },
  o: { now?: number; signal?: AbortSignal; lastAttempt?: boolean } = {},
): Promise<SyncResult> {
  const started = performance.now();
  const c = await SearchConsoleConnection.query(db).findById(connectionId);
  if (!c || !canSync(c)) return { outcome: 'skipped' };
  const today = dayOf(o.now ?? nowMs());
  const { from, to } = syncRange(c, today, s.backfillDays);
  let refreshToken: string;
  try {
    refreshToken = s.keyring.open(c.refresh_token!, refreshTokenContext(c.id));
  } catch (err) {
    const failure: GoogleFailure = { kind: 'revoked', status: null, message: `The stored refresh token cannot be opened (${err instanceof Error ? err.message : 'error'}); connect again` };
    await recordFailure(db, c, failure);
    return { outcome: 'revoked', failure };
  }
  const api = new SearchAnalytics(s.google, refreshToken, c.site_url, { timeoutMs: s.timeoutMs, signal: o.signal });
  const provisionalFrom = addDays(to, -(REREAD_DAYS - 1));
  let rows = 0;
  let days = 0;
  try {
    for (let date = from; daysBetween(date, to) >= 0; date = addDays(date, 1)) {
      const pages = await api.day(date, ['date', 'page']);
      const details = await api.day(date, ['date', 'page', 'query', 'country', 'device']);
      const incomplete = pages.firstIncompleteDate ?? details.firstIncompleteDate;
      const provisional = date >= provisionalFrom || (incomplete !== null && date >= incomplete);
      const day = { date, provisional, pages: merge(pages.rows, date, false), details: merge(details.rows, date, true) };
      rows += await withTransaction(db, (trx) => replaceDay(trx, c.workspace_id, day));
      days++;
    }
  } catch (err) {
    const failure = classify(err);
    if (failure.kind === 'transient' && !o.lastAttempt) throw new TransientSyncError(failure);
    await recordFailure(db, c, failure);
    if (failure.kind === 'transient') throw new TransientSyncError(failure);
    return { outcome: failure.kind === 'revoked' ? 'revoked' : 'failed', from, to, days, rows, failure };
  }
  const ms = Math.round(performance.now() - started);
  const now = nowMs();
  await SearchConsoleConnection.query(db)
    .findById(c.id)
    .whereIn('state', ['connected', 'failing'])
    .patch({ state: 'connected', synced_through: to, last_sync_at: now, last_sync_rows: rows, last_sync_ms: ms, last_error: null, last_error_at: null, updated_at: now });
  return { outcome: 'synced', from, to, days, rows, ms };
}
