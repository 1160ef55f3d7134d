// Reading a search-console CSV: the header, then one validated row per record, with the line it
// came from. Parsing is csv-parse's (streaming, RFC 4180 quoting, a UTF-8 BOM skipped); this
// file only maps columns and checks values.

import fs from 'node:fs';
import { Parser, CsvError } from 'csv-parse';
import { DomainError } from '../platform/index.ts';
import { normalizeUrl } from '../pages/index.ts';
import { isDay } from './days.ts';

export const REQUIRED_COLUMNS = ['date', 'page', 'clicks', 'impressions'] as const;
export const OPTIONAL_COLUMNS = ['position', 'ctr', 'provisional', 'query', 'country', 'device'] as const;
/** The columns that make a file detailed: its rows go to search_performance, their sums per day and page to search_data. */
export const DETAIL_COLUMNS = ['query', 'country', 'device'] as const;
/** Search Console's device values, lower case. */
export const DEVICES = ['desktop', 'mobile', 'tablet'] as const;
/** Longest query accepted. */
export const MAX_QUERY_LENGTH = 1000;
type Column = (typeof REQUIRED_COLUMNS)[number] | (typeof OPTIONAL_COLUMNS)[number];
const KNOWN = new Set<string>([...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS]);

/** Longest page URL accepted (a PostgreSQL index entry holds about 2,700 bytes). */
export const MAX_PAGE_LENGTH = 2000;
const MAX_INT = 2_147_483_647;

/**
 * A malformed file: the line (1 is the header) and column of the first problem. Nothing of the
 * file is written when one is thrown.
 */
export class SearchImportError extends DomainError {
  constructor(
    readonly line: number,
    readonly column: string | null,
    readonly problem: string,
  ) {
    super(400, 'invalid_search_data', 'Invalid search data', `line ${line}${column ? `, column ${column}` : ''}: ${problem}; nothing was imported`);
    this.name = 'SearchImportError';
  }
}

/** One row of the file, checked. */
export interface SearchRow {
  line: number;
  date: string;
  /** Normalised URL. */
  page: string;
  /** The URL as given, when normalising changed it. */
  pageGiven: string | null;
  clicks: number;
  impressions: number;
  position: number | null;
  /** 0 to 1. */
  ctr: number | null;
  provisional: boolean;
  /** The search query; '' when the file has no query column or the cell is empty (anonymized). */
  query: string;
  /** ISO 3166-1 alpha-3, lower case; '' when not given. */
  country: string;
  /** `desktop`, `mobile` or `tablet`; '' when not given. */
  device: string;
}

/**
 * A record as csv-parse gives it (its fields), with the line it ended on appended as a number
 * (see LinedParser); `lineOf` reads it.
 */
type Record = string[];
const lineOf = (record: Record): number => record[record.length - 1] as unknown as number;

/**
 * csv-parse's stream parser, each record followed by the line it ends on. csv-parse's own `info`
 * option copies its whole state object for every record and halves the throughput; its counter
 * is read here instead, at the moment the record is handed on.
 */
class LinedParser extends Parser {
  push(record: unknown, encoding?: BufferEncoding): boolean {
    if (record !== null) (record as unknown[]).push(this.info.lines);
    return super.push(record, encoding);
  }
}

/**
 * The records of a CSV file, streamed (a few MB in memory whatever the file's size), in batches:
 * whatever the parser has ready at once. Iterating record by record would cost a promise per
 * record, about 15% of an import's time.
 */
