// `search import`: a search-console CSV (date, page, clicks, impressions, optional position, ctr,
// provisional, query, country, device) into search_data and search_data_days, in one transaction.
// A file with a query, country or device column is detailed: its rows go to search_performance,
// and search_data gets their sums per day and page, computed by the database once the rows are
// in (so impact, findings' clicks and key pages read the same per-page table either way).
//
// The file is streamed, never held in memory: csv-parse reads it, RowReader checks each row, and
// the rows go straight into the table, by `COPY ... FROM STDIN` on PostgreSQL and by multi-row
// INSERTs on SQLite. A day the workspace already has is replaced: the first time the file names
// such a day, its old rows are deleted (on PostgreSQL between two COPY runs), before any of its
// new rows arrive, so a re-import needs no staging table and no second pass. A malformed row
// stops everything: the COPY is abandoned, the transaction rolls back, nothing was written. Two
// rows for the same date and page (after normalising the URL) are a malformed file too; the
// primary key finds them and the file is read again to name both lines.
//
// On SQLite the transaction holds the database's write lock for the whole import (other writers
// wait up to DB_BUSY_WAIT_MS): import large back-fills in pieces, or while nothing else writes.

import type { Knex } from 'knex';
import { Workspace, connectionOf, isPostgres, withTransaction, type Db } from '../db/index.ts';
import { NotFound, nowMs } from '../platform/index.ts';
import { dayOf } from './days.ts';
import { copyIn, type CopyIn } from './copy-in.ts';
import { RowReader, SearchImportError, csvProblem, openCsv, type SearchRow } from './rows.ts';
import { rollUp } from './rollups.ts';

export interface ImportInput {
  workspaceId: string;
  /** Path of the CSV file. */
  file: string;
  /** Days on or after this `YYYY-MM-DD` are provisional (not final yet). */
  provisionalFrom?: string;
  /** Called every PROGRESS_EVERY rows with the rows read so far. */
  onProgress?: (rows: number) => void;
}

export interface ImportResult {
  rows: number;
  days: number;
  /** Days the workspace had before, replaced by this file. */
  replacedDays: number;
  provisionalDays: number;
  /** Distinct pages (normalised URLs); counted up to PAGE_COUNT_LIMIT. */
  pages: number;
  pagesCapped: boolean;
  firstDay: string | null;
  lastDay: string | null;
  seconds: number;
}

export const PROGRESS_EVERY = 10_000;
const PAGE_COUNT_LIMIT = 1_000_000;
/** Two-key advisory lock namespace: imports of one workspace run one at a time. */
const IMPORT_LOCK_NAMESPACE = 7_262_612;

interface DayStats {
  rows: number;
  clicks: number;
  impressions: number;
  provisional: boolean;
}

/** Where checked rows go: the engine-specific half of the import. */
interface Sink {
  /** Deletes the workspace's rows of `date` (called before the first new row of a day it had). */
  replaceDay(date: string): Promise<void>;
  /** Takes a row; returns a promise only when the caller must wait (back-pressure). */
  add(row: SearchRow): Promise<void> | undefined;
  finish(): Promise<void>;
  /** Abandons what is in flight so the transaction can roll back. */
  abort(reason: string): Promise<void>;
}

/**
 * Two rows for one key (date and page; with query, country and device in a detailed file): found
 * by the primary key, named by reading the file again. `row` is null when the database did not say
 * which key (PostgreSQL's message for a five-column key cannot be split reliably).
 */
class DuplicateRow extends Error {
  constructor(readonly row: Pick<SearchRow, 'date' | 'page' | 'query' | 'country' | 'device'> | null) {
    super('duplicate row');
  }
}

/** What makes a row unique in its table. */
function rowKey(r: Pick<SearchRow, 'date' | 'page' | 'query' | 'country' | 'device'>, detailed: boolean): string {
  return detailed ? JSON.stringify([r.date, r.page, r.query, r.country, r.device]) : `${r.date} ${r.page}`;
}

