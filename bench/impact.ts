// npm run bench:impact
//
// Search data at scale on PostgreSQL: 2 years of daily data for 10,000 pages (7.3 million rows,
// a search console's export per day and page, about 560 MB of CSV) imported with the operator
// CLI (`search import`, a child process: csv-parse, row checks, COPY ... FROM STDIN into
// search_data), against a bare `COPY ... FROM STDIN (FORMAT csv)` of the same file into a table
// of the same shape and primary key, in the same run (the yardstick). Then the daily routine
// (the last 7 days again, replacing them), and the latency of `GET /v1/deploys/{id}` with its
// impact and findings' clicks over that data: 60 deploys spread over the two years, each with a
// finished check naming 20 pages and a finished crawl naming 30, requested in turn by autocannon
// against the real server (a child process, as server/main.ts runs it).
//
// Targets: import at least 100,000 rows/s, or at least 50% of the bare COPY's rate; p99 of the
// deploy detail under 50 ms. Writes bench/results/impact.md.
// Environment: BENCH_DAYS (730), BENCH_PAGES (10000), BENCH_PG_URL, BENCH_KEEP_CSV=1 (keep the
// generated file in the temp directory), and the harness's BENCH_DURATION / BENCH_WARMUP /
// BENCH_ROUNDS / BENCH_QUIET.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { nowMs } from '../core/platform/index.ts';
import { runSql, SiteCheck, SiteCrawl } from '../core/db/index.ts';
import { recordDeploy } from '../core/deploys/index.ts';
import type { Schemas } from '../core/contract/index.ts';
import { addDays, copyIn, dayOf } from '../core/search-data/index.ts';
import {
  ROOT,
  SETTINGS,
  Scratch,
  addWorkspace,
  compare,
  createOwner,
  fmt,
  machineLines,
  pct,
  probe,
  runBenchmark,
  startServerChild,
  table,
  waitForQuiet,
  writeReport,
  type Case,
} from './lib/harness.ts';

const DAYS = Number(process.env.BENCH_DAYS || 730);
const PAGES = Number(process.env.BENCH_PAGES || 10_000);
const DEPLOYS = 60;
const CHECK_URLS = 20;
const CRAWL_URLS = 30;
const TARGETS = { rowsPerSecond: 100_000, bareShare: 0.5, p99Ms: 50 };

/** A small deterministic generator, so every run imports the same data. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SECTIONS = ['blog', 'docs', 'products', 'guides', 'news', 'help', 'pricing', 'compare'];
const pageUrl = (i: number) => `https://www.example.com/${SECTIONS[i % SECTIONS.length]}/article-${i}-${(i * 2654435761) % 100000}`;

/** Writes the CSV a search console exports per day and page: every page every day, popular pages first. */
async function generate(file: string, days: string[], seed = 42): Promise<{ rows: number; bytes: number; seconds: number }> {
  const started = performance.now();
  const rnd = prng(seed);
  // Page popularity falls off like a power law; a day's noise multiplies it.
  const base = Array.from({ length: PAGES }, (_, i) => 3000 / Math.pow(i + 1, 0.85));
  const out = fs.createWriteStream(file);
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  await write('date,page,clicks,impressions,ctr,position\n');
  let rows = 0;
  let chunk = '';
  for (const date of days) {
    for (let i = 0; i < PAGES; i++) {
      const clicks = Math.floor(base[i] * (0.5 + rnd()));
      const impressions = clicks * (8 + Math.floor(rnd() * 40)) + 1 + Math.floor(rnd() * 200);
      chunk += `${date},${pageUrl(i)},${clicks},${impressions},${(clicks / impressions).toFixed(4)},${(1 + rnd() * 30).toFixed(1)}\n`;
      rows++;
      if (chunk.length > 1 << 20) {
        await write(chunk);
        chunk = '';
      }
    }
  }
  await write(chunk);
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return { rows, bytes: fs.statSync(file).size, seconds: (performance.now() - started) / 1000 };
}

