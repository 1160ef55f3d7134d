// npm run admin -- search import: the CSV a search console exports per day and page, streamed
// into search_data (COPY on PostgreSQL, multi-row inserts on SQLite). Through the CLI's `main`
// (and once as a real process): idempotent re-imports, provisional days, malformed files named by
// line and column with nothing written, duplicates, retention and workspace deletion.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { applyRetention, DAY_MS, type Db } from '../core/db/index.ts';
import { createUser } from '../core/access/index.ts';
import { createWorkspace, deleteWorkspace } from '../core/workspaces/index.ts';
import { addDays, dayOf, searchDataRetention } from '../core/search-data/index.ts';
import { nowMs } from '../core/platform/index.ts';
import { main } from '../admin/admin.ts';
import { engines, freshDb, dropCreatedDatabases } from './support/databases.ts';
import { root } from './support/processes.ts';

after(dropCreatedDatabases);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-search-import-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

let fileCounter = 0;
/** Writes a CSV file (lines joined with \n, a final newline) and returns its path. */
function csvFile(lines: string[], opts: { bom?: boolean; eol?: string } = {}): string {
  const file = path.join(dir, `f${++fileCounter}.csv`);
  fs.writeFileSync(file, (opts.bom ? '\uFEFF' : '') + lines.join(opts.eol ?? '\n') + (opts.eol ?? '\n'));
  return file;
}

/** Today (UTC) minus n days. */
const ago = (n: number) => addDays(dayOf(nowMs()), -n);

interface Row {
  workspace_id: string;
  date: string;
  page: string;
  page_given: string | null;
  clicks: number;
  impressions: number;
  position: number | null;
  ctr: number | null;
}