/**
 * Imports one CSV file for a workspace. Idempotent: every day in the file replaces that day's
 * rows; days not in the file stay as they were. Throws SearchImportError (line and column) for a
 * malformed file and NotFound for an unknown workspace; nothing is written then.
 */
export async function importSearchData(db: Db, input: ImportInput): Promise<ImportResult> {
  const started = performance.now();
  const today = dayOf(nowMs());
  const result = await withTransaction(db, async (trx) => {
    if (isPostgres(trx)) await trx.raw('SELECT pg_advisory_xact_lock(?, hashtext(?))', [IMPORT_LOCK_NAMESPACE, input.workspaceId]);
    const ws = await Workspace.query(trx).findById(input.workspaceId).select('id');
    if (!ws) throw new NotFound(`Workspace ${input.workspaceId} does not exist.`);
    const had = new Set(
      ((await trx('search_data_days').where({ workspace_id: input.workspaceId }).pluck('date')) as string[]).map(String),
    );

    let sink: Sink | null = null;
    const days = new Map<string, DayStats>();
    const pages = new Set<string>();
    let reader: RowReader | null = null;
    let rows = 0;
    try {
      for await (const batch of openCsv(input.file)) {
        for (const record of batch) {
          if (reader === null) {
            reader = new RowReader(record, { today, provisionalFrom: input.provisionalFrom });
            const target = reader.detailed ? DETAIL_TARGET : PAGE_TARGET;
            sink = isPostgres(trx) ? await pgSink(trx, input.workspaceId, target) : await sqliteSink(trx, input.workspaceId, target);
            continue;
          }
          if (sink === null) continue;
          const row = reader.read(record);
          let day = days.get(row.date);
          if (day === undefined) {
            day = { rows: 0, clicks: 0, impressions: 0, provisional: false };
            days.set(row.date, day);
            if (had.has(row.date)) await sink.replaceDay(row.date);
          }
          day.rows++;
          day.clicks += row.clicks;
          day.impressions += row.impressions;
          if (row.provisional) day.provisional = true;
          if (pages.size < PAGE_COUNT_LIMIT) pages.add(row.page);
          const wait = sink.add(row);
          if (wait) await wait;
          rows++;
          if (input.onProgress && rows % PROGRESS_EVERY === 0) input.onProgress(rows);
        }
      }
      if (reader === null || sink === null) throw new SearchImportError(1, null, `the file is empty: a header line of ${['date', 'page', 'clicks', 'impressions'].join(', ')} is expected`);
      await sink.finish();
    } catch (err) {
      await sink?.abort(err instanceof Error ? err.message : String(err));
      throw await explain(err, input, today, reader?.header ?? null);
    }

    if (reader.detailed) await sumPages(trx, input.workspaceId, [...days.keys()]);
    await rollUp(trx, input.workspaceId, [...days.keys()]);
    await writeDays(trx, input.workspaceId, days);
    const sorted = [...days.keys()].sort();
    return {
      rows,
      days: days.size,
      replacedDays: sorted.filter((d) => had.has(d)).length,
      provisionalDays: [...days.values()].filter((d) => d.provisional).length,
      pages: pages.size,
      pagesCapped: pages.size >= PAGE_COUNT_LIMIT,
      firstDay: sorted[0] ?? null,
      lastDay: sorted[sorted.length - 1] ?? null,
    };
  });
  return { ...result, seconds: (performance.now() - started) / 1000 };
}

