// npm run bench:dashboard
//
// The dashboard's three speed promises (docs/dashboard.md), measured in headless Chromium
// (playwright-core, Debian's /usr/bin/chromium) against the real server (startServerChild, as
// server/main.ts runs it):
//
// 1. First load: the bytes of the page, its script and its stylesheet as a browser that accepts
//    brotli receives them (the budget is 150 KB of compressed JavaScript and CSS).
// 2. A big deploy: 500 changed files and about 200 findings from a real site check (the worker's
//    own runSiteCheck against a local site of 21 pages, each regressing in many ways), timed from
//    navigation until the last finding and the last changed file are painted; the median of
//    BENCH_LOADS loads (default 7), signed in, assets cached as a returning visitor has them.
// 3. The deploy list of a 100,000-deploy workspace: GET /v1/deploys for its first page straight
//    from the API, against the dashboard's deploys page from navigation to its rows painted.
//
// BENCH_ENGINES picks the engines (default both); BENCH_LIST_DEPLOYS changes the 100,000.
// Writes bench/results/dashboard.md.

import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import type { Page } from 'playwright-core';
import { addMember, setPassword, startSession } from '../core/access/index.ts';
import { operatorActor } from '../core/activity/index.ts';
import { newestCheckOfDeploy, queueCheckNow, runSiteCheck } from '../core/checks/index.ts';
import { recordDeploy } from '../core/deploys/index.ts';
import { updateWorkspace } from '../core/workspaces/index.ts';
import { dashboardBuild } from '../server/dashboard.ts';
import { launchBrowser } from '../test/support/browser.ts';
import { htmlPage, sitemapXml, startFixtureSite, type FixtureSite } from '../test/support/fixture-site.ts';
import { Scratch, createOwner, enginesToRun, fmt, machineLines, runBenchmark, startServerChild, writeReport, type Engine } from './lib/harness.ts';

const LOADS = Number(process.env.BENCH_LOADS ?? 7);
const LIST_DEPLOYS = Number(process.env.BENCH_LIST_DEPLOYS ?? 100_000);
const PASSWORD = 'bench password 0123';
const PAGES = 20;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (n: number) => `${fmt(n / 1024, 1)} KB`;

/** 21 pages (home and 20 linked from the sitemap) that are healthy, then each broken many ways. */
function serveSite(site: FixtureSite, broken: boolean) {
  const slugs = Array.from({ length: PAGES }, (_, i) => `page-${i}`);
  site.set('/', htmlPage({ title: 'Home', description: 'Home page', canonical: site.url('/'), h1: ['Welcome'], links: slugs.map((s) => `/${s}`), words: 400 }));
  for (const s of slugs) {
    site.set(
      `/${s}`,
      broken
        ? htmlPage({ robots: 'noindex, nofollow', words: 20 })
        : htmlPage({
            title: `Page ${s}`,
            description: `About ${s}`,
            canonical: site.url(`/${s}`),
            h1: [s],
            hreflang: [{ lang: 'de', href: site.url(`/de/${s}`) }],
            jsonLd: [{ '@context': 'https://schema.org', '@type': 'Article', headline: s }],
            links: slugs.slice(0, 10).map((x) => `/${x}`),
            words: 600,
          }),
    );
  }
  site.set('/robots.txt', { body: `User-agent: *\nAllow: /\nSitemap: ${site.url('/sitemap.xml')}\n`, contentType: 'text/plain' });
  site.set('/sitemap.xml', sitemapXml(['/', ...slugs.map((s) => `/${s}`)].map((p) => site.url(p))));
}

async function signedInPage(browser: Awaited<ReturnType<typeof launchBrowser>>, base: string, token: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
  await context.addCookies([{ name: 'sitehealth_session', value: token, url: base }]);
  return context.newPage();
}

async function timeLoad(page: Page, path: string, ready: (p: Page) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await page.goto(path, { waitUntil: 'commit' });
  await ready(page);
  return performance.now() - started;
}

