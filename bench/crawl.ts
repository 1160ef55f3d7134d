// npm run bench:crawl
//
// A real worker process (worker/main.ts, default crawl settings but CRAWL_MAX_PAGES) crawls a
// generated 5,000-page fixture website on loopback: pages per second from the crawl's own start
// and finish times, the worker's peak resident memory, and the page analyser's parse throughput
// next to the raw htmlparser2 parser on the same pages (bench/lib/parse-throughput.ts). Then a
// second deploy deletes a tenth of the pages with every link to them; its crawl walks the rest and
// asks again for the vanished pages (docs/api.md#pages-that-vanish), each of them page_removed.
// Targets: at least 200 pages/s; peak RSS under 300 MiB; the analyser at least 50% of the raw
// parser. Writes bench/results/crawl.md. Environment: BENCH_CRAWL_PAGES (5000), BENCH_ENGINES
// (sqlite), CRAWL_CONCURRENCY / CRAWL_DELAY_MS (the service's defaults unless set).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SiteCrawl } from '../core/db/index.ts';
import { createUser } from '../core/access/index.ts';
import { createWorkspace } from '../core/workspaces/index.ts';
import { recordDeploy } from '../core/deploys/index.ts';
import { loadConfig } from '../core/platform/index.ts';
import { generateSite, startFixtureSite, type FixtureSite } from '../test/support/fixture-site.ts';
import { measureParseThroughput } from './lib/parse-throughput.ts';
import { ROOT, Scratch, enginesToRun, type ScratchDb, fmt, machineLines, writeReport } from './lib/harness.ts';

const PAGES = Number(process.env.BENCH_CRAWL_PAGES || 5000);
const TARGETS = { pagesPerSecond: 200, rssMiB: 300, parseRatio: 0.5 };
/** The share of the pages the second deploy deletes with their links. */
const VANISHED = 0.1;

function rssKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

interface CrawlRun {
  engine: string;
  pages: number;
  seconds: number;
  pagesPerSecond: number;
  peakRssMiB: number;
}

/** Runs the deploy's crawl in a fresh worker process and waits for it. */
async function runCrawl(db: ScratchDb, engine: string, crawlId: string): Promise<CrawlRun & { crawlId: string }> {
  const worker = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'worker/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: db.url, ALLOW_PRIVATE_NETWORK: '1', CRAWL_MAX_PAGES: String(PAGES), WORKER_POLL_MS: '50', LOG_LEVEL: 'warn', NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  let peakKiB = 0;
  try {
    for (let waited = 0; ; waited += 100) {
      peakKiB = Math.max(peakKiB, rssKiB(worker.pid!, 'VmRSS'), rssKiB(worker.pid!, 'VmHWM'));
      const crawl = await SiteCrawl.query(db.db).findById(crawlId);
      if (crawl?.state === 'finished' || crawl?.state === 'failed') {
        if (crawl.state === 'failed') throw new Error(`crawl failed: ${crawl.error}`);
        const seconds = (Number(crawl.finished_at) - Number(crawl.started_at)) / 1000;
        return { crawlId, engine, pages: crawl.pages_crawled, seconds, pagesPerSecond: crawl.pages_crawled / seconds, peakRssMiB: peakKiB / 1024 };
      }
      if (waited > 600_000) throw new Error('the crawl did not finish within 10 minutes');
      await sleep(100);
    }
  } finally {
    worker.kill('SIGTERM');
    await new Promise((r) => worker.once('exit', r));
  }
}

interface SecondRun extends CrawlRun {
  /** Pages the walk did not find that the crawl asked for again. */
  revisited: number;
  removedFound: number;
}

/**
 * The crawl of a deploy of the full site (the reference), then the crawl of a deploy that deleted
 * the last VANISHED share of the pages together with every link to them and their sitemap
 * entries: that crawl walks the rest and asks again for each vanished page (page_removed).
 */
async function crawlTwice(scratch: Scratch, engine: 'sqlite' | 'postgres', site: FixtureSite): Promise<{ first: CrawlRun; second: SecondRun }> {
  const s = await scratch.create(engine);
  const user = await createUser(s.db, `crawl-${engine}-${Date.now()}@example.com`);
  const ws = await createWorkspace(s.db, { accountId: user.accountId, userId: user.userId, input: { name: `Crawl bench ${engine} ${Date.now()}`, website: site.url('/') } });
  // The crawl is due now; the check an hour later, so only the crawl runs.
  const deploy = async (sha: string) => (await recordDeploy(s.db, ws.id, { commitSha: sha }, { siteCheckDelaySeconds: 3600, crawlDelaySeconds: 0 })).scheduled!.crawlId;
  site.reset();
  generateSite(site, { pages: PAGES });
  const first = await runCrawl(s, engine, await deploy('abcdef1234'));

  const kept = Math.round(PAGES * (1 - VANISHED));
  site.reset();
  generateSite(site, { pages: kept });
  const second = await runCrawl(s, engine, await deploy('abcdef5678'));
  const crawl = await SiteCrawl.query(s.db).findById(second.crawlId);
  const fresh = (crawl?.findings?.crawlFindings ?? []) as Array<{ kind: string }>;
  const revisited = second.pages - kept;
  site.reset();
  generateSite(site, { pages: PAGES });
  return { first, second: { ...second, revisited, removedFound: fresh.filter((f) => f.kind === 'page_removed').length } };
}