/** Turns what stopped an import into the error an operator reads. */
async function explain(err: unknown, input: ImportInput, today: string, header: string[] | null): Promise<unknown> {
  if (err instanceof SearchImportError) return err;
  const csv = csvProblem(err, header);
  if (csv) return csv;
  const dup = err instanceof DuplicateRow ? err : duplicateFromPg(err);
  if (dup) {
    const found = await repeatedRow(input, today, dup.row);
    if (found) {
      const { row, lines } = found;
      const what = found.detailed
        ? `${row.date}, ${row.page}, query ${JSON.stringify(row.query)}, country ${JSON.stringify(row.country)}, device ${JSON.stringify(row.device)}`
        : `${row.date} and ${row.page}`;
      return new SearchImportError(lines[1], found.detailed ? 'query' : 'page', `a second row for ${what} (the first is line ${lines[0]})`);
    }
    return new SearchImportError(1, null, 'the file has two rows with the same key');
  }
  const code = (err as { code?: string }).code;
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') {
    return new SearchImportError(1, null, `cannot read ${input.file} (${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : 'a directory'})`);
  }
  return err;
}

/** PostgreSQL's unique violation on search_data's key names the date and page; on search_performance's, only that there is one. */
function duplicateFromPg(err: unknown): DuplicateRow | null {
  const e = err as { code?: string; detail?: string; table?: string };
  if (e.code !== '23505' || !e.detail) return null;
  if (e.table === 'search_performance') return new DuplicateRow(null);
  if (e.table !== 'search_data') return null;
  const m = /^Key \(workspace_id, date, page\)=\([0-9a-f-]{36}, (\d{4}-\d{2}-\d{2}), ([\s\S]*)\) already exists\.$/.exec(e.detail);
  return m ? new DuplicateRow({ date: m[1], page: m[2], query: '', country: '', device: '' }) : null;
}

/**
 * The first two lines of the file with the same key as `known` or, when the database did not say
 * which key, the first key that repeats (this reads the file again and keeps the keys it has seen:
 * only on the way to an error).
 */
async function repeatedRow(
  input: ImportInput,
  today: string,
  known: DuplicateRow['row'],
): Promise<{ row: SearchRow; lines: [number, number]; detailed: boolean } | null> {
  let reader: RowReader | null = null;
  const seen = new Map<string, number>();
  for await (const batch of openCsv(input.file)) {
    for (const record of batch) {
      if (reader === null) {
        reader = new RowReader(record, { today, provisionalFrom: input.provisionalFrom });
        continue;
      }
      const row = reader.read(record);
      const key = rowKey(row, reader.detailed);
      if (known && key !== rowKey(known, reader.detailed)) continue;
      const first = seen.get(key);
      if (first !== undefined) return { row, lines: [first, row.line], detailed: reader.detailed };
      seen.set(key, row.line);
    }
  }
  return null;
}

/**
 * search_data's rows for `days` from a detailed file's rows: the sums per day and page, position
 * weighted by impressions. Replaces what search_data had for those days.
 */
async function sumPages(trx: Knex.Transaction, workspaceId: string, days: string[]): Promise<void> {
  for (let i = 0; i < days.length; i += 100) {
    const chunk = days.slice(i, i + 100);
    const marks = chunk.map(() => '?').join(', ');
    await trx.raw(`DELETE FROM search_data WHERE workspace_id = ? AND date IN (${marks})`, [workspaceId, ...chunk]);
    await trx.raw(
      `INSERT INTO search_data (workspace_id, date, page, page_given, clicks, impressions, position, ctr)
       SELECT workspace_id, date, page, NULL, SUM(clicks), SUM(impressions),
              SUM(position * impressions) / NULLIF(SUM(CASE WHEN position IS NULL THEN 0 ELSE impressions END), 0),
              CASE WHEN SUM(impressions) > 0 THEN SUM(clicks) * 1.0 / SUM(impressions) END
         FROM search_performance WHERE workspace_id = ? AND date IN (${marks})
        GROUP BY workspace_id, date, page`,
      [workspaceId, ...chunk],
    );
  }
}

