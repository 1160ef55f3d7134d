// `search import`: a search-console CSV (date, page, clicks, impressions, optional position, ctr,
// provisional) into search_data and search_data_days, in one transaction.
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

/** Two rows for one date and page: found by the primary key, named by reading the file again. */
class DuplicateRow extends Error {
  constructor(
    readonly date: string,
    readonly page: string,
  ) {
    super(`duplicate row for ${date} ${page}`);
  }
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

    const sink = isPostgres(trx) ? await pgSink(trx, input.workspaceId) : await sqliteSink(trx, input.workspaceId);
    const days = new Map<string, DayStats>();
    const pages = new Set<string>();
    let reader: RowReader | null = null;
    let rows = 0;
    try {
      for await (const batch of openCsv(input.file)) {
        for (const record of batch) {
          if (reader === null) {
            reader = new RowReader(record, { today, provisionalFrom: input.provisionalFrom });
            continue;
          }
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
      if (reader === null) throw new SearchImportError(1, null, `the file is empty: a header line of ${['date', 'page', 'clicks', 'impressions'].join(', ')} is expected`);
      await sink.finish();
    } catch (err) {
      await sink.abort(err instanceof Error ? err.message : String(err));
      throw await explain(err, input, today, reader?.header ?? null);
    }

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
    const lines = await linesOf(input, today, dup.date, dup.page);
    const second = lines[1] ?? lines[0] ?? 1;
    const first = lines.length > 1 ? ` (the first is line ${lines[0]})` : '';
    return new SearchImportError(second, 'page', `a second row for ${dup.date} and ${dup.page}${first}`);
  }
  const code = (err as { code?: string }).code;
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') {
    return new SearchImportError(1, null, `cannot read ${input.file} (${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : 'a directory'})`);
  }
  return err;
}

/** PostgreSQL's unique violation on search_data's key names the date and page. */
function duplicateFromPg(err: unknown): DuplicateRow | null {
  const e = err as { code?: string; detail?: string; table?: string };
  if (e.code !== '23505' || e.table !== 'search_data' || !e.detail) return null;
  const m = /^Key \(workspace_id, date, page\)=\([0-9a-f-]{36}, (\d{4}-\d{2}-\d{2}), ([\s\S]*)\) already exists\.$/.exec(e.detail);
  return m ? new DuplicateRow(m[1], m[2]) : null;
}

/** The lines of the file holding `date` and `page` (the first two). */
async function linesOf(input: ImportInput, today: string, date: string, page: string): Promise<number[]> {
  const lines: number[] = [];
  let reader: RowReader | null = null;
  for await (const batch of openCsv(input.file)) {
    for (const record of batch) {
      if (reader === null) {
        reader = new RowReader(record, { today, provisionalFrom: input.provisionalFrom });
        continue;
      }
      const row = reader.read(record);
      if (row.date === date && row.page === page) {
        lines.push(row.line);
        if (lines.length === 2) return lines;
      }
    }
  }
  return lines;
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

const COPY_SQL = 'COPY search_data (workspace_id, date, page, page_given, clicks, impressions, position, ctr) FROM STDIN';
const COPY_CHUNK = 256 * 1024;
const NEEDS_ESCAPE = /[\\\t\n\r]/;

function copyText(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return s;
  return s.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

async function pgSink(trx: Knex.Transaction, workspaceId: string): Promise<Sink> {
  // The transaction's own connection (a pg Client).
  const client = await connectionOf<unknown>(trx);
  let copy: CopyIn | null = null;
  let text = '';
  const flush = async () => {
    if (text === '') return;
    copy ??= copyIn(client, COPY_SQL);
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
      await trx.raw('DELETE FROM search_data WHERE workspace_id = ? AND date = ?', [workspaceId, date]);
    },
    add(r) {
      text += `${workspaceId}\t${r.date}\t${copyText(r.page)}\t${r.pageGiven === null ? '\\N' : copyText(r.pageGiven)}\t${r.clicks}\t${r.impressions}\t${r.position ?? '\\N'}\t${r.ctr ?? '\\N'}\n`;
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
const COLUMNS = 8;

function isPrimaryKeyViolation(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

async function sqliteSink(trx: Knex.Transaction, workspaceId: string): Promise<Sink> {
  const conn = await connectionOf<SqliteConnection>(trx);
  const insertSql = (n: number) =>
    `INSERT INTO search_data (workspace_id, date, page, page_given, clicks, impressions, position, ctr) VALUES ${Array.from({ length: n }, () => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`;
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
          if (isPrimaryKeyViolation(e)) throw new DuplicateRow(batch[i].date, batch[i].page);
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
    },
    add(r) {
      params.push(workspaceId, r.date, r.page, r.pageGiven, r.clicks, r.impressions, r.position, r.ctr);
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
