// npm run bench:search-sync
//
// The Search Console sync's throughput, rows stored per second, on each engine: a workspace is
// connected through the real OAuth flow against the local stand-in for Google
// (test/support/google-stub.ts, the real token and Search Analytics shapes, in this process),
// which serves BENCH_SYNC_DAYS (default 30) days of BENCH_SYNC_ROWS (default 10,000) detailed
// rows a day; then the first sync (the back-fill of every day) and a daily sync (the last 3 days
// again) run as the worker runs them (core/search-console runSync). Rows are what the sync
// writes: the detailed rows plus the per-page totals. The stand-in's own work (grouping the rows
// per request, JSON) is in the time, as Google's answer time would be.
//
// Writes bench/results/search-sync.md. Environment: BENCH_SYNC_DAYS, BENCH_SYNC_ROWS,
// BENCH_ENGINES (sqlite,postgres), BENCH_PG_URL.

import crypto from 'node:crypto';
import { SYSTEM_ACTOR } from '../core/activity/index.ts';
import { loadConfig, nowMs } from '../core/platform/index.ts';
import { addDays, dayOf } from '../core/search-data/index.ts';
import { completeAuthorization, runSync, searchConsoleSettings, startAuthorization } from '../core/search-console/index.ts';
import { runSql } from '../core/db/index.ts';
import { GoogleStub, type StubRow } from '../test/support/google-stub.ts';
import { Scratch, createOwner, enginesToRun, fmt, machineLines, runBenchmark, waitForQuiet, writeReport, pct } from './lib/harness.ts';

const DAYS = Number(process.env.BENCH_SYNC_DAYS || 30);
const PER_DAY = Number(process.env.BENCH_SYNC_ROWS || 10_000);
const SITE = 'https://www.example.com/';
const COUNTRIES = ['usa', 'deu', 'gbr', 'fra', 'ind', 'can', 'aus', 'esp'];
const DEVICES = ['MOBILE', 'DESKTOP', 'TABLET'] as const;

function rows(days: string[], scale: number): StubRow[] {
  const out: StubRow[] = [];
  const pages = Math.round(Math.sqrt(PER_DAY) * 2);
  for (const date of days) {
    for (let i = 0; i < PER_DAY; i++) {
      const p = i % pages;
      const q = Math.floor(i / pages) + 7 * p;
      const impressions = 1 + ((i * 2654435761) % 400);
      out.push({ date, page: `${SITE}section-${p % 9}/page-${p}`, query: `query ${q}`, country: COUNTRIES[(i + p) % COUNTRIES.length], device: DEVICES[(i + q) % 3], clicks: Math.floor((impressions * scale) / 10), impressions, position: 1 + (i % 40) });
    }
  }
  return out;
}

interface Line {
  engine: string;
  what: string;
  days: number;
  rows: number;
  seconds: number;
  background: number | null;
}

const scratch = new Scratch();
await runBenchmark(scratch, async () => {
  const google = await GoogleStub.start();
  const lines: Line[] = [];
  try {
    const today = dayOf(nowMs());
    const days = Array.from({ length: DAYS }, (_, i) => addDays(today, i - DAYS));
    google.data.set(SITE, rows(days, 1));
    const config = loadConfig({ ...process.env, ...google.env(), SECRETS_KEY: crypto.randomBytes(32).toString('base64'), PUBLIC_URL: 'https://sitehealth.example.com' });
    const settings = { ...searchConsoleSettings(config), backfillDays: DAYS };
    console.log(`bench:search-sync: ${fmt(DAYS)} days x ${fmt(PER_DAY)} detailed rows a day`);
    for (const engine of enginesToRun()) {
      const s = await scratch.create(engine);
      const owner = await createOwner(s.db, 'sync');
      const auth = await startAuthorization(s.db, owner.workspaceId, { siteUrl: SITE }, settings, SYSTEM_ACTOR);
      const state = new URL(auth.authorizationUrl).searchParams.get('state')!;
      const done = await completeAuthorization(s.db, { state, code: google.issueCode().code }, settings);
      if (done.outcome !== 'connected') throw new Error('not connected');
      const id = auth.connection.id;

      const bgFirst = await waitForQuiet();
      const first = await runSync(s.db, id, settings);
      if (first.outcome !== 'synced') throw new Error(`first sync: ${JSON.stringify(first)}`);
      const [{ n }] = await runSql<{ n: number }>(s.db, 'SELECT COUNT(*) AS n FROM search_performance WHERE workspace_id = ?', [owner.workspaceId]);
      if (Number(n) !== DAYS * PER_DAY) throw new Error(`stored ${n} detailed rows, expected ${DAYS * PER_DAY}`);
      lines.push({ engine, what: `first sync (back-fill of ${first.days} days)`, days: first.days!, rows: first.rows!, seconds: first.ms! / 1000, background: bgFirst });
      console.log(`  ${engine}: first sync ${fmt(first.rows!)} rows in ${(first.ms! / 1000).toFixed(1)} s, ${fmt(first.rows! / (first.ms! / 1000))} rows/s`);

      const bgDaily = await waitForQuiet();
      const daily = await runSync(s.db, id, settings);
      if (daily.outcome !== 'synced') throw new Error(`daily sync: ${JSON.stringify(daily)}`);
      lines.push({ engine, what: `daily sync (${daily.from} to ${daily.to}, replacing them)`, days: daily.days!, rows: daily.rows!, seconds: daily.ms! / 1000, background: bgDaily });
      console.log(`  ${engine}: daily sync ${fmt(daily.rows!)} rows in ${(daily.ms! / 1000).toFixed(1)} s, ${fmt(daily.rows! / (daily.ms! / 1000))} rows/s`);
    }
  } finally {
    await google.close();
  }
  writeReport('search-sync.md', [
    '# bench:search-sync: Search Console sync throughput',
    '',
    ...machineLines('npm run bench:search-sync').filter((l) => !l.startsWith('- Load:') && !l.startsWith('- Columns:')),
    '',
    `Data: a property with ${fmt(DAYS)} days of ${fmt(PER_DAY)} detailed rows a day (date, page, query, country, device; about ${fmt(Math.round(Math.sqrt(PER_DAY) * 2))} pages) served by the local stand-in for Google in the benchmark's own process (the real OAuth refresh and Search Analytics shapes: 25,000 rows a page, two requests a day, by date and page and by all five dimensions). The connection is made through the real authorization flow first. Rows counted are those the sync writes: the detailed rows plus the per-day-per-page totals. The stand-in's own work (grouping rows per request, JSON) is inside the time, as Google's answer time would be.`,
    '',
    '| engine | sync | days | rows written | seconds | rows/s | background |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...lines.map((l) => `| ${l.engine} | ${l.what} | ${l.days} | ${fmt(l.rows)} | ${l.seconds.toFixed(1)} | **${fmt(l.rows / l.seconds)}** | ${l.background === null ? 'n/a' : pct(l.background)} |`),
    '',
    'Each day is written in its own short transaction (PostgreSQL: COPY; SQLite: multi-row inserts), after both of its requests answered, so the requests and the writes take turns: the figure is the whole sync, network and stand-in included, not the database alone.',
  ]);
});