export async function* openCsv(file: string): AsyncGenerator<Record[]> {
  const parser = new LinedParser({ bom: true, skip_empty_lines: true, relax_column_count: true });
  const input = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  input.on('error', (err) => parser.destroy(err));
  input.pipe(parser);
  let failure: Error | null = null;
  let ended = false;
  let wake: (() => void) | null = null;
  const signal = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  parser.on('readable', signal);
  parser.on('end', () => {
    ended = true;
    signal();
  });
  parser.on('error', (err: Error) => {
    failure = err;
    signal();
  });
  try {
    for (;;) {
      const batch: Record[] = [];
      let record: Record | null;
      while ((record = parser.read() as Record | null) !== null) batch.push(record);
      if (batch.length > 0) yield batch;
      else if (failure) throw failure;
      else if (ended) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    input.destroy();
    parser.destroy();
  }
}

function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

/** Maps a csv-parse error (a quote out of place, ...) to the line and column it names. */
export function csvProblem(err: unknown, header: string[] | null): SearchImportError | null {
  if (!(err instanceof CsvError)) return null;
  const e = err as CsvError & { lines?: number; column?: number | string | null };
  const column = typeof e.column === 'number' ? (header?.[e.column] ?? `${e.column + 1}`) : typeof e.column === 'string' ? e.column : null;
  const reason = err.message.replace(/^[^:]*:\s*/, '').replace(/\s*at line \d+$/, '');
  return new SearchImportError(e.lines ?? 1, column, `not valid CSV (${reason})`);
}

/** Validates the rows of one file against its header. */
export class RowReader {
  readonly header: string[];
  private readonly at: { [K in Column]?: number } = {};
  private readonly width: number;
  /** Whether the file has a query, country or device column (see DETAIL_COLUMNS). */
  readonly detailed: boolean;
  private readonly dates = new Map<string, string | null>();
  private readonly pages = new Map<string, string | null>();

  /**
   * @param header the first record (its last element is the line number)
   * @param o.today days after it are refused
   * @param o.provisionalFrom days from it on are provisional
   */
  constructor(
    first: Record,
    private readonly o: { today: string; provisionalFrom?: string },
  ) {
    const line = lineOf(first);
    this.header = first.slice(0, -1).map((h) => h.trim().toLowerCase());
    this.width = this.header.length;
    this.header.forEach((name, i) => {
      if (!KNOWN.has(name)) {
        throw new SearchImportError(line, first[i].trim() || `${i + 1}`, `unknown column; the columns are ${REQUIRED_COLUMNS.join(', ')} and optionally ${OPTIONAL_COLUMNS.join(', ')}`);
      }
      if (this.at[name as Column] !== undefined) throw new SearchImportError(line, name, 'the column appears twice');
      this.at[name as Column] = i;
    });
    const missing = REQUIRED_COLUMNS.filter((c) => this.at[c] === undefined);
    if (missing.length) {
      throw new SearchImportError(line, missing[0], `missing from the header (a header of ${REQUIRED_COLUMNS.join(', ')} is required, in any order${missing.length > 1 ? `; also missing: ${missing.slice(1).join(', ')}` : ''})`);
    }
    this.detailed = DETAIL_COLUMNS.some((c) => this.at[c] !== undefined);
  }

  /** The checked row of a record; throws SearchImportError naming the line and column. */
  read(record: Record): SearchRow {
    const line = lineOf(record);
    const n = record.length - 1;
    if (n !== this.width) {
      if (n < this.width) throw new SearchImportError(line, this.header[n], `missing: the row has ${n} field${n === 1 ? '' : 's'}, the header ${this.width}`);
      throw new SearchImportError(line, `${this.width + 1}`, `the row has ${n} fields, the header only ${this.width}`);
    }
    const date = record[this.at.date!];
    let dateProblem = this.dates.get(date);
    if (dateProblem === undefined) {
      dateProblem = !isDay(date) ? `${quote(date)} is not a date (YYYY-MM-DD)` : date > this.o.today ? `${quote(date)} is in the future` : null;
      this.dates.set(date, dateProblem);
    }
    if (dateProblem !== null) throw new SearchImportError(line, 'date', dateProblem);

    const given = record[this.at.page!];
    let page = this.pages.get(given);
    if (page === undefined) {
      page = given.length > MAX_PAGE_LENGTH ? null : normalizeUrl(given);
      // Bounded: a site's pages repeat every day, a file of unique URLs must not grow it forever.
      if (this.pages.size >= 200_000) this.pages.clear();
      this.pages.set(given, page);
    }
    if (page === null) {
      const problem = given.length > MAX_PAGE_LENGTH ? `is longer than ${MAX_PAGE_LENGTH} characters` : `${quote(given)} is not an absolute http(s) URL`;
      throw new SearchImportError(line, 'page', problem);
    }

    const clicks = this.count(record, 'clicks', line);
    const impressions = this.count(record, 'impressions', line);
    const position = this.at.position === undefined ? null : this.position(record[this.at.position], line);
    const ctr = this.at.ctr === undefined ? null : this.ctr(record[this.at.ctr], line);
    let provisional = this.o.provisionalFrom !== undefined && date >= this.o.provisionalFrom;
    if (this.at.provisional !== undefined) provisional = this.flag(record[this.at.provisional], line) || provisional;
    const query = this.at.query === undefined ? '' : this.query(record[this.at.query], line);
    const country = this.at.country === undefined ? '' : this.country(record[this.at.country], line);
    const device = this.at.device === undefined ? '' : this.device(record[this.at.device], line);
    return { line, date, page, pageGiven: page === given ? null : given, clicks, impressions, position, ctr, provisional, query, country, device };
  }

  private query(raw: string, line: number): string {
    if (raw.length > MAX_QUERY_LENGTH) throw new SearchImportError(line, 'query', `is longer than ${MAX_QUERY_LENGTH} characters`);
    return raw;
  }

  private country(raw: string, line: number): string {
    const v = raw.trim().toLowerCase();
    if (v !== '' && !/^[a-z]{3}$/.test(v)) throw new SearchImportError(line, 'country', `${quote(raw)} is not an ISO 3166-1 alpha-3 country code (such as usa or deu)`);
    return v;
  }

  private device(raw: string, line: number): string {
    const v = raw.trim().toLowerCase();
    if (v !== '' && !(DEVICES as readonly string[]).includes(v)) throw new SearchImportError(line, 'device', `${quote(raw)} is not desktop, mobile or tablet`);
    return v;
  }

  private count(record: Record, column: 'clicks' | 'impressions', line: number): number {
    const raw = record[this.at[column]!];
    // Digits only, read by hand: the hottest check of the import (a regex and Number() cost twice as much).
    let n = raw.length > 0 ? 0 : -1;
    for (let i = 0; i < raw.length; i++) {
      const c = raw.charCodeAt(i) - 48;
      if (c < 0 || c > 9) {
        n = -1;
        break;
      }
      n = n * 10 + c;
    }
    if (n < 0) throw new SearchImportError(line, column, `${quote(raw)} is not a non-negative integer`);
    if (n > MAX_INT) throw new SearchImportError(line, column, `${quote(raw)} is too large (at most ${MAX_INT})`);
    return n;
  }

  private position(raw: string, line: number): number | null {
    if (raw === '') return null;
    const n = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN;
    if (!(n > 0) || n > 1e6) throw new SearchImportError(line, 'position', `${quote(raw)} is not a positive number`);
    return n;
  }

  private ctr(raw: string, line: number): number | null {
    if (raw === '') return null;
    const percent = raw.endsWith('%');
    const digits = percent ? raw.slice(0, -1).trim() : raw;
    let n = /^\d+(\.\d+)?$/.test(digits) ? Number(digits) : NaN;
    if (percent) n /= 100;
    if (!(n >= 0 && n <= 1)) throw new SearchImportError(line, 'ctr', `${quote(raw)} is not a ratio from 0 to 1 (or a percentage up to 100%)`);
    return n;
  }

  private flag(raw: string, line: number): boolean {
    const v = raw.trim().toLowerCase();
    if (v === '' || v === 'false' || v === '0' || v === 'no') return false;
    if (v === 'true' || v === '1' || v === 'yes') return true;
    throw new SearchImportError(line, 'provisional', `${quote(raw)} is not true or false`);
  }
}