/** The yardstick: the file as it is into a table shaped like search_data, one COPY. */
async function bareCopy(url: string, workspaceId: string, file: string): Promise<{ rows: number; seconds: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('DROP TABLE IF EXISTS search_data_bare');
    await client.query('CREATE TABLE search_data_bare (LIKE search_data INCLUDING ALL)');
    await client.query(`ALTER TABLE search_data_bare ALTER COLUMN workspace_id SET DEFAULT '${workspaceId}'`);
    await client.query('CHECKPOINT');
    const started = performance.now();
    await client.query('BEGIN');
    const copy = copyIn(client, 'COPY search_data_bare (date, page, clicks, impressions, ctr, position) FROM STDIN (FORMAT csv, HEADER true)');
    for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) await copy.write(chunk as Buffer);
    const rows = await copy.end();
    await client.query('COMMIT');
    const seconds = (performance.now() - started) / 1000;
    await client.query('DROP TABLE search_data_bare');
    await client.query('CHECKPOINT');
    return { rows, seconds };
  } finally {
    await client.end();
  }
}

interface CliImport {
  rows: number;
  /** The import's own time (its summary: transaction start to commit). */
  seconds: number;
  /** The process, start to exit (node and tsx start-up, migrations check included). */
  wallSeconds: number;
  days: string;
  output: string;
}

/** `npm run admin -- search import` as an operator runs it. */
async function cliImport(url: string, workspaceId: string, file: string, extra: string[] = []): Promise<CliImport> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'admin/admin.ts'), 'search', 'import', '--workspace', workspaceId, '--file', file, ...extra], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const wallSeconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`search import exited ${code}: ${stderr}`);
  const field = (name: string) => {
    const m = new RegExp(`^${name}\\s+(.+)$`, 'm').exec(stdout);
    if (!m) throw new Error(`no "${name}" in the summary:\n${stdout}`);
    return m[1].trim();
  };
  return { rows: Number(field('rows').replace(/,/g, '')), seconds: Number(field('seconds')), wallSeconds, days: field('days'), output: stdout.trim() };
}

function shuffledPick(rnd: () => number, n: number, count: number): number[] {
  const picked = new Set<number>();
  while (picked.size < count) picked.add(Math.floor(Math.pow(rnd(), 2) * n)); // popular pages more often
  return [...picked];
}