async function runEngine(scratch: Scratch, engine: Engine, browser: Awaited<ReturnType<typeof launchBrowser>>, site: FixtureSite): Promise<string[]> {
  const s = await scratch.create(engine);
  const owner = await createOwner(s.db, `dash-${engine}`);
  await updateWorkspace(s.db, owner.workspaceId, { website: site.url('/') });
  await setPassword(s.db, { userId: owner.userId, password: PASSWORD, action: 'password.set_by_operator', actor: operatorActor(), keepSession: null });
  const runOptions = { signal: new AbortController().signal, log: pino({ level: 'silent' }), allowPrivateNetwork: true, concurrency: 4 };

  // The baseline check of the healthy site, then the deploy's check of the broken one.
  serveSite(site, false);
  const baseline = await queueCheckNow(s.db, owner.workspaceId, 'manual');
  await runSiteCheck(s.db, baseline.check.id, runOptions);
  serveSite(site, true);
  const changes = Array.from({ length: 500 }, (_, i) => ({
    path: i < PAGES ? `src/pages/page-${i}.tsx` : `src/components/c${i}/part-${crypto.randomBytes(3).toString('hex')}.tsx`,
    category: i < PAGES ? ('page' as const) : ('component' as const),
    signals: i < PAGES ? [{ kind: 'meta_robots' as const, change: 'added' as const }] : [],
  }));
  const { deploy } = await recordDeploy(s.db, owner.workspaceId, { commitSha: crypto.randomBytes(20).toString('hex'), changes }, { siteCheckDelaySeconds: 0, crawlDelaySeconds: 3600 });
  const check = (await newestCheckOfDeploy(s.db, deploy.id))!;
  await runSiteCheck(s.db, check.id, runOptions);

  // The big list: staging deploys (no checks queued), in batches through the deploys domain.
  const listStarted = performance.now();
  const listWs = (await createOwner(s.db, `list-${engine}`)).workspaceId;
  for (let i = 0; i < LIST_DEPLOYS; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, LIST_DEPLOYS - i) }, () => recordDeploy(s.db, listWs, { commitSha: crypto.randomBytes(20).toString('hex'), environment: 'staging' }, { siteCheckDelaySeconds: 0, crawlDelaySeconds: 0 })));
  }
  const seedSeconds = (performance.now() - listStarted) / 1000;
  await addMember(s.db, { workspaceId: listWs, userId: owner.userId, role: 'viewer' });

  const app = await startServerChild('app', s.url, { PUBLIC_URL: 'http://127.0.0.1', RATE_LIMIT_PER_MINUTE: '0' });
  const { token } = await startSession(s.db, { userId: owner.userId, method: 'password', client: { userAgent: 'bench', ip: '127.0.0.1' } });
  const base = app.url;
  const page = await signedInPage(browser, base, token);

  const detail = await (await fetch(`${base}/v1/deploys/${deploy.id}`, { headers: { cookie: `sitehealth_session=${token}` } })).json();
  const findings = detail.findings.length as number;
  const detailPath = `/w/${owner.workspaceId}/deploys/${deploy.id}`;
  const painted = async (p: Page) => {
    await p.locator('ol.findings > li').nth(findings - 1).waitFor();
    await p.locator('table.changes tbody tr').nth(499).waitFor();
  };
  await timeLoad(page, detailPath, painted); // warm: assets cached, as for a returning visitor
  const renders: number[] = [];
  for (let i = 0; i < LOADS; i++) renders.push(await timeLoad(page, detailPath, painted));

  const detailApi: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    const t = performance.now();
    await (await fetch(`${base}/v1/deploys/${deploy.id}`, { headers: { cookie: `sitehealth_session=${token}`, 'accept-encoding': 'br' } })).arrayBuffer();
    detailApi.push(performance.now() - t);
  }

  const listPath = `/w/${listWs}/deploys`;
  const rows = (p: Page) => p.locator('table.deploys tbody tr').nth(24).waitFor();
  await timeLoad(page, listPath, rows);
  const pageLoads: number[] = [];
  const apiCalls: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    pageLoads.push(await timeLoad(page, listPath, rows));
    const t = performance.now();
    const res = await fetch(`${base}/v1/deploys?workspace_id=${listWs}&limit=25`, { headers: { cookie: `sitehealth_session=${token}`, 'accept-encoding': 'br' } });
    await res.arrayBuffer();
    apiCalls.push(performance.now() - t);
  }
  await page.context().close();
  await app.stop();

  return [
    `### ${engine}`,
    '',
    `- **Deploy detail**, 500 changed files and ${findings} findings (a real check of 21 pages, each broken many ways): median **${fmt(median(renders))} ms** from navigation to the last finding and the last changed file painted (${LOADS} loads; min ${fmt(Math.min(...renders))}, max ${fmt(Math.max(...renders))} ms). The budget is 1,000 ms. Its own \`GET /v1/deploys/{id}\` straight from the API: median ${fmt(median(detailApi))} ms.`,
    `- **Deploy list of ${fmt(LIST_DEPLOYS)} deploys:** the dashboard's first page (25 rows) painted in a median **${fmt(median(pageLoads))} ms** from navigation; the same \`GET /v1/deploys?limit=25\` straight from the API took a median **${fmt(median(apiCalls))} ms** (${LOADS} each). Seeding took ${fmt(seedSeconds)} s.`,
    '',
  ];
}

const scratch = new Scratch();
await runBenchmark(scratch, async () => {
  const built = await dashboardBuild();
  const files = [...built.assets.entries()];
  const sum = (k: 'raw' | 'br' | 'gzip') => files.reduce((n, [, a]) => n + a[k].length, 0);
  const lines = [
    '# Dashboard: first-load weight, a big deploy rendered, a big list',
    '',
    // The harness's lines about autocannon do not apply here: only the machine and the command.
    ...machineLines('npm run bench:dashboard').slice(0, 3),
    '',
    '## First load',
    '',
    '| file | raw | brotli | gzip |',
    '|---|---:|---:|---:|',
    `| page (HTML) | ${kb(built.page.raw.length)} | ${kb(built.page.br.length)} | ${kb(built.page.gzip.length)} |`,
    ...files.map(([url, a]) => `| \`${url.replace(/-[A-Z0-9]+\./, '-<hash>.')}\` | ${kb(a.raw.length)} | ${kb(a.br.length)} | ${kb(a.gzip.length)} |`),
    `| **JavaScript and CSS** | ${kb(sum('raw'))} | **${kb(sum('br'))}** | ${kb(sum('gzip'))} |`,
    '',
    'The budget is 150 KB of compressed JavaScript and CSS on the first load.',
    '',
  ];
  const site = await startFixtureSite();
  const browser = await launchBrowser();
  try {
    lines.push('## Rendering, in headless Chromium', '');
    for (const engine of enginesToRun()) {
      console.log(`engine ${engine}…`);
      lines.push(...(await runEngine(scratch, engine, browser, site)));
    }
  } finally {
    await browser.close();
    await site.close();
  }
  writeReport('dashboard.md', lines);
});
