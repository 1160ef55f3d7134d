// Rendered checks (spec/site-checks.tsp, PageRender and CheckFindingKind): a check loads its pages
// in headless Chromium through Lighthouse, behind the address guard. End to end on a real website
// on loopback, through the API: a noindex that a script adds is found, said to be set by
// JavaScript and blamed on that script; with RENDER_CHECKS=off the same change is not seen and the
// check says it is HTML-only; a page that never finishes loading times out, is marked, and
// raises nothing; hreflang and JSON-LD that a script adds are kept with the page, and raise
// hreflang_removed and structured_data_removed, set by JavaScript, when the script stops adding
// them; the workspace's Lighthouse preset (render_preset) reaches Lighthouse: desktop renders on a
// wide screen with a desktop user agent. The browser tests need Chromium at /usr/bin/chromium (.ci/run installs it) and
// use one Lighthouse run per page (RENDER_RUNS=1): each run takes seconds.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../core/platform/index.ts';
import { engines, dropCreatedDatabases } from './support/databases.ts';
import { TestApi } from './support/api.ts';
import { testRunner } from './support/jobs.ts';
import { htmlPage, sitemapXml, startFixtureSite, type FixtureSite } from './support/fixture-site.ts';

after(dropCreatedDatabases);

const ENV = {
  SITE_CHECK_DELAY_SECONDS: '0',
  CRAWL_DELAY_SECONDS: '0',
  ALLOW_PRIVATE_NETWORK: '1',
  CRAWL_DELAY_MS: '0',
  RENDER_CHECKS: 'on',
  RENDER_RUNS: '1',
  RENDER_TIMEOUT_MS: '60000',
};

type Finding = { kind: string; url: string; severity: string; before: unknown; after: unknown; causes: Array<{ path: string }> };
type Render = {
  state: string;
  reason: string | null;
  runs: number;
  title: string | null;
  robots: string[];
  hreflang: Array<{ lang: string; href: string }>;
  structuredDataTypes: string[];
  preset: string | null; metrics: { lcpMs: number | null } | null; weight: Record<string, number> | null; scores: Record<string, number | null> | null };
type Page = { url: string; robots: string[]; title: string | null; hreflang: unknown[]; structuredDataTypes: string[]; render?: Render };
type Detail = { findings: Finding[]; siteCheck: { state: string; error: string | null; rendering: string; renderingNote: string | null; pages: Page[] } };

const HOME = htmlPage({ title: 'Home', description: 'Home', h1: ['Home'], words: 200 });
/**
 * The site's script: it adds the page's German alternate and its JSON-LD (a client-rendered head),
 * and names the page after the screen it finds (so the preset's screen shows in the rendered
 * title); or it adds a meta robots noindex once the page has loaded its data, and nothing else.
 */
const APP_JS = `window.appReady = true;
if (innerWidth >= 1000) document.title = 'Home (wide)';
const alt = document.createElement('link'); alt.rel = 'alternate'; alt.hreflang = 'DE'; alt.href = '/de/'; document.head.appendChild(alt);
const ld = document.createElement('script'); ld.type = 'application/ld+json';
ld.textContent = JSON.stringify({ '@context': 'https://schema.org', '@type': 'Organization', name: 'Home', founder: { '@type': 'Person', name: 'A' } });
document.head.appendChild(ld);`;
// It also asks for a *.localhost address (Chromium alone would send it to loopback, this very
// site): the address guard refuses it, so the site never sees /beacon.png.
const NOINDEX_JS = `new Image().src = 'http://beacon.localhost:' + location.port + '/beacon.png'; fetch('/api/flags').then(() => { const m = document.createElement('meta'); m.name = 'robots'; m.content = 'noindex'; document.head.appendChild(m); });`;