const scratch = new Scratch();
await runBenchmark(scratch, async () => {
  const s = await scratch.create('postgres');
  const owner = await createOwner(s.db, 'impact');
  const ws = owner.workspaceId;
  const lastDay = addDays(dayOf(nowMs()), -2);
  const days = Array.from({ length: DAYS }, (_, i) => addDays(lastDay, i - DAYS + 1));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-bench-impact-'));
  const csv = path.join(tmp, 'search-console.csv');
  try {
    console.log(`bench:impact: ${fmt(DAYS)} days x ${fmt(PAGES)} pages`);
    const gen = await generate(csv, days);
    console.log(`  generated ${fmt(gen.rows)} rows, ${fmt(gen.bytes / 2 ** 20)} MiB in ${gen.seconds.toFixed(1)} s`);
    // Read once so both imports find it in the page cache.
    for await (const _ of fs.createReadStream(csv, { highWaterMark: 1 << 22 })) void _;

    process.stdout.write('  bare COPY: ');
    const bgBare = await waitForQuiet();
    const bare = await bareCopy(s.url, ws, csv);
    console.log(`${fmt(bare.rows)} rows in ${bare.seconds.toFixed(1)} s, ${fmt(bare.rows / bare.seconds)} rows/s`);

    process.stdout.write('  search import: ');
    const bgImport = await waitForQuiet();
    const full = await cliImport(s.url, ws, csv);
    if (full.rows !== gen.rows) throw new Error(`imported ${full.rows} rows, generated ${gen.rows}`);
    const rate = full.rows / full.seconds;
    console.log(`${fmt(full.rows)} rows in ${full.seconds.toFixed(1)} s (process ${full.wallSeconds.toFixed(1)} s), ${fmt(rate)} rows/s, ${pct(rate / (bare.rows / bare.seconds))} of bare COPY`);

    // The daily routine: the last 7 days exported again (revised numbers), replacing what was there.
    const week = path.join(tmp, 'last-week.csv');
    await generate(week, days.slice(-7), 43);
    const daily = await cliImport(s.url, ws, week);
    console.log(`  re-import of the last 7 days: ${fmt(daily.rows)} rows in ${daily.seconds.toFixed(2)} s (${daily.days})`);

    // A table that has just taken millions of rows gets vacuumed and analysed by autovacuum soon
    // after; do it now, so the reads below see the state a server would see.
    const vacStart = performance.now();
    await s.db.raw('VACUUM (ANALYZE) search_data');
    await s.db.raw('VACUUM (ANALYZE) search_data_days');
    const vacuumSeconds = (performance.now() - vacStart) / 1000;
    const [{ table_mb, index_mb }] = await runSql<{ table_mb: number; index_mb: number }>(
      s.db,
      "SELECT pg_table_size('search_data') / 1048576 AS table_mb, pg_indexes_size('search_data') / 1048576 AS index_mb",
    );

    // Deploys across the two years (after the first 8 days, before the last 8), each with a
    // finished check naming CHECK_URLS pages and a finished crawl naming CRAWL_URLS. The same
    // deploys in a second workspace without search data: what the detail costs without it.
    const makeDeploys = async (workspaceId: string): Promise<string[]> => {
      const rnd = prng(7);
      const ids: string[] = [];
      for (let i = 0; i < DEPLOYS; i++) {
        const day = days[8 + Math.floor(((DAYS - 16) * (i + 0.5)) / DEPLOYS)];
        const at = `${day}T${String(Math.floor(rnd() * 24)).padStart(2, '0')}:${String(Math.floor(rnd() * 60)).padStart(2, '0')}:00.000Z`;
        const { deploy } = await recordDeploy(s.db, workspaceId, { commitSha: `abc${i.toString(16).padStart(8, '0')}`, environment: 'production', deployedAt: at }, { siteCheckDelaySeconds: 3600, crawlDelaySeconds: 3600 });
        const t = nowMs();
        const findings: Schemas['DeployFinding'][] = shuffledPick(rnd, PAGES, CHECK_URLS).map((p) => ({ kind: 'title_missing', severity: 'high', url: pageUrl(p), before: 'A title', after: null, clicks: 0, causes: [], explanation: null }));
        const crawl: Schemas['DeployCrawlFinding'][] = shuffledPick(rnd, PAGES, CRAWL_URLS).map((p) => ({ kind: 'broken_link', severity: 'high', url: pageUrl(p), details: { from: pageUrl(0), status: 404 }, causes: [], explanation: null }));
        // The scheduled check and crawl, finished (their jobs are due in an hour and never run here).
        await SiteCheck.query(s.db).where({ deploy_id: deploy.id }).patch({ state: 'finished', started_at: t, finished_at: t, pages: [], findings: { findings, issues: [] } });
        await SiteCrawl.query(s.db).where({ deploy_id: deploy.id }).patch({ state: 'finished', started_at: t, finished_at: t, pages_crawled: CRAWL_URLS, findings: { all: crawl, crawlFindings: crawl } });
        ids.push(deploy.id);
      }
      if ((await SiteCheck.query(s.db).where({ workspace_id: workspaceId, state: 'finished' }).resultSize()) !== DEPLOYS) throw new Error('every deploy should have its check');
      return ids;
    };
    const ids = await makeDeploys(ws);
    const emptyIds = await makeDeploys(await addWorkspace(s.db, owner, 'impact-empty'));

    const server = await startServerChild('app', s.url);
    try {
      const headers = { 'x-api-key': owner.apiKey };
      // Check one response against the rows themselves before measuring anything.
      const sample = (await probe(server.url, { method: 'GET', path: `/v1/deploys/${ids[10]}`, headers }, 200)) as {
        deployedAt: string;
        impact: { days: number; before: { from: string; to: string; clicks: number }; after: { from: string; to: string; clicks: number }; pages: { affected: { urls: string[]; before: { clicks: number }; after: { clicks: number } }; rest: { before: { clicks: number } } } };
        findings: Array<{ url: string; clicks: number }>;
      };
      const imp = sample.impact;
      if (!imp || imp.days !== 7 || !imp.pages) throw new Error(`expected a full impact: ${JSON.stringify(imp)}`);
      const sumSql = async (from: string, to: string, urls: string[] | null) => {
        const [r] = await runSql<{ c: number | null }>(
          s.db,
          `SELECT SUM(clicks) AS c FROM search_data WHERE workspace_id = ? AND date BETWEEN ? AND ?${urls ? ` AND page IN (${urls.map(() => '?').join(', ')})` : ''}`,
          [ws, from, to, ...(urls ?? [])],
        );
        return Number(r.c ?? 0);
      };
      const checks: Array<[string, number, number]> = [
        ['before', imp.before.clicks, await sumSql(imp.before.from, imp.before.to, null)],
        ['after', imp.after.clicks, await sumSql(imp.after.from, imp.after.to, null)],
        ['affected before', imp.pages.affected.before.clicks, await sumSql(imp.before.from, imp.before.to, imp.pages.affected.urls)],
        ['affected after', imp.pages.affected.after.clicks, await sumSql(imp.after.from, imp.after.to, imp.pages.affected.urls)],
        ['finding clicks', sample.findings[0].clicks, await sumSql(addDays(lastDay, -27), lastDay, [sample.findings[0].url])],
      ];
      for (const [what, got, want] of checks) if (got !== want) throw new Error(`${what}: the API says ${got}, the rows sum to ${want}`);
      console.log(`  deploy ${ids[10]}: impact and clicks match the rows (${imp.pages.affected.urls.length} affected pages)`);

      // The statements behind one response, as PostgreSQL runs them.
      const D = sample.deployedAt.slice(0, 10);
      const windowDays = [...Array.from({ length: 7 }, (_, i) => addDays(D, i - 7)), ...Array.from({ length: 7 }, (_, i) => addDays(D, i + 1))];
      const urls = imp.pages.affected.urls;
      const explain = async (sql: string, bindings: unknown[]) =>
        (await runSql<{ 'QUERY PLAN': string }>(s.db, `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, bindings)).map((r) => r['QUERY PLAN']).join('\n');
      const planAffected = await explain(
        `SELECT SUM(CASE WHEN date < ? THEN clicks ELSE 0 END) AS bc, SUM(CASE WHEN date > ? THEN clicks ELSE 0 END) AS ac FROM search_data WHERE workspace_id = ? AND date IN (${windowDays.map(() => '?').join(', ')}) AND page IN (${urls.map(() => '?').join(', ')})`,
        [D, D, ws, ...windowDays, ...urls],
      );
      const planWindow = await explain('SELECT SUM(clicks) FROM search_data WHERE workspace_id = ? AND date BETWEEN ? AND ?', [ws, imp.before.from, imp.before.to]);

      const target = (list: string[]) => {
        const paths = list.map((id) => `/v1/deploys/${id}`);
        return { method: 'GET' as const, path: paths[0], headers, paths };
      };
      const empty = (await probe(server.url, target(emptyIds), 200)) as { impact: unknown; findings: Array<{ clicks: number }> };
      if (empty.impact !== null || empty.findings.some((f) => f.clicks !== 0)) throw new Error('a workspace without search data has no impact and no clicks');
      console.log(`  GET /v1/deploys/{id} over ${DEPLOYS} deploys:`);
      const conns = (n: number) => `${n} connection${n > 1 ? 's' : ''}`;
      const cases: Case[] = [
        ...[1, 10, 50].map((connections) => ({ label: `with search data, ${conns(connections)}`, server, target: target(ids), connections })),
        ...[1, 10].map((connections) => ({ label: `no search data, ${conns(connections)}`, server, target: target(emptyIds), connections })),
      ];
      const results = await compare(cases);
      const judged = results[0];

      const importMet = rate >= TARGETS.rowsPerSecond || rate / (bare.rows / bare.seconds) >= TARGETS.bareShare;
      writeReport('impact.md', [
        '# bench:impact: search data import and deploy impact, on PostgreSQL',
        '',
        ...machineLines('npm run bench:impact').map((l) => (l.startsWith('- Load:') ? l.replace(`${SETTINGS.connections} connections`, '1, 10 and 50 connections (one case each)') : l)),
        `- PostgreSQL: ${(await runSql<{ server_version: string }>(s.db, 'SHOW server_version'))[0].server_version}, default settings, on the same machine.`,
        '',
        `Data: ${fmt(DAYS)} days (${days[0]} to ${lastDay}) x ${fmt(PAGES)} pages = ${fmt(gen.rows)} rows, every page every day, clicks falling off with popularity; a CSV of \`date,page,clicks,impressions,ctr,position\` (${fmt(gen.bytes / 2 ** 20)} MiB), read once into the page cache before either import. search_data afterwards: ${fmt(table_mb)} MiB of table, ${fmt(index_mb)} MiB of primary key.`,
        '',
        '## Import',
        '',
        `- **Bare COPY** (the yardstick): the file as it is, through \`COPY search_data_bare (date, page, clicks, impressions, ctr, position) FROM STDIN (FORMAT csv, HEADER true)\` in one transaction, into a table created \`LIKE search_data INCLUDING ALL\` (same columns, same primary key) with the workspace as column default. ${fmt(bare.rows)} rows in ${bare.seconds.toFixed(1)} s: **${fmt(bare.rows / bare.seconds)} rows/s**. Background load before it: ${bgBare === null ? 'n/a' : pct(bgBare)}.`,
        `- **\`search import\`**: \`npm run admin -- search import --workspace W --file F.csv\` as a child process: csv-parse streaming the file, every row checked (date, URL normalised, counts, ctr, position), COPY in text format into search_data, the per-day totals written, one transaction. ${fmt(full.rows)} rows in ${full.seconds.toFixed(1)} s by its own summary (transaction start to commit; ${full.wallSeconds.toFixed(1)} s for the whole process with node start-up and the migrations check): **${fmt(rate)} rows/s, ${pct(rate / (bare.rows / bare.seconds))} of the bare COPY**. Background load before it: ${bgImport === null ? 'n/a' : pct(bgImport)}.`,
        `- Re-import of the last 7 days (the daily routine: ${fmt(daily.rows)} rows, each day replaced): ${daily.seconds.toFixed(2)} s (${fmt(daily.rows / daily.seconds)} rows/s, deletes included).`,
        `- \`VACUUM (ANALYZE)\` of the two tables afterwards (what autovacuum would do soon after such an import): ${vacuumSeconds.toFixed(1)} s.`,
        '',
        `Target: at least ${fmt(TARGETS.rowsPerSecond)} rows/s, or at least ${pct(TARGETS.bareShare)} of the bare COPY: **${importMet ? 'met' : 'not met'}** (${fmt(rate)} rows/s; ${pct(rate / (bare.rows / bare.seconds))}).`,
        '',
        '<details><summary>The import\'s own summary</summary>',
        '',
        '```',
        full.output,
        '```',
        '',
        '</details>',
        '',
        '## `GET /v1/deploys/{id}` with impact',
        '',
        `${DEPLOYS} production deploys spread over the two years, each with a finished check of ${CHECK_URLS} findings and a finished crawl of ${CRAWL_URLS} (${CHECK_URLS + CRAWL_URLS} pages named, popular pages more often), requested in turn. Every response carries a 7-day impact with \`pages\` (affected against the rest) and the ${CHECK_URLS} findings' 28-day clicks; one was checked against sums over the rows before measuring. The real server as a child process (request log on, as in production).`,
        '',
        ...table(results),
        '',
        `Target: p99 under ${TARGETS.p99Ms} ms: **${judged.p99 < TARGETS.p99Ms ? 'met' : 'not met'}** at 1 connection, i.e. the latency of one request without queueing, as bench:logs measures its latency target (p99 ${judged.p99} ms, p50 ${judged.p50} ms). Under load the two cores, shared by the server, PostgreSQL and the load generator, queue the requests: p99 ${results[1].p99} ms at 10 connections and ${results[2].p99} ms at 50. The same deploys in a workspace without search data (impact null, clicks 0, the same findings) show what search data adds: p99 ${results[3].p99} ms at 1 connection and ${results[4].p99} ms at 10; ${fmt(results[0].cpuPerRequest - results[3].cpuPerRequest)} µs of server CPU per request.`,
        '',
        'Per response, besides the key, the deploy, its check, its crawl and the baseline: one statement on search_data_days (the span of imported days, three lookups at the ends of its key, joined to the at most 15 days around the deploy, which carry the window totals), then, in parallel, the affected pages\' sums (search_data\'s primary key probed at each window day and page: `date IN (...) AND page IN (...)`) and the findings\' 28-day clicks (the same probes over 28 days, grouped by page).',
        '',
        '<details><summary>Plans (EXPLAIN ANALYZE) for one deploy</summary>',
        '',
        `Affected pages over both windows (${urls.length} pages x 14 days):`,
        '',
        '```',
        planAffected,
        '```',
        '',
        'A 7-day window over every page, for comparison (the per-day table answers this from 7 rows instead):',
        '',
        '```',
        planWindow,
        '```',
        '',
        '</details>',
      ]);
    } finally {
      await server.stop();
    }
  } finally {
    if (process.env.BENCH_KEEP_CSV === '1') console.log(`kept ${csv}`);
    else fs.rmSync(tmp, { recursive: true, force: true });
  }
});