const scratch = new Scratch();
const site = await startFixtureSite();
try {
  generateSite(site, { pages: PAGES });
  const config = loadConfig();
  console.log(`bench:crawl: ${PAGES} pages, CRAWL_CONCURRENCY=${config.crawlConcurrency}, CRAWL_DELAY_MS=${config.crawlDelayMs}`);
  const runs: CrawlRun[] = [];
  const seconds: SecondRun[] = [];
  for (const engine of process.env.BENCH_ENGINES ? enginesToRun() : (['sqlite'] as const)) {
    const { first: run, second } = await crawlTwice(scratch, engine, site);
    console.log(`  ${engine}: ${run.pages} pages in ${run.seconds.toFixed(1)} s = ${fmt(run.pagesPerSecond)} pages/s, worker peak RSS ${run.peakRssMiB.toFixed(0)} MiB`);
    console.log(
      `  ${engine}, after ${fmt(PAGES * VANISHED)} pages vanished: ${second.pages} pages (${second.revisited} asked for again) in ${second.seconds.toFixed(1)} s = ${fmt(second.pagesPerSecond)} pages/s, ${second.removedFound} page_removed, worker peak RSS ${second.peakRssMiB.toFixed(0)} MiB`,
    );
    runs.push(run);
    seconds.push(second);
  }

  // The parser comparison on pages of the same site, as the crawl downloaded them.
  const sample: Buffer[] = [];
  for (let i = 0; i < 400; i++) sample.push(Buffer.from(await (await fetch(site.url(i === 0 ? '/' : `/p/${i}`))).arrayBuffer()));
  const parse = measureParseThroughput(sample, { rounds: 10 });
  console.log(`  parse: analyser ${parse.analyzerMBps.toFixed(1)} MB/s, raw parser ${parse.rawParserMBps.toFixed(1)} MB/s (${(parse.ratio * 100).toFixed(0)}%)`);

  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  writeReport('crawl.md', [
    '# bench:crawl: a 5,000-page site crawled by a real worker',
    '',
    ...machineLines('npm run bench:crawl'),
    '',
    `A generated site of ${PAGES} pages (test/support/fixture-site.ts \`generateSite\`: each page about ${fmt(sample.reduce((n, b) => n + b.length, 0) / sample.length / 1024, 1)} KB with 10 links, a sitemap listing every page, a robots.txt) served on 127.0.0.1 by the benchmark process. A deploy schedules a crawl due at once; one worker process (\`worker/main.ts\`, CRAWL_MAX_PAGES=${PAGES}, CRAWL_CONCURRENCY=${config.crawlConcurrency}, CRAWL_DELAY_MS=${config.crawlDelayMs}, ALLOW_PRIVATE_NETWORK=1) crawls it through the guarded fetcher, analyses every page and stores the page list. Pages/s is pages crawled over the crawl's own started/finished times; peak RSS is the worker's high-water mark (/proc VmHWM, sampled every 100 ms).`,
    '',
    '| engine | pages | seconds | pages/s | worker peak RSS (MiB) |',
    '|---|---:|---:|---:|---:|',
    ...runs.map((r) => `| ${r.engine} | ${fmt(r.pages)} | ${r.seconds.toFixed(1)} | ${fmt(r.pagesPerSecond)} | ${r.peakRssMiB.toFixed(0)} |`),
    '',
    `The next deploy deletes the last ${VANISHED * 100}% of the pages (${fmt(PAGES * VANISHED)}) together with every link to them and their sitemap entries (\`generateSite\` with ${fmt(Math.round(PAGES * (1 - VANISHED)))} pages); its crawl walks what is left, then asks again for each page of the previous crawl it did not find ([pages that vanish](../../docs/api.md#pages-that-vanish)). Pages/s counts those requests too.`,
    '',
    '| engine | pages (asked for again) | seconds | pages/s | page_removed found | worker peak RSS (MiB) |',
    '|---|---:|---:|---:|---:|---:|',
    ...seconds.map((r) => `| ${r.engine} | ${fmt(r.pages)} (${fmt(r.revisited)}) | ${r.seconds.toFixed(1)} | ${fmt(r.pagesPerSecond)} | ${fmt(r.removedFound)} of ${fmt(PAGES * VANISHED)} | ${r.peakRssMiB.toFixed(0)} |`),
    '',
    `Parse throughput on ${sample.length} pages of the same site (${parse.megabytes.toFixed(1)} MB, ${10} alternating rounds): analyser ${parse.analyzerMBps.toFixed(1)} MB/s, raw htmlparser2 Parser ${parse.rawParserMBps.toFixed(1)} MB/s, ratio ${(parse.ratio * 100).toFixed(0)}% (per round ${parse.roundRatios.map((r) => (r * 100).toFixed(0)).join(' / ')}%).`,
    '',
    'Targets:',
    '',
    ...seconds.map((r) => `- ${r.engine}, second crawl: ${fmt(r.pagesPerSecond)} pages/s (target ${TARGETS.pagesPerSecond}): ${verdict(r.pagesPerSecond >= TARGETS.pagesPerSecond)}; every vanished page found: ${verdict(r.removedFound === PAGES * VANISHED)}`),
    ...runs.map((r) => `- ${r.engine}: ${fmt(r.pagesPerSecond)} pages/s (target ${TARGETS.pagesPerSecond}): ${verdict(r.pagesPerSecond >= TARGETS.pagesPerSecond)}; peak RSS ${r.peakRssMiB.toFixed(0)} MiB (target under ${TARGETS.rssMiB}): ${verdict(r.peakRssMiB < TARGETS.rssMiB)}`),
    `- analyser at ${(parse.ratio * 100).toFixed(0)}% of the raw parser (target ${TARGETS.parseRatio * 100}%): ${verdict(parse.ratio >= TARGETS.parseRatio)}`,
  ]);
} finally {
  await site.close();
  await scratch.dropAll();
}
