import fs from 'node:fs';
import { importSearchData, isDay, type ImportResult } from '../../core/search-data/index.ts';
import { defineCommand, lines, optional, required, uuid, UsageError } from '../command.ts';

const fmt = (n: number) => n.toLocaleString('en-US');

interface Input {
  workspaceId: string;
  file: string;
  provisionalFrom?: string;
  /** Progress on stderr: only when it is a terminal. */
  progress: boolean;
}

/** `\r`-rewritten progress line on stderr, at most every 250 ms. */
function progressReporter(): { update(rows: number): void; done(): void } {
  const started = performance.now();
  let last = 0;
  let shown = false;
  return {
    update(rows) {
      const now = performance.now();
      if (now - last < 250) return;
      last = now;
      shown = true;
      const rate = rows / ((now - started) / 1000);
      process.stderr.write(`\r\x1b[K  ${fmt(rows)} rows read, ${fmt(Math.round(rate))} rows/s`);
    },
    done() {
      if (shown) process.stderr.write('\r\x1b[K');
    },
  };
}

export default defineCommand<Input, ImportResult>({
  name: 'search import',
  summary: 'import daily search-console data (CSV) for a workspace',
  help: `Usage: npm run admin -- search import --workspace W --file F.csv [--provisional-from DATE] [--json]

Imports a search console's export per day and page: a CSV file with a header line and the
columns date (YYYY-MM-DD), page (the absolute URL), clicks and impressions, in any order, and
optionally position, ctr (0 to 1, or a percentage such as 3.2%) and provisional (true/false).
With a query, country (ISO 3166-1 alpha-3, such as usa) or device (desktop, mobile, tablet)
column the file is detailed: one row per day, page, query, country and device, and the per-page
totals are their sums. The file is streamed, so any size works.

Idempotent: every day in the file replaces that day's data for the workspace; other days stay.
A malformed row stops the import with its line and column, and nothing is written. Two rows for
the same date and page (in a detailed file: date, page, query, country and device) are malformed. Data is kept 16 months.

  --workspace W            workspace id (UUID)
  --file F.csv             the CSV file
  --provisional-from DATE  days from DATE (YYYY-MM-DD) on are provisional: search consoles still
                           revise them, so a deploy's impact leaves them out until they are
                           imported again without the flag (a "provisional" column does the
                           same per row)

On a terminal, progress (rows per second) is shown on stderr while it runs.
--json prints {rows}.`,
  options: {
    workspace: { type: 'string' },
    file: { type: 'string' },
    'provisional-from': { type: 'string' },
  },
  parse(values) {
    const workspaceId = uuid('workspace', required(values, 'workspace'));
    const file = required(values, 'file');
    const provisionalFrom = optional(values, 'provisional-from');
    if (provisionalFrom !== undefined && !isDay(provisionalFrom)) throw new UsageError(`--provisional-from must be a date (YYYY-MM-DD), got "${provisionalFrom}"`);
    if (!fs.existsSync(file)) throw new UsageError(`--file: no such file "${file}"`);
    return { workspaceId, file, provisionalFrom, progress: process.stderr.isTTY === true };
  },
  async run(db, input) {
    const progress = input.progress ? progressReporter() : null;
    try {
      return await importSearchData(db, { workspaceId: input.workspaceId, file: input.file, provisionalFrom: input.provisionalFrom, onProgress: progress?.update });
    } finally {
      progress?.done();
    }
  },
  json: (r) => ({ rows: r.rows }),
  text(r) {
    const span = r.firstDay ? (r.firstDay === r.lastDay ? r.firstDay : `${r.firstDay} to ${r.lastDay}`) : '-';
    return `Imported ${fmt(r.rows)} rows.\n\n${lines([
      ['rows', fmt(r.rows)],
      ['days', `${fmt(r.days)} (${span}; ${fmt(r.replacedDays)} replaced)`],
      ['provisional days', fmt(r.provisionalDays)],
      ['pages', `${fmt(r.pages)}${r.pagesCapped ? '+' : ''}`],
      ['seconds', r.seconds.toFixed(1)],
      ['rows/s', fmt(Math.round(r.rows / Math.max(r.seconds, 0.001)))],
    ])}`;
  },
});
