import { v7 } from 'uuid';
import { isPostgres, withTransaction, type Db } from '../db/index.ts';
import { redactSecrets } from '../platform/index.ts';
import {
  ERROR_STATUS,
  HOUR_MS,
  type RequestLogHourlyRow,
  type RequestLogInput,
  type RequestLogRollupRow,
  type RequestLogRow,
} from './types.ts';

// Writes a batch of request log rows and the rollups that count them (request_log_hourly and
// request_log_rollups, migration 000301) in one transaction, so `meta` computed from the
// rollups always equals a count of the rows.

const MAX_PATH = 2048;
const MAX_ERROR = 2000;
const MAX_INT = 2_147_483_647;
const CHUNK = 500;

function chunks<T>(xs: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += CHUNK) out.push(xs.slice(i, i + CHUNK));
  return out;
}

function clampInt(n: number): number {
  if (!Number.isFinite(n) || n < 0) return 0;
  return Math.min(Math.round(n), MAX_INT);
}

function toRow(e: RequestLogInput): RequestLogRow {
  const createdAt = Math.trunc(e.createdAt);
  return {
    // UUID v7 carrying created_at, so the id orders like the row and a `before` cursor
    // still places itself after its row has been pruned.
    id: e.id ?? v7({ msecs: createdAt }),
    workspace_id: e.workspaceId.toLowerCase(),
    method: e.method.toUpperCase().slice(0, 16),
    path: redactSecrets(e.path).slice(0, MAX_PATH),
    route: e.route ? e.route.slice(0, 255) : null,
    status_code: clampInt(e.statusCode),
    duration_ms: clampInt(e.durationMs),
    error_message: e.errorMessage ? redactSecrets(e.errorMessage).slice(0, MAX_ERROR) : null,
    api_key_id: e.apiKeyId,
    created_at: createdAt,
  };
}

const ROLLUP_KEY = ['workspace_id', 'hour_start', 'method', 'route', 'status_code'] as const;

const hourOf = (ms: number) => ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS);
const byKeyOrder = <T>([a]: [string, T], [b]: [string, T]) => (a < b ? -1 : a > b ? 1 : 0);

/** Totals and errors per (workspace, hour), sorted so concurrent writers lock in one order. */
function hourlyOf(rows: RequestLogRow[]): RequestLogHourlyRow[] {
  const byKey = new Map<string, RequestLogHourlyRow>();
  for (const r of rows) {
    const hour = hourOf(r.created_at);
    const key = `${r.workspace_id}|${hour}`;
    let h = byKey.get(key);
    if (!h) {
      h = { id: v7({ msecs: hour }), workspace_id: r.workspace_id, hour_start: hour, total: 0, errors: 0 };
      byKey.set(key, h);
    }
    h.total += 1;
    if (r.status_code >= ERROR_STATUS) h.errors += 1;
  }
  return [...byKey.entries()].sort(byKeyOrder).map(([, v]) => v);
}

/** Counts per (workspace, hour, method, route, status), sorted so concurrent writers lock in one order. */
function rollupsOf(rows: RequestLogRow[]): RequestLogRollupRow[] {
  const byKey = new Map<string, RequestLogRollupRow>();
  for (const r of rows) {
    const hour = hourOf(r.created_at);
    const route = r.route ?? '';
    const key = `${r.workspace_id}|${hour}|${r.method}|${route}|${r.status_code}`;
    const hit = byKey.get(key);
    if (hit) hit.total += 1;
    else
      byKey.set(key, {
        id: v7({ msecs: hour }),
        workspace_id: r.workspace_id,
        hour_start: hour,
        method: r.method,
        route,
        status_code: r.status_code,
        total: 1,
      });
  }
  return [...byKey.entries()].sort(byKeyOrder).map(([, v]) => v);
}

/**
 * Stores the entries and adds them to the rollups; returns the rows written. Plain Knex: a
 * multi-row insert of up to 1,000 rows and two upserts per second is the request log's whole
 * cost (bench:logs: 1.5% overhead on POST /v1/deploys), and model instances would only add to it. Entries of a
 * workspace deleted since the request (the DELETE request itself, for one) are dropped: the
 * workspace's logs went with it. On PostgreSQL the workspaces are held with KEY SHARE for the
 * transaction, so a concurrent delete waits instead of failing the batch's foreign keys.
 */
export async function writeRequestLogs(db: Db, entries: readonly RequestLogInput[]): Promise<RequestLogRow[]> {
  if (entries.length === 0) return [];
  const rows = entries.map(toRow);
  const workspaceIds = [...new Set(rows.map((r) => r.workspace_id))].sort();
  return withTransaction(db, async (trx) => {
    const live = new Set<string>();
    for (let i = 0; i < workspaceIds.length; i += CHUNK) {
      const q = trx('workspaces').whereIn('id', workspaceIds.slice(i, i + CHUNK)).select('id');
      if (isPostgres(trx)) q.forKeyShare();
      for (const w of (await q) as Array<{ id: string }>) live.add(w.id);
    }
    const kept = live.size === workspaceIds.length ? rows : rows.filter((r) => live.has(r.workspace_id));
    if (kept.length === 0) return [];
    for (const chunk of chunks(kept)) await trx('request_logs').insert(chunk);
    for (const chunk of chunks(hourlyOf(kept))) {
      await trx('request_log_hourly')
        .insert(chunk)
        .onConflict(['workspace_id', 'hour_start'])
        .merge({
          total: trx.raw('request_log_hourly.total + excluded.total'),
          errors: trx.raw('request_log_hourly.errors + excluded.errors'),
        });
    }
    for (const chunk of chunks(rollupsOf(kept))) {
      await trx('request_log_rollups')
        .insert(chunk)
        .onConflict([...ROLLUP_KEY])
        .merge({ total: trx.raw('request_log_rollups.total + excluded.total') });
    }
    return kept;
  });
}