/** The deploy that changed the script, with decoys beside it. */
const CHANGES = [
  { path: 'src/styles/site.css', category: 'style', signals: [{ kind: 'stylesheet', change: 'added' }] },
  { path: 'public/assets/app.js', category: 'script', signals: [{ kind: 'meta_robots', change: 'added' }] },
  { path: 'src/pages/about.astro', category: 'page', signals: [{ kind: 'title', change: 'added' }] },
  { path: 'README.md', category: 'docs', signals: [] },
];

function publish(site: FixtureSite, js: string, home = HOME): void {
  site.reset();
  site.set('/', home);
  site.set('/assets/app.js', { body: js, contentType: 'text/javascript' });
  site.set('/assets/site.css', { body: 'body{color:#222}', contentType: 'text/css' });
  site.set('/api/flags', { body: '{}', contentType: 'application/json' });
  site.set('/robots.txt', { body: 'User-agent: *\nAllow: /\n', contentType: 'text/plain' });
}

/** This process's descendants (pid and command line), found through /proc: the render process and the browsers it starts. */
function descendants(): Array<{ pid: number; cmd: string }> {
  const parent = new Map<number, number>();
  const cmd = new Map<number, string>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      cmd.set(Number(d), fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      // ended meanwhile
    }
  }
  const mine = (pid: number): boolean => {
    for (let p = parent.get(pid), hops = 0; p !== undefined && p > 1 && hops < 64; p = parent.get(p), hops++) if (p === process.pid) return true;
    return false;
  };
  return [...parent.keys()].filter(mine).map((pid) => ({ pid, cmd: cmd.get(pid) ?? '' }));
}
const isBrowser = (cmd: string) => /\/chromium\b/.test(cmd);
const alive = (pid: number) => {
  try {
    return !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    return false;
  }
};

async function setup(engine: 'sqlite' | 'postgres', env: Record<string, string>) {
  const api = await TestApi.start(engine, { env });
  const site = await startFixtureSite();
  const owner = await api.owner();
  const ws = await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `Render ${engine} ${crypto.randomUUID()}`, website: site.url('/') } });
  const workspaceId: string = ws.body.data.id;
  const deploy = async (changes: unknown[] = [], extra: Record<string, string> = {}): Promise<Detail> => {
    const res = await api.call('POST', '/v1/deploys', { key: owner.apiKey, body: { workspaceId, commitSha: crypto.randomBytes(20).toString('hex'), changes } });
    assert.equal(res.status, 201, res.text);
    await testRunner(api.db, { config: loadConfig({ ...process.env, ...env, ...extra }) }).runDue();
    const d = (await api.call('GET', `/v1/deploys/${res.body.id}`, { key: owner.apiKey })).body as Detail;
    assert.equal(d.siteCheck.state, 'finished', d.siteCheck.error ?? undefined);
    return d;
  };
  return { api, site, deploy, owner, workspaceId, workspace: ws.body.data as { render_preset: string } };
}