for (const engine of engines()) {
  describe(`search import (${engine})`, () => {
    let db: Db;
    let url: string;
    let owner: { userId: string; accountId: string };

    before(async () => {
      ({ db, url } = await freshDb(engine));
      owner = await createUser(db, `search-import-${crypto.randomUUID()}@example.com`);
    });
    after(async () => {
      await db.destroy();
    });

    const workspace = async (): Promise<string> =>
      (await createWorkspace(db, { accountId: owner.accountId, userId: owner.userId, input: { name: `Search ${crypto.randomUUID()}`, website: 'https://www.example.com' } })).id;

    async function admin(...args: string[]): Promise<{ code: number; out: string; err: string }> {
      let out = '';
      let err = '';
      const code = await main(args, { ...process.env, DATABASE_URL: url }, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`) });
      return { code, out, err };
    }

    async function importJson(workspaceId: string, file: string, ...extra: string[]): Promise<{ rows: number }> {
      const r = await admin('search', 'import', '--workspace', workspaceId, '--file', file, ...extra, '--json');
      assert.equal(r.code, 0, r.err);
      assert.equal(r.err, '');
      const body = JSON.parse(r.out);
      assert.deepEqual(Object.keys(body), ['rows'], 'docs/api.md#operator-cli: --json prints exactly {rows}');
      return body;
    }

    /** Every row and day of a workspace, in key order, numbers as numbers (a snapshot to compare). */
    async function snapshot(workspaceId: string): Promise<{ rows: Row[]; days: Array<Record<string, unknown>> }> {
      const rows = ((await db('search_data').where({ workspace_id: workspaceId }).orderBy(['date', 'page'])) as Row[]).map((r) => ({
        ...r,
        date: String(r.date),
        clicks: Number(r.clicks),
        impressions: Number(r.impressions),
        position: r.position === null ? null : Number(r.position),
        ctr: r.ctr === null ? null : Number(r.ctr),
      }));
      const days = ((await db('search_data_days').where({ workspace_id: workspaceId }).orderBy('date')) as Array<Record<string, unknown>>).map((d) => ({
        date: String(d.date),
        row_count: Number(d.row_count),
        clicks: Number(d.clicks),
        impressions: Number(d.impressions),
        provisional: Boolean(d.provisional),
      }));
      return { rows, days };
    }

    test('imports a file with any column order, optional columns, a BOM, quoting and CRLF; pages normalised, the given URL kept', async () => {
      const ws = await workspace();
      const [d1, d2] = [ago(10), ago(9)];
      const file = csvFile(
        [
          'Impressions,CTR,Page,Position,Date,Clicks',
          `100,10%,https://www.example.com/a,3.25,${d1},10`,
          `50,,"https://WWW.Example.com/b?q=1,2",,${d1},5`,
          `70,0.1,https://www.example.com/a#top-of-page,2,${d2},7`,
          `0,0,https://www.example.com/caf\u00e9,12.5,${d2},0`,
        ],
        { bom: true, eol: '\r\n' },
      );
      assert.deepEqual(await importJson(ws, file), { rows: 4 });
      const snap = await snapshot(ws);
      assert.deepEqual(
        snap.rows.map((r) => [r.date, r.page, r.page_given, r.clicks, r.impressions, r.position, r.ctr === null ? null : Math.round(r.ctr * 1000) / 1000]),
        [
          [d1, 'https://www.example.com/a', null, 10, 100, 3.25, 0.1],
          [d1, 'https://www.example.com/b?q=1,2', 'https://WWW.Example.com/b?q=1,2', 5, 50, null, null],
          [d2, 'https://www.example.com/a', 'https://www.example.com/a#top-of-page', 7, 70, 2, 0.1],
          [d2, 'https://www.example.com/caf%C3%A9', 'https://www.example.com/caf\u00e9', 0, 0, 12.5, 0],
        ],
      );
      assert.deepEqual(snap.days, [
        { date: d1, row_count: 2, clicks: 15, impressions: 150, provisional: false },
        { date: d2, row_count: 2, clicks: 7, impressions: 70, provisional: false },
      ]);

      const text = await admin('search', 'import', '--workspace', ws, '--file', file);
      assert.equal(text.code, 0, text.err);
      assert.match(text.out, /^Imported 4 rows\./);
      assert.match(text.out, new RegExp(`days\\s+2 \\(${d1} to ${d2}; 2 replaced\\)`));
      assert.match(text.out, /pages\s+3\n/);
      assert.match(text.out, /provisional days\s+0/);
      assert.match(text.out, /rows\/s\s+[\d,]+/);
      assert.equal(text.err, '', 'no progress output when stderr is not a terminal');
    });

    test('re-importing is idempotent; a day in a new file replaces that day only, whatever the row order', async () => {
      const ws = await workspace();
      // 12 days x 600 pages, rows shuffled so days interleave: several COPY runs and SQLite batches,
      // and on re-import every day is replaced at its first row, wherever that is.
      const days = Array.from({ length: 12 }, (_, i) => ago(40 - i));
      const lines: string[] = [];
      let seed = 7;
      const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
      for (const d of days) for (let p = 0; p < 600; p++) lines.push(`${d},https://www.example.com/p/${p},${Math.floor(rnd() * 50)},${100 + Math.floor(rnd() * 900)}`);
      for (let i = lines.length - 1; i > 0; i--) {
        const j = Math.floor(rnd() * (i + 1));
        [lines[i], lines[j]] = [lines[j], lines[i]];
      }
      const file = csvFile(['date,page,clicks,impressions', ...lines]);
      assert.deepEqual(await importJson(ws, file), { rows: 7200 });
      const first = await snapshot(ws);
      assert.equal(first.rows.length, 7200);
      assert.equal(first.days.length, 12);
      assert.deepEqual(await importJson(ws, file), { rows: 7200 });
      assert.deepEqual(await snapshot(ws), first, 'the same file twice: the same data');

      // A new export of day 5 with fewer pages and other numbers: day 5 is that, the rest unchanged.
      const day5 = days[5];
      const again = csvFile(['page,date,clicks,impressions', `https://www.example.com/p/1,${day5},1000,2000`, `https://www.example.com/new,${day5},3,4`]);
      assert.deepEqual(await importJson(ws, again), { rows: 2 });
      const after = await snapshot(ws);
      assert.deepEqual(
        after.rows.filter((r) => r.date === day5).map((r) => [r.page, r.clicks, r.impressions]),
        [
          ['https://www.example.com/new', 3, 4],
          ['https://www.example.com/p/1', 1000, 2000],
        ],
      );
      assert.deepEqual(after.rows.filter((r) => r.date !== day5), first.rows.filter((r) => r.date !== day5));
      assert.deepEqual(after.days.find((d) => d.date === day5), { date: day5, row_count: 2, clicks: 1003, impressions: 2004, provisional: false });
      assert.equal(after.days.length, 12);
      // Per-day totals always equal the rows' sums.
      for (const d of after.days) {
        const rows = after.rows.filter((r) => r.date === d.date);
        assert.equal(d.row_count, rows.length);
        assert.equal(d.clicks, rows.reduce((s, r) => s + r.clicks, 0));
        assert.equal(d.impressions, rows.reduce((s, r) => s + r.impressions, 0));
      }
    });

    test('--provisional-from and a provisional column mark days; a later final import clears them', async () => {
      const ws = await workspace();
      const [d1, d2, d3, d4] = [ago(5), ago(4), ago(3), ago(2)];
      const rows = (extra: string) => [d1, d2, d3, d4].map((d) => `${d},https://www.example.com/,5,50${extra}`);
      await importJson(ws, csvFile(['date,page,clicks,impressions', ...rows('')]), '--provisional-from', d3);
      assert.deepEqual((await snapshot(ws)).days.map((d) => [d.date, d.provisional]), [[d1, false], [d2, false], [d3, true], [d4, true]]);

      const withColumn = csvFile(['date,page,clicks,impressions,provisional', `${d1},https://www.example.com/,5,50,false`, `${d2},https://www.example.com/,5,50,TRUE`, `${d2},https://www.example.com/x,5,50,`, `${d3},https://www.example.com/,5,50,0`, `${d4},https://www.example.com/,5,50,no`]);
      await importJson(ws, withColumn);
      // One provisional row makes its day provisional.
      assert.deepEqual((await snapshot(ws)).days.map((d) => [d.date, d.provisional]), [[d1, false], [d2, true], [d3, false], [d4, false]]);

      const r = await admin('search', 'import', '--workspace', ws, '--file', withColumn, '--provisional-from', d4);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /provisional days\s+2/);
    });

    test('a malformed row names its line and column, and nothing is written', async () => {
      const ws = await workspace();
      const d = ago(20);
      const good = (i: number, day = d) => `${day},https://www.example.com/g/${i},${i},${i * 10}`;
      // Data already there, some of it on the days the bad files name: a failed import must leave it as it was.
      await importJson(ws, csvFile(['date,page,clicks,impressions', ...Array.from({ length: 50 }, (_, i) => good(i)), good(1, ago(21))]));
      const before = await snapshot(ws);

      const manyGood = Array.from({ length: 1832 }, (_, i) => good(1000 + i, ago(22 + (i % 3))));
      const cases: Array<[string, string, RegExp]> = [
        ['late bad count', csvFile(['date,page,clicks,impressions', good(1), ...manyGood.slice(1), `${d},https://www.example.com/late,abc,5`]), /^admin search import: line 1834, column clicks: "abc" is not a non-negative integer; nothing was imported$/],
        ['negative', csvFile(['date,page,clicks,impressions', `${d},https://www.example.com/n,-1,5`]), /line 2, column clicks: "-1" is not a non-negative integer/],
        ['decimal impressions', csvFile(['date,page,clicks,impressions', `${d},https://www.example.com/n,1,2.5`]), /line 2, column impressions: "2.5" is not a non-negative integer/],
        ['too large', csvFile(['date,page,clicks,impressions', `${d},https://www.example.com/n,1,99999999999`]), /line 2, column impressions: "99999999999" is (not a non-negative integer|too large)/],
        ['bad date', csvFile(['date,page,clicks,impressions', good(1), `2026-02-30,https://www.example.com/n,1,2`]), /line 3, column date: "2026-02-30" is not a date \(YYYY-MM-DD\)/],
        ['date shape', csvFile(['date,page,clicks,impressions', `11/03/2026,https://www.example.com/n,1,2`]), /line 2, column date: "11\/03\/2026" is not a date/],
        ['future date', csvFile(['date,page,clicks,impressions', `${addDays(dayOf(nowMs()), 2)},https://www.example.com/n,1,2`]), /line 2, column date: "[\d-]+" is in the future/],
        ['relative page', csvFile(['date,page,clicks,impressions', `${d},/blog/post,1,2`]), /line 2, column page: "\/blog\/post" is not an absolute http\(s\) URL/],
        ['ftp page', csvFile(['date,page,clicks,impressions', `${d},ftp://example.com/x,1,2`]), /line 2, column page: "ftp:\/\/example.com\/x" is not an absolute http\(s\) URL/],
        ['bad ctr', csvFile(['date,page,clicks,impressions,ctr', `${d},https://www.example.com/n,1,2,150%`]), /line 2, column ctr: "150%" is not a ratio/],
        ['bad position', csvFile(['date,page,clicks,impressions,position', `${d},https://www.example.com/n,1,2,first`]), /line 2, column position: "first" is not a positive number/],
        ['bad provisional', csvFile(['date,page,clicks,impressions,provisional', `${d},https://www.example.com/n,1,2,maybe`]), /line 2, column provisional: "maybe" is not true or false/],
        ['short row', csvFile(['date,page,clicks,impressions', good(1), `${d},https://www.example.com/n,1`]), /line 3, column impressions: missing: the row has 3 fields, the header 4/],
        ['long row', csvFile(['date,page,clicks,impressions', `${d},https://www.example.com/n,1,2,3`]), /line 2, column 5: the row has 5 fields, the header only 4/],
        ['quote', csvFile(['date,page,clicks,impressions', good(1), `${d},"https://www.example.com/n,1,2`, good(2)]), /line \d+, column page: not valid CSV/],
        ['missing column', csvFile(['date,page,impressions', `${d},https://www.example.com/n,2`]), /line 1, column clicks: missing from the header/],
        ['unknown column', csvFile(['date,page,clicks,impressions,colour', `${d},https://www.example.com/n,1,2,red`]), /line 1, column colour: unknown column/],
        ['twice', csvFile(['date,page,clicks,clicks,impressions', `${d},https://www.example.com/n,1,1,2`]), /line 1, column clicks: the column appears twice/],
        ['empty file', csvFile([]), /line 1: the file is empty/],
        ['blank lines are skipped, then a bad row', csvFile(['date,page,clicks,impressions', '', good(1), '', `${d},https://www.example.com/n,x,2`]), /line 5, column clicks: "x"/],
        ['duplicate', csvFile(['date,page,clicks,impressions', good(1), good(2), good(3), `${d},https://WWW.example.com/g/2#again,9,9`]), /line 5, column page: a second row for [\d-]+ and https:\/\/www\.example\.com\/g\/2 \(the first is line 3\)/],
        ['duplicate far apart', csvFile(['date,page,clicks,impressions', good(1), ...manyGood, good(1)]), /line 1835, column page: a second row for [\d-]+ and https:\/\/www\.example\.com\/g\/1 \(the first is line 2\)/],
      ];
      for (const [label, file, message] of cases) {
        const r = await admin('search', 'import', '--workspace', ws, '--file', file, '--json');
        assert.equal(r.code, 1, `${label}: exit code; stderr: ${r.err}`);
        assert.equal(r.out, '', label);
        assert.match(r.err.trim(), message, label);
        assert.equal(r.err.trim().split('\n').length, 1, `${label}: one line`);
        assert.deepEqual(await snapshot(ws), before, `${label}: nothing written`);
      }
    });

    test('usage errors and an unknown workspace exit 1 before anything is written', async () => {
      const ws = await workspace();
      const file = csvFile(['date,page,clicks,impressions', `${ago(3)},https://www.example.com/,1,2`]);
      const cases: Array<[string[], RegExp]> = [
        [['--file', file], /--workspace is required/],
        [['--workspace', ws], /--file is required/],
        [['--workspace', 'w1', '--file', file], /--workspace must be a UUID/],
        [['--workspace', ws, '--file', path.join(dir, 'nope.csv')], /no such file/],
        [['--workspace', ws, '--file', file, '--provisional-from', '2026-13-01'], /--provisional-from must be a date \(YYYY-MM-DD\)/],
        [['--workspace', crypto.randomUUID(), '--file', file], /does not exist/],
      ];
      for (const [args, message] of cases) {
        const r = await admin('search', 'import', ...args, '--json');
        assert.equal(r.code, 1, `${args.join(' ')}: ${r.err}`);
        assert.equal(r.out, '');
        assert.match(r.err, message);
      }
      assert.equal((await snapshot(ws)).rows.length, 0);
    });

    test('as a process: exit 0, {rows} on stdout, nothing on stderr', async () => {
      const ws = await workspace();
      const file = csvFile(['date,page,clicks,impressions', `${ago(3)},https://www.example.com/,1,2`, `${ago(3)},https://www.example.com/x,3,4`]);
      const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, ['--import', 'tsx', 'admin/admin.ts', 'search', 'import', '--workspace', ws, '--file', file, '--json'], { cwd: root, env: { ...process.env, DATABASE_URL: url }, timeout: 60_000 }, (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, '{"rows":2}\n');
      assert.equal(run.stderr, '');
      const help = await admin('--help');
      assert.match(help.out, /search import\s+import daily search-console data/);
    });

    test('retention keeps 16 months; deleting a workspace deletes its search data', async () => {
      const ws = await workspace();
      const other = await workspace();
      const old = [ago(500), ago(488)];
      const kept = [ago(486), ago(30)];
      const lines = [...old, ...kept].flatMap((d) => [`${d},https://www.example.com/a,1,2`, `${d},https://www.example.com/b,3,4`]);
      await importJson(ws, csvFile(['date,page,clicks,impressions', ...lines]));
      await importJson(other, csvFile(['date,page,clicks,impressions', `${ago(600)},https://www.example.com/a,1,2`, `${ago(1)},https://www.example.com/a,1,2`]));
      // Detailed rows (query, country, device) age out with their days too.
      const detailed = await workspace();
      await importJson(detailed, csvFile(['date,page,query,country,device,clicks,impressions', `${ago(495)},https://www.example.com/a,x,usa,mobile,1,2`, `${ago(495)},https://www.example.com/a,y,usa,mobile,1,2`, `${ago(20)},https://www.example.com/a,x,usa,mobile,1,2`]));
      assert.equal(searchDataRetention.every((r) => r.maxAgeMs === 487 * DAY_MS), true);

      const results = await applyRetention(db, { now: nowMs(), rules: searchDataRetention, batchSize: 3 });
      assert.deepEqual(results, [
        { name: 'search_data', deleted: 6 },
        { name: 'search_performance', deleted: 2 },
        // The old days' rollups: 2 + 1 day totals, and the detailed day's total, detail sums, 2 queries, 1 country, 1 device.
        { name: 'search_rollups', deleted: 9 },
        // And its one country x device sum.
        { name: 'search_cube', deleted: 1 },
        { name: 'search_data_days', deleted: 4 },
      ]);
      assert.deepEqual((await db('search_performance').where({ workspace_id: detailed }).pluck('query')) as string[], ['x']);
      const snap = await snapshot(ws);
      assert.deepEqual([...new Set(snap.rows.map((r) => r.date))], kept);
      assert.deepEqual(snap.days.map((d) => d.date), kept);
      assert.deepEqual((await snapshot(other)).days.map((d) => d.date), [ago(1)]);

      await deleteWorkspace(db, ws);
      assert.deepEqual(await snapshot(ws), { rows: [], days: [] });
      await deleteWorkspace(db, detailed);
      assert.equal((await db('search_performance').where({ workspace_id: detailed }).count({ n: '*' }))[0].n, 0);
      assert.equal((await snapshot(other)).rows.length, 1);
    });
  });
}
