// npm run bench:render
//
// Rendered checks (docs/api.md#rendered-pages) on fixture pages on loopback, one worker's way:
// pages rendered one after another, each with RENDER_RUNS runs (3 unless set) in a fresh
// Chromium behind the guard proxy, exactly as a check renders them (core/render). Reports pages
// rendered per minute per worker, seconds per page, the browser's and this process's peak
// resident memory, and the run-to-run noise of every metric a rendered finding judges: each page
// is rendered BENCH_RENDER_REPEATS times (5) and the spread (max - min) of its medians is the
// noise a finding must exceed. Writes bench/results/render.md. Needs /usr/bin/chromium.

import crypto from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';
import pino from 'pino';
import { browserAvailable, renderPages } from '../core/render/index.ts';
import type { Schemas } from '../core/contract/index.ts';
import { htmlPage, startFixtureSite, type FixtureSite } from '../test/support/fixture-site.ts';
import { fmt, machineLines, writeReport } from './lib/harness.ts';

const RUNS = Number(process.env.RENDER_RUNS || 3);
const REPEATS = Number(process.env.BENCH_RENDER_REPEATS || 5);
const TARGET_PAGES_PER_MINUTE = 20;

/**
 * A real PNG of about `n` bytes: random RGB pixels, so it does not compress. An image the browser
 * cannot decode is given up part-way, at a point that varies, and its bytes with it.
 */
function image(n: number): { body: Buffer; contentType: string } {
  const w = 200;
  const h = Math.max(1, Math.round(n / (1 + w * 3)));
  const raw = Buffer.alloc(h * (1 + w * 3));
  for (let y = 0; y < h; y++) crypto.randomFillSync(raw, y * (1 + w * 3) + 1, w * 3);
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body) >>> 0);
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
  return { body: png, contentType: 'image/png' };
}

function publish(site: FixtureSite): string[] {
  const words = 400;
  site.set('/', htmlPage({ title: 'Home', description: 'Home', h1: ['Home'], words, links: ['/article', '/shop'] }));
  site.set('/assets/site.css', { body: 'body{color:#222}'.repeat(200), contentType: 'text/css' });
  site.set('/assets/app.js', { body: 'window.app=1;'.repeat(500), contentType: 'text/javascript' });
  // Images with and without dimensions (layout shift when they arrive), a late script.
  site.set('/article', htmlPage({ title: 'Article', description: 'A', h1: ['Article'], words: 1200, extraBody: '<img src="/img/a.png" alt=""><img src="/img/b.png" width="600" height="400" alt="">' }));
  site.set('/img/a.png', image(120_000));
  site.set('/img/b.png', image(80_000));
  // Some main-thread work: a 150 ms busy loop after load.
  site.set('/shop', htmlPage({ title: 'Shop', description: 'S', h1: ['Shop'], words: 600, extraBody: '<script>const t=Date.now();while(Date.now()-t<150){}</script><img src="/img/c.png" alt="">' }));
  site.set('/img/c.png', image(300_000));
  return ['/', '/article', '/shop'].map((p) => site.url(p));
}

/** Resident memory of every Chromium process this benchmark started, KiB. */
function browserRssKiB(): number {
  let total = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sitehealth-chromium-')) continue;
      const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      total += m ? Number(m[1]) : 0;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

type Render = Schemas['PageRender'];
const METRICS: Array<[string, (r: Render) => number | null]> = [
  ['LCP (ms)', (r) => r.metrics?.lcpMs ?? null],
  ['CLS', (r) => r.metrics?.cls ?? null],
  ['TBT (ms)', (r) => r.metrics?.tbtMs ?? null],
  ['Speed Index (ms)', (r) => r.metrics?.speedIndexMs ?? null],
  ['total bytes', (r) => r.weight?.total ?? null],
  ['performance score', (r) => r.scores?.performance ?? null],
  ['accessibility score', (r) => r.scores?.accessibility ?? null],
  ['best-practices score', (r) => r.scores?.bestPractices ?? null],
  ['SEO score', (r) => r.scores?.seo ?? null],
];

async function main(): Promise<void> {
  if (!browserAvailable()) throw new Error('bench:render needs /usr/bin/chromium (apt-get install chromium)');
  const site = await startFixtureSite();
  const urls = publish(site);
  const log = pino({ level: 'silent' });
  let peakBrowser = 0;
  const sampler = setInterval(() => (peakBrowser = Math.max(peakBrowser, browserRssKiB())), 200);
  const byUrl = new Map<string, Render[]>(urls.map((u) => [u, []]));
  const failures: string[] = [];
  const t0 = performance.now();
  for (let i = 0; i < REPEATS; i++) {
    // Lighthouse's default preset, as `lhci collect` uses by default: the two are compared below.
    const { renders } = await renderPages(urls, { mode: 'on', runs: RUNS, timeoutMs: 60_000, preset: 'mobile', allowPrivateNetwork: true, log });
    for (const [u, r] of renders) {
      if (r.state === 'rendered') byUrl.get(u)!.push(r);
      else failures.push(`${u}: ${r.reason}`);
    }
    console.log(`repeat ${i + 1}/${REPEATS}: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  await site.close();
  const pages = urls.length * REPEATS;
  const perMinute = (pages / seconds) * 60;

  const rows: string[] = [];
  for (const [name, get] of METRICS) {
    const cells = urls.map((u) => {
      const vs = byUrl.get(u)!.map(get).filter((v): v is number => v !== null);
      if (vs.length === 0) return 'n/a';
      const lo = Math.min(...vs);
      const hi = Math.max(...vs);
      const digits = name === 'CLS' ? 3 : 0;
      return `${fmt(lo, digits)}–${fmt(hi, digits)} (spread ${fmt(hi - lo, digits)})`;
    });
    rows.push(`| ${name} | ${cells.join(' | ')} |`);
  }
  const paths = urls.map((u) => new URL(u).pathname);
  writeReport('render.md', [
    '# bench:render',
    '',
    `Command: \`npm run bench:render\` (RENDER_RUNS=${RUNS}, BENCH_RENDER_REPEATS=${REPEATS}).`,
    '',
    // The harness's first lines (date, machine and load, Node and commit); the rest is about autocannon.
    ...machineLines('npm run bench:render').slice(0, 3),
    `- Chromium: ${fs.existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : 'missing'}; Lighthouse 12.2.3, default (mobile) preset, simulated throttling`,
    '',
    '## Throughput and memory (one worker: pages one after another, each in a fresh browser)',
    '',
    '| pages rendered | runs per page | seconds | pages per minute per worker | seconds per page | peak browser RSS | peak Node RSS |',
    '|---|---|---|---|---|---|---|',
    `| ${pages} | ${RUNS} | ${fmt(seconds, 1)} | **${fmt(perMinute, 1)}** (aim ${TARGET_PAGES_PER_MINUTE}) | ${fmt(seconds / pages, 1)} | ${fmt(peakBrowser / 1024)} MiB | ${fmt(process.resourceUsage().maxRSS / 1024)} MiB |`,
    '',
    failures.length ? `Failed renders: ${failures.length}: ${failures.slice(0, 5).join('; ')}` : 'Failed renders: none.',
    '',
    `## Noise: the range of each page's medians over ${REPEATS} renders of ${RUNS} runs`,
    '',
    `| metric | ${paths.join(' | ')} |`,
    `|---|${paths.map(() => '---').join('|')}|`,
    ...rows,
    '',
  ]);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