for (const engine of engines()) {
  describe(`rendered checks (${engine})`, () => {
    let ctx: Awaited<ReturnType<typeof setup>>;
    before(async () => {
      ctx = await setup(engine, ENV);
    });
    after(async () => {
      await ctx.site.close();
      await ctx.api.stop();
    });

    it('finds a noindex that a script adds, says JavaScript set it and blames the script; a page that never loads is marked and raises nothing', async () => {
      const { site, deploy } = ctx;
      publish(site, APP_JS);
      const first = await deploy();
      assert.equal(first.siteCheck.rendering, 'browser');
      assert.equal(first.siteCheck.renderingNote, null);
      const home1 = first.siteCheck.pages.find((p) => p.url === site.url('/'))!;
      assert.equal(home1.render?.state, 'rendered', home1.render?.reason ?? undefined);
      assert.equal(home1.render?.runs, 1);
      // Lighthouse's default preset unless the workspace asks for another: a phone's narrow screen.
      assert.equal(ctx.workspace.render_preset, 'mobile');
      assert.equal(home1.render?.preset, 'mobile');
      assert.equal(home1.render?.title, 'Home');
      assert.ok(site.requests.some((r) => r.path === '/' && /Android/.test(r.userAgent ?? '')), 'a mobile user agent');
      assert.deepEqual(home1.render?.robots, []);
      // What the script added to the head is kept; the HTML has none of it.
      assert.deepEqual([home1.hreflang, home1.structuredDataTypes], [[], []]);
      assert.deepEqual(home1.render?.hreflang, [{ lang: 'de', href: site.url('/de/') }]);
      assert.deepEqual(home1.render?.structuredDataTypes, ['Organization', 'Person']);
      // Lab metrics, byte weight and category scores are kept with the page.
      assert.ok(typeof home1.render?.metrics?.lcpMs === 'number' && home1.render.metrics.lcpMs > 0, JSON.stringify(home1.render?.metrics));
      assert.ok((home1.render?.weight?.script ?? 0) > 0 && (home1.render?.weight?.total ?? 0) > (home1.render?.weight?.document ?? 0), JSON.stringify(home1.render?.weight));
      assert.equal(typeof home1.render?.scores?.seo, 'number');
      assert.deepEqual(first.findings, []);

      // Same HTML; the script now adds noindex after a request of its own.
      publish(site, NOINDEX_JS);
      const second = await deploy(CHANGES);
      const home2 = second.siteCheck.pages.find((p) => p.url === site.url('/'))!;
      assert.deepEqual(home2.robots, [], 'the HTML has no robots directive');
      assert.equal(home2.render?.state, 'rendered', home2.render?.reason ?? undefined);
      assert.deepEqual(home2.render?.robots, ['noindex']);
      const noindex = second.findings.filter((f) => f.kind === 'noindex_added');
      assert.equal(noindex.length, 1, JSON.stringify(second.findings));
      assert.equal(noindex[0].url, site.url('/'));
      assert.equal(noindex[0].severity, 'critical');
      assert.equal(noindex[0].before, 'index, follow');
      assert.equal(noindex[0].after, 'noindex (set by JavaScript)');
      assert.equal(noindex[0].causes[0]?.path, 'public/assets/app.js', JSON.stringify(noindex[0].causes));
      // The script no longer adds the alternate and the JSON-LD: the SEO kinds, on the rendered DOM.
      const gone = second.findings.filter((f) => f.kind === 'hreflang_removed' || f.kind === 'structured_data_removed').map((f) => [f.kind, f.before, f.after]);
      assert.deepEqual(gone, [
        ['hreflang_removed', 'de', 'none (set by JavaScript)'],
        ['structured_data_removed', 'Organization, Person', 'none (set by JavaScript)'],
      ]);
      assert.deepEqual([home2.render?.hreflang, home2.render?.structuredDataTypes], [[], []]);
      assert.ok(site.requests.some((r) => r.path === '/api/flags'), 'the browser ran the script');
      assert.ok(!site.requests.some((r) => r.path === '/beacon.png'), 'the guard refused the browser a local name');

      // The script empties the title, and the page never finishes loading (an image that stalls):
      // the render times out, the page is marked failed, and nothing read before the timeout counts.
      const stalled = htmlPage({ title: 'Home', description: 'Home', h1: ['Home'], words: 200, extraBody: '<img src="/stall.png" alt="">' });
      publish(site, `document.title = '';`, stalled);
      site.set('/stall.png', { neverFinish: true, contentType: 'image/png' });
      const t0 = Date.now();
      const third = await deploy(CHANGES, { RENDER_TIMEOUT_MS: '4000' });
      const home3 = third.siteCheck.pages.find((p) => p.url === site.url('/'))!;
      assert.equal(home3.render?.state, 'failed');
      assert.match(home3.render?.reason ?? '', /did not finish rendering within 4000 ms/);
      assert.equal(home3.render?.title, null);
      assert.equal(home3.render?.metrics, null);
      assert.equal(third.siteCheck.rendering, 'browser');
      assert.deepEqual(third.findings, [], 'no finding from a partial render');
      assert.ok(Date.now() - t0 < 60_000, 'the timeout bounded the check');
    });

    it('judges HTML alone with RENDER_CHECKS=off, says so, and does not see the script\'s noindex', async () => {
      const off = { ...ENV, RENDER_CHECKS: 'off' };
      const { site, deploy } = ctx;
      publish(site, APP_JS);
      await deploy([], off);
      publish(site, NOINDEX_JS);
      const d = await deploy(CHANGES, off);
      assert.equal(d.siteCheck.rendering, 'html_only');
      assert.match(d.siteCheck.renderingNote ?? '', /RENDER_CHECKS=off/);
      for (const p of d.siteCheck.pages) {
        assert.equal(p.render?.state, 'skipped');
        assert.equal(p.render?.metrics, null);
      }
      assert.deepEqual(d.findings, []);
      assert.ok(!site.requests.some((r) => r.path === '/api/flags'), 'no browser ran');
    });

    it('renders with the workspace\'s preset: desktop is validated, shown, and renders on a wide screen with a desktop user agent', async () => {
      const { api, owner, workspaceId, site, deploy } = ctx;
      const bad = await api.call('PUT', `/v1/workspaces/${workspaceId}`, { key: owner.apiKey, body: { render_preset: 'tablet' } });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.body.errors[0].path, '/render_preset');
      const put = await api.call('PUT', `/v1/workspaces/${workspaceId}`, { key: owner.apiKey, body: { render_preset: 'desktop' } });
      assert.equal(put.status, 200, put.text);
      assert.equal(put.body.data.render_preset, 'desktop');
      assert.equal((await api.call('GET', `/v1/workspaces/${workspaceId}`, { key: owner.apiKey })).body.data.render_preset, 'desktop');

      publish(site, APP_JS);
      const d = await deploy();
      const home = d.siteCheck.pages.find((p) => p.url === site.url('/'))!;
      assert.equal(home.render?.state, 'rendered', home.render?.reason ?? undefined);
      assert.equal(home.render?.preset, 'desktop');
      assert.equal(home.render?.title, 'Home (wide)', 'the page saw a desktop-wide screen');
      assert.ok(site.requests.some((r) => r.path === '/' && /Macintosh/.test(r.userAgent ?? '')), 'a desktop user agent');
      assert.ok(!site.requests.some((r) => /Android/.test(r.userAgent ?? '')), 'no mobile user agent');
      assert.deepEqual(d.findings, []);
    });

    // One engine only: what is tested here is the render process and the browser, which never
    // touch the database (the engine stores a failed render's record like any other, which the
    // stalled page above checks on both); and these renders are the suite's most expensive.
    it('a browser killed mid-render, a JavaScript redirect loop and a 50 MB page each fail that page\'s render only; dialogs do not stop a render; no process is left', { skip: engine !== 'sqlite' && 'engine-independent (see the comment above)' }, async () => {
      const { site, deploy } = ctx;
      const pages = ['/loop-a', '/huge', '/dialog'];
      // The home page stalls on an image, and the browser is killed while it waits.
      // A script that leaves the title alone (APP_JS names pages after the screen, desktop here since the test above).
      publish(site, 'window.appReady = true;', htmlPage({ title: 'Home', description: 'Home', h1: ['Home'], words: 200, extraBody: '<img src="/crash-stall.png" alt="">' }));
      site.set('/crash-stall.png', { neverFinish: true, contentType: 'image/png' });
      site.set('/loop-a', htmlPage({ title: 'Loop', extraHead: `<script>location.replace('/loop-b?' + Date.now())</script>` }));
      site.set('/loop-b', htmlPage({ title: 'Loop', extraHead: `<script>location.replace('/loop-a?' + Date.now())</script>` }));
      site.set('/huge', { bytes: 50 * 1024 * 1024 });
      site.set('/dialog', htmlPage({
        title: 'Dialogs',
        description: 'Dialogs',
        h1: ['Dialogs'],
        words: 200,
        extraBody: `<script>alert('Hello'); confirm('Sure?'); prompt('Name?'); addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = 'Stay'; });</script>`,
      }));
      site.set('/sitemap.xml', { body: sitemapXml(pages.map((p) => site.url(p))) });
      site.set('/robots.txt', { body: `User-agent: *\nAllow: /\nSitemap: ${site.url('/sitemap.xml')}\n`, contentType: 'text/plain' });

      const seen = new Map<number, string>();
      let killed: number | null = null;
      const watch = setInterval(() => {
        const now = descendants();
        // Browsers and render processes (not tsx's own esbuild). One that ended and is not yet
        // reaped has an empty command line: the last one it had is kept.
        for (const p of now) if (isBrowser(p.cmd) || p.cmd.includes('core/render/child.ts')) seen.set(p.pid, p.cmd);
        if (killed === null && site.requests.some((r) => r.path === '/crash-stall.png')) {
          const browser = now.find((p) => isBrowser(p.cmd) && !p.cmd.includes('--type='));
          if (browser) {
            killed = browser.pid;
            process.kill(browser.pid, 'SIGKILL');
          }
        }
      }, 100);
      let d: Detail;
      const t0 = Date.now();
      try {
        d = await deploy([], { RENDER_TIMEOUT_MS: '25000' });
      } finally {
        clearInterval(watch);
      }
      const ms = Date.now() - t0;
      assert.ok(killed !== null, 'the browser was killed mid-render');
      const render = (path: string) => d.siteCheck.pages.find((p) => p.url === site.url(path))?.render;
      assert.equal(d.siteCheck.rendering, 'browser');
      assert.equal(render('/')?.state, 'failed');
      assert.match(render('/')?.reason ?? '', /browser failed/);
      assert.equal(render('/loop-a')?.state, 'failed');
      assert.match(render('/loop-a')?.reason ?? '', /did not finish rendering within 25000 ms/);
      // Nothing links to /loop-b: only the browser, running the script, asks for it, here at least twice around the loop.
      assert.ok(site.requests.filter((r) => r.path.startsWith('/loop-b')).length >= 2, 'the page redirected itself over and over');
      assert.equal(render('/huge')?.state, 'failed');
      assert.match(render('/huge')?.reason ?? '', /did not finish rendering within 25000 ms/);
      // Lighthouse dismisses the dialogs; the page after three failures renders, in a browser of its own.
      assert.equal(render('/dialog')?.state, 'rendered', render('/dialog')?.reason ?? undefined);
      assert.equal(render('/dialog')?.title, 'Dialogs');
      for (const path of ['/', '/loop-a', '/huge']) assert.equal(render(path)?.metrics, null, `nothing of ${path}'s render is kept`);
      assert.deepEqual(d.findings.filter((f) => ['lcp_regressed', 'cls_regressed', 'tbt_regressed', 'total_weight_increased', 'category_score_dropped'].includes(f.kind)), []);

      // Every browser and render process the check started has ended (a killed browser's helpers too).
      const cmds = [...seen.values()].map((c) => c.slice(0, 160));
      assert.ok(cmds.some(isBrowser) && cmds.some((c) => c.includes('core/render/child.ts')), `the watch saw the processes: ${JSON.stringify(cmds)}`);
      const deadline = Date.now() + 10_000;
      const left = () => [...seen].filter(([pid]) => alive(pid));
      while (left().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const leftover = left();
      for (const [pid] of leftover) process.kill(pid, 'SIGKILL');
      assert.deepEqual(leftover.map(([pid, cmd]) => `${pid} ${cmd.slice(0, 120)}`), []);
      assert.ok(ms < 150_000, `the check took ${ms} ms`);
    });
  });
}