async function writeDays(trx: Knex.Transaction, workspaceId: string, days: Map<string, DayStats>): Promise<void> {
  const importedAt = nowMs();
  const all = [...days.entries()].map(([date, d]) => ({
    workspace_id: workspaceId,
    date,
    row_count: d.rows,
    clicks: d.clicks,
    impressions: d.impressions,
    provisional: d.provisional,
    imported_at: importedAt,
  }));
  for (let i = 0; i < all.length; i += 500) {
    await trx('search_data_days').insert(all.slice(i, i + 500)).onConflict(['workspace_id', 'date']).merge();
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL: COPY in text format, in runs between the deletes of replaced days.

/** Where a file's rows go: search_data (per day and page) or search_performance (detailed). */
interface Target {
  table: 'search_data' | 'search_performance';
  columns: string[];
  /** The row as a line of COPY's text format (workspace id first). */
  copyLine(workspaceId: string, r: SearchRow): string;
  /** The row's values in `columns` order. */
  values(workspaceId: string, r: SearchRow): unknown[];
}

const PAGE_TARGET: Target = {
  table: 'search_data',
  columns: ['workspace_id', 'date', 'page', 'page_given', 'clicks', 'impressions', 'position', 'ctr'],
  copyLine: (ws, r) =>
    `${ws}\t${r.date}\t${copyText(r.page)}\t${r.pageGiven === null ? '\\N' : copyText(r.pageGiven)}\t${r.clicks}\t${r.impressions}\t${r.position ?? '\\N'}\t${r.ctr ?? '\\N'}\n`,
  values: (ws, r) => [ws, r.date, r.page, r.pageGiven, r.clicks, r.impressions, r.position, r.ctr],
};

const DETAIL_TARGET: Target = {
  table: 'search_performance',
  columns: ['workspace_id', 'date', 'page', 'query', 'country', 'device', 'clicks', 'impressions', 'position'],
  copyLine: (ws, r) =>
    `${ws}\t${r.date}\t${copyText(r.page)}\t${copyText(r.query)}\t${r.country}\t${r.device}\t${r.clicks}\t${r.impressions}\t${r.position ?? '\\N'}\n`,
  values: (ws, r) => [ws, r.date, r.page, r.query, r.country, r.device, r.clicks, r.impressions, r.position],
};

const COPY_CHUNK = 256 * 1024;
const NEEDS_ESCAPE = /[\\\t\n\r]/;

function copyText(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return s;
  return s.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

async function pgSink(trx: Knex.Transaction, workspaceId: string, target: Target): Promise<Sink> {
  const copySql = `COPY ${target.table} (${target.columns.join(', ')}) FROM STDIN`;
  // The transaction's own connection (a pg Client).
  const client = await connectionOf<unknown>(trx);
  let copy: CopyIn | null = null;
  let text = '';
  const flush = async () => {
    if (text === '') return;
    copy ??= copyIn(client, copySql);
    const chunk = Buffer.from(text);
    text = '';
    await copy.write(chunk);
  };
  const endCopy = async () => {
    await flush();
    if (copy) {
      const c = copy;
      copy = null;
      await c.end();
    }
  };
  return {
    async replaceDay(date) {
      await endCopy();
      // A replaced day loses its rows in both tables: the file is that day's data now.
      await trx.raw('DELETE FROM search_data WHERE workspace_id = ? AND date = ?', [workspaceId, date]);
      await trx.raw('DELETE FROM search_performance WHERE workspace_id = ? AND date = ?', [workspaceId, date]);
    },
    add(r) {
      text += target.copyLine(workspaceId, r);
      return text.length >= COPY_CHUNK ? flush() : undefined;
    },
    finish: endCopy,
    async abort(reason) {
      text = '';
      if (copy) await copy.abort(`import abandoned: ${reason}`.slice(0, 500));
      copy = null;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// SQLite: multi-row INSERTs of BATCH rows, prepared once, straight on the connection.

interface SqliteStatement {
  run(...params: unknown[]): unknown;
}
interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}

const BATCH = 200;

function isPrimaryKeyViolation(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

async function sqliteSink(trx: Knex.Transaction, workspaceId: string, target: Target): Promise<Sink> {
  const conn = await connectionOf<SqliteConnection>(trx);
  const COLUMNS = target.columns.length;
  const tuple = `(${target.columns.map(() => '?').join(', ')})`;
  const insertSql = (n: number) => `INSERT INTO ${target.table} (${target.columns.join(', ')}) VALUES ${Array.from({ length: n }, () => tuple).join(', ')}`;
  const full = conn.prepare(insertSql(BATCH));
  let one: SqliteStatement | null = null;
  let params: unknown[] = [];
  let batch: SearchRow[] = [];
  const flush = () => {
    if (batch.length === 0) return;
    try {
      if (batch.length === BATCH) full.run(params);
      else conn.prepare(insertSql(batch.length)).run(params);
    } catch (err) {
      if (!isPrimaryKeyViolation(err)) throw err;
      // The statement was undone as a whole: insert its rows one by one to find the repeated one.
      one ??= conn.prepare(insertSql(1));
      for (let i = 0; i < batch.length; i++) {
        try {
          one.run(params.slice(i * COLUMNS, (i + 1) * COLUMNS));
        } catch (e) {
          if (isPrimaryKeyViolation(e)) throw new DuplicateRow(batch[i]);
          throw e;
        }
      }
      throw err;
    }
    params = [];
    batch = [];
  };
  return {
    async replaceDay(date) {
      flush();
      conn.prepare('DELETE FROM search_data WHERE workspace_id = ? AND date = ?').run(workspaceId, date);
      conn.prepare('DELETE FROM search_performance WHERE workspace_id = ? AND date = ?').run(workspaceId, date);
    },
    add(r) {
      for (const v of target.values(workspaceId, r)) params.push(v);
      batch.push(r);
      if (batch.length === BATCH) flush();
      return undefined;
    },
    async finish() {
      flush();
    },
    async abort() {
      params = [];
      batch = [];
    },
  };
}

// ---------------------------------------------------------------------------------------------
// One day from Search Console (core/search-console's sync): the day's per-page totals and its
// detailed rows replace what the workspace had for that day, in the caller's transaction.

export interface SyncedRow {
  page: string;
  query: string;
  country: string;
  device: string;
  clicks: number;
  impressions: number;
  position: number | null;
}

/** Replaces one day of a workspace's search data; returns the rows written (detailed and per-page). */
export async function replaceDay(
  trx: Knex.Transaction,
  workspaceId: string,
  day: { date: string; provisional: boolean; pages: SyncedRow[]; details: SyncedRow[] },
): Promise<number> {
  const row = (r: SyncedRow): SearchRow => ({
    line: 0,
    date: day.date,
    page: r.page,
    pageGiven: null,
    clicks: r.clicks,
    impressions: r.impressions,
    position: r.position,
    ctr: r.impressions > 0 ? r.clicks / r.impressions : null,
    provisional: day.provisional,
    query: r.query,
    country: r.country,
    device: r.device,
  });
  await trx.raw('DELETE FROM search_data WHERE workspace_id = ? AND date = ?', [workspaceId, day.date]);
  await trx.raw('DELETE FROM search_performance WHERE workspace_id = ? AND date = ?', [workspaceId, day.date]);
  const stats: DayStats = { rows: day.details.length || day.pages.length, clicks: 0, impressions: 0, provisional: day.provisional };
  for (const [target, rows] of [
    [PAGE_TARGET, day.pages],
    [DETAIL_TARGET, day.details],
  ] as const) {
    if (rows.length === 0) continue;
    const sink = isPostgres(trx) ? await pgSink(trx, workspaceId, target) : await sqliteSink(trx, workspaceId, target);
    try {
      for (const r of rows) {
        const wait = sink.add(row(r));
        if (wait) await wait;
      }
      await sink.finish();
    } catch (err) {
      await sink.abort(err instanceof Error ? err.message : String(err));
      throw err;
    }
  }
  for (const p of day.pages) {
    stats.clicks += p.clicks;
    stats.impressions += p.impressions;
  }
  await rollUp(trx, workspaceId, [day.date]);
  await writeDays(trx, workspaceId, new Map([[day.date, stats]]));
  return day.pages.length + day.details.length;
}
