// GET /v1/search-performance over data imported by the operator CLI: detailed files (query,
// country, device) and old-style ones (date, page) side by side; totals, the previous period,
// filters, every dimension, cursors; the per-page totals impact reads, summed from detailed rows;
// and the bad input of both (unknown dimension, a period over 16 months, a bad cursor, a
// detailed file with a bad line: named by line, nothing imported).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { main } from '../admin/admin.ts';
import { addDays, dayOf } from '../core/search-data/index.ts';
import { nowMs } from '../core/platform/index.ts';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';

after(dropCreatedDatabases);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-search-performance-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let fileCounter = 0;
function csvFile(lines: string[]): string {
  const file = path.join(dir, `f${++fileCounter}.csv`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const ago = (n: number) => addDays(dayOf(nowMs()), -n);
const SITE = 'https://www.example.com';

/** A detailed row: [daysAgo, path, query, country, device, clicks, impressions, position]. */
type Detail = [number, string, string, string, string, number, number, number];

// Two weeks of data: days 20..14 ago (the previous period) and 13..7 ago (the period).
const DETAIL: Detail[] = [];
for (let n = 20; n >= 7; n--) {
  const recent = n <= 13;
  DETAIL.push([n, '/a', 'alpha', 'usa', 'mobile', recent ? 10 : 5, 100, 2]);
  DETAIL.push([n, '/a', 'alpha', 'deu', 'desktop', recent ? 4 : 4, 40, 4]);
  DETAIL.push([n, '/b', 'beta', 'usa', 'desktop', recent ? 3 : 6, 60, 6]);
  DETAIL.push([n, '/b', 'alpha, "quoted"', 'usa', 'tablet', 1, 10, 8]);
}

for (const engine of engines()) {
  describe(`search performance (${engine})`, () => {
    let api: TestApi;
    let owner: Awaited<ReturnType<TestApi['owner']>>;

    async function importFile(workspaceId: string, file: string, ...extra: string[]): Promise<{ code: number; out: string; err: string }> {
      let out = '';
      let err = '';
      const code = await main(['search', 'import', '--workspace', workspaceId, '--file', file, ...extra, '--json'], { ...process.env, DATABASE_URL: api.dbUrl }, {
        out: (t) => (out += `${t}\n`),
        err: (t) => (err += `${t}\n`),
      });
      return { code, out, err };
    }

    const perf = (query: Record<string, string | number | undefined>, key = owner.apiKey) =>
      api.call('GET', '/v1/search-performance', { key, query: { workspace_id: owner.workspaceId, ...query } });

    before(async () => {
      api = await TestApi.start(engine);
      owner = await api.owner();
      const file = csvFile([
        'date,page,query,country,device,clicks,impressions,position',
        ...DETAIL.map(([n, p, q, c, d, clicks, impr, pos]) => [ago(n), `${SITE}${p}`, `"${q.replaceAll('"', '""')}"`, c.toUpperCase(), d === 'mobile' ? 'MOBILE' : d, clicks, impr, pos].join(',')),
      ]);
      const r = await importFile(owner.workspaceId, file, '--provisional-from', ago(8));
      assert.equal(r.code, 0, r.err);
      assert.deepEqual(JSON.parse(r.out), { rows: DETAIL.length });
    });
    after(() => api.stop());

    it('totals, the previous period and rows by query, most clicks first', async () => {
      const res = await perf({ from: ago(13), to: ago(7), dimension: 'query', compare: 'previous' });
      assert.equal(res.status, 200, res.text);
      const b = res.body;
      assert.deepEqual(b.period, { from: ago(13), to: ago(7) });
      assert.deepEqual(b.comparePeriod, { from: ago(20), to: ago(14) });
      assert.deepEqual([b.totals.clicks, b.totals.impressions], [7 * 18, 7 * 210]);
      assert.deepEqual([b.compareTotals.clicks, b.compareTotals.impressions], [7 * 16, 7 * 210]);
      assert.equal(b.totals.ctr, (7 * 18) / (7 * 210));
      // Impression-weighted: (100*2 + 40*4 + 60*6 + 10*8) / 210.
      assert.ok(Math.abs(b.totals.position - 800 / 210) < 1e-9, String(b.totals.position));
      assert.deepEqual(
        b.data.map((r: { key: string; clicks: number; impressions: number }) => [r.key, r.clicks, r.impressions]),
        [
          ['alpha', 7 * 14, 7 * 140],
          ['beta', 7 * 3, 7 * 60],
          ['alpha, "quoted"', 7, 70],
        ],
      );
      assert.equal(b.provisionalFrom, ago(8), 'the days imported with --provisional-from are named');
      assert.equal(b.meta.next_cursor, null);
    });

    it('each dimension, filters by page, query, country and device, and cursors through the rows', async () => {
      const by = async (dimension: string, extra: Record<string, string> = {}) => {
        const res = await perf({ from: ago(13), to: ago(7), dimension, ...extra });
        assert.equal(res.status, 200, res.text);
        return res.body.data.map((r: { key: string; clicks: number }) => [r.key, r.clicks]);
      };
      assert.deepEqual(await by('country'), [['usa', 7 * 14], ['deu', 7 * 4]]);
      assert.deepEqual(await by('device'), [['mobile', 70], ['desktop', 49], ['tablet', 7]]);
      assert.deepEqual(await by('page'), [[`${SITE}/a`, 98], [`${SITE}/b`, 28]]);
      assert.deepEqual(await by('page', { country: 'USA', device: 'desktop' }), [[`${SITE}/b`, 21]]);
      assert.deepEqual(await by('device', { query: 'alpha', page: 'https://WWW.example.com/a' }), [['mobile', 70], ['desktop', 28]]);
      const days = await by('date');
      assert.deepEqual(days.map((d: [string, number]) => d[0]), [13, 12, 11, 10, 9, 8, 7].map(ago));
      assert.ok(days.every((d: [string, number]) => d[1] === 18));

      // Two rows a page, by clicks then key; by date, oldest first.
      for (const [dimension, expected] of [
        ['device', ['mobile', 'desktop', 'tablet']],
        ['date', [13, 12, 11, 10, 9, 8, 7].map(ago)],
      ] as const) {
        const keys: string[] = [];
        let cursor: string | undefined;
        for (let i = 0; i < 10; i++) {
          const res = await perf({ from: ago(13), to: ago(7), dimension, limit: 2, cursor });
          assert.equal(res.status, 200, res.text);
          keys.push(...res.body.data.map((r: { key: string }) => r.key));
          cursor = res.body.meta.next_cursor ?? undefined;
          if (!cursor) break;
        }
        assert.deepEqual(keys, expected);
      }
    });

    it('every dimension under country, device and query filters answers the sums of the detailed rows', async () => {
      // Each filter set picks its own read path (the country x device cube, the query's rows, the
      // detailed rows): each answer must equal the sums over DETAIL computed here.
      type Sum = { clicks: number; impressions: number; pw: number };
      const sumOf = (rows: Detail[]): Sum => rows.reduce((a, r) => ({ clicks: a.clicks + r[5], impressions: a.impressions + r[6], pw: a.pw + r[6] * r[7] }), { clicks: 0, impressions: 0, pw: 0 });
      const close = (got: { clicks: number; impressions: number; position: number | null }, want: Sum, what: string) => {
        assert.deepEqual([got.clicks, got.impressions], [want.clicks, want.impressions], what);
        if (want.impressions === 0) assert.equal(got.position, null, what);
        else assert.ok(Math.abs((got.position ?? NaN) - want.pw / want.impressions) < 1e-6, `${what}: position ${got.position}`);
      };
      const keyOf: Record<string, (r: Detail) => string> = {
        date: (r) => ago(r[0]),
        page: (r) => `${SITE}${r[1]}`,
        query: (r) => r[2],
        country: (r) => r[3],
        device: (r) => r[4],
      };
      const filters: Array<Record<string, string>> = [{ country: 'usa' }, { device: 'desktop' }, { country: 'USA', device: 'mobile' }, { query: 'alpha' }, { query: 'alpha', device: 'desktop' }];
      for (const filter of filters) {
        const keep = (r: Detail) =>
          (filter.country === undefined || r[3] === filter.country.toLowerCase()) && (filter.device === undefined || r[4] === filter.device) && (filter.query === undefined || r[2] === filter.query);
        const period = DETAIL.filter((r) => r[0] <= 13 && keep(r));
        const previous = DETAIL.filter((r) => r[0] >= 14 && keep(r));
        for (const dimension of Object.keys(keyOf)) {
          const what = `${dimension} ${JSON.stringify(filter)}`;
          const res = await perf({ from: ago(13), to: ago(7), dimension, compare: 'previous', ...filter });
          assert.equal(res.status, 200, res.text);
          close(res.body.totals, sumOf(period), `${what}: totals`);
          close(res.body.compareTotals, sumOf(previous), `${what}: compared totals`);
          const groups = new Map<string, Detail[]>();
          for (const r of period) groups.set(keyOf[dimension](r), [...(groups.get(keyOf[dimension](r)) ?? []), r]);
          const data = res.body.data as Array<{ key: string; clicks: number; impressions: number; position: number | null }>;
          assert.deepEqual(data.map((d) => d.key).sort(), [...groups.keys()].sort(), `${what}: keys`);
          for (const d of data) close(d, sumOf(groups.get(d.key)!), `${what}: ${d.key}`);
          if (dimension !== 'date') assert.ok(data.every((d, i) => i === 0 || data[i - 1].clicks >= d.clicks), `${what}: most clicks first`);
        }
      }
    });

    it('the per-page totals are the sums of the detailed rows; old-style files still import beside them', async () => {
      const day = await perf({ from: ago(7), to: ago(7), dimension: 'page' });
      assert.deepEqual(
        day.body.data.map((r: { key: string; clicks: number; impressions: number }) => [r.key, r.clicks, r.impressions]),
        [
          [`${SITE}/a`, 14, 140],
          [`${SITE}/b`, 4, 70],
        ],
      );
      const old = await api.owner();
      const file = csvFile(['date,page,clicks,impressions', `${ago(3)},${SITE}/x,5,50`, `${ago(2)},${SITE}/x,7,70`]);
      const r = await importFile(old.workspaceId, file);
      assert.equal(r.code, 0, r.err);
      const res = await perf({ workspace_id: old.workspaceId, from: ago(3), to: ago(2), dimension: 'date' }, old.apiKey);
      assert.deepEqual(res.body.data.map((x: { key: string; clicks: number }) => [x.key, x.clicks]), [[ago(3), 5], [ago(2), 7]]);
      assert.equal(res.body.provisionalFrom, null);
      // Days imported without detail have no queries: a by-query request finds none of them.
      const q = await perf({ workspace_id: old.workspaceId, from: ago(3), to: ago(2), dimension: 'query' }, old.apiKey);
      assert.deepEqual([q.body.data, q.body.totals.clicks], [[], 0]);
    });

    it('bad input is a 400 naming the parameter: unknown dimension, a period over 16 months, to before from, a bad cursor', async () => {
      const cases: Array<[Record<string, string | number>, string]> = [
        [{ from: ago(10), to: ago(3), dimension: 'browser' }, '/dimension'],
        [{ from: addDays(ago(3), -487), to: ago(3) }, '/to'],
        [{ from: ago(3), to: ago(4) }, '/to'],
        [{ from: ago(10), to: ago(3), cursor: 'bm90LWEtY3Vyc29y' }, '/cursor'],
        [{ from: ago(10), to: ago(3), country: 'us' }, '/country'],
        [{ from: '2026-02-30', to: ago(3) }, '/from'],
      ];
      for (const [query, pointer] of cases) {
        const res = await perf(query);
        assert.equal(res.status, 400, `${JSON.stringify(query)}: ${res.text}`);
        assert.equal(res.body.code, 'validation_failed');
        assert.ok(
          res.body.errors.some((e: { in: string; path: string }) => e.in === 'query' && e.path === pointer),
          `${JSON.stringify(query)} names ${pointer}: ${res.text}`,
        );
      }
      // 487 days exactly is allowed.
      assert.equal((await perf({ from: addDays(ago(3), -486), to: ago(3) })).status, 200);
      // Another account's workspace is 404, never a leak.
      const other = await api.owner();
      assert.equal((await perf({ from: ago(10), to: ago(3) }, other.apiKey)).status, 404);
    });

    it('a detailed file with a bad line names the line and imports nothing', async () => {
      const before = (await perf({ from: ago(20), to: ago(7), dimension: 'query' })).body;
      const good = `${ago(7)},${SITE}/a,alpha,usa,mobile,1,2`;
      const cases: Array<[string[], RegExp]> = [
        [['date,page,query,country,device,clicks,impressions', good, `${ago(7)},${SITE}/c,gamma,united states,mobile,1,2`], /line 3, column country: "united states" is not an ISO 3166-1 alpha-3 country code/],
        [['date,page,query,country,device,clicks,impressions', good, `${ago(7)},${SITE}/c,gamma,usa,watch,1,2`], /line 3, column device: "watch" is not desktop, mobile or tablet/],
        [['date,page,query,country,device,clicks,impressions', good, `${ago(7)},${SITE}/c,gamma,usa,mobile,-1,2`], /line 3, column clicks: "-1" is not a non-negative integer/],
        [['date,page,query,country,device,clicks,impressions', good, `${ago(6)},${SITE}/c,gamma,usa,mobile,1,2`, good], /line 4, column query: a second row for .* \(the first is line 2\); nothing was imported/],
        [['date,page,query,colour,clicks,impressions', good], /line 1, column colour: unknown column/],
        [['date,page,query,country,device,clicks,impressions', `2026-13-01,${SITE}/a,alpha,usa,mobile,1,2`], /line 2, column date: "2026-13-01" is not a date/],
      ];
      for (const [lines, message] of cases) {
        const r = await importFile(owner.workspaceId, csvFile(lines));
        assert.equal(r.code, 1, r.out);
        assert.match(r.err, message);
        assert.match(r.err, /nothing was imported/);
      }
      assert.deepEqual((await perf({ from: ago(20), to: ago(7), dimension: 'query' })).body, before);
    });
  });
}
