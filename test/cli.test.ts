// `sitehealth deploy` as CI runs it: the compiled bin (bin/sitehealth.mjs over dist/) spawned on
// real temporary git repositories, with a CI environment that says only what each test says.
// Provider detection, the changes from git diff, the caps, a shallow clone, what leaves the
// machine, the exit codes, the API key never printed, the progress output, and `--wait
// --fail-on` against a live server, a worker and a real website.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../core/platform/index.ts';
import { buildDeployBody, changesFromGit } from '@sitehealth/cli';
import { EXIT_CODES, parseDuration, run } from '../cli/src/command/index.ts';
import type { DeployCreate } from '@sitehealth/sdk';
import { TestApi } from './support/api.ts';
import { dropCreatedDatabases, engines } from './support/databases.ts';
import { htmlPage, sitemapXml, startFixtureSite, type FixtureSite } from './support/fixture-site.ts';
import { GitRepo, lines } from './support/git-repo.ts';
import { testRunner } from './support/jobs.ts';
import { problem, scriptedServer, type Answer, type ScriptedServer, type Seen } from './support/scripted-server.ts';
import { cleanEnv, runBin, stageCli, type BinResult, type StagedCli } from './support/cli-build.ts';

const KEY = `sh_${crypto.randomBytes(24).toString('hex')}`;
const WS = '01900000-0000-7000-8000-000000000001';
const DEPLOY_ID = '01900000-0000-7000-8000-0000000000d1';

let cli: StagedCli;
const repos: GitRepo[] = [];
const tmpDirs: string[] = [];

before(async () => {
  cli = await stageCli();
});
after(async () => {
  cli?.dispose();
  for (const r of repos) r.dispose();
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
  await dropCreatedDatabases();
});

function repo(): GitRepo {
  const r = GitRepo.create();
  repos.push(r);
  return r;
}

/** Every run: the key appears nowhere in what the bin printed. */
function noKey(r: BinResult, key = KEY): BinResult {
  assert.ok(!r.stdout.includes(key) && !r.stderr.includes(key), 'the API key was printed');
  return r;
}

async function sitehealth(args: string[], opts: { cwd: string; env?: Record<string, string | undefined>; input?: string; alias?: boolean }): Promise<BinResult> {
  const r = await runBin(opts.alias ? cli.aliasBin : cli.bin, args, { cwd: opts.cwd, env: cleanEnv(opts.env), input: opts.input });
  return noKey(r);
}

const show = (r: BinResult) => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

/** An Astro site: a layout, a blog page, robots.txt; the second commit adds noindex, a Disallow and a heading. */
function astroSite(): { r: GitRepo; base: string; head: string } {
  const r = repo();
  const layout = (robots: string) => lines(
    '---',
    'const { title, description } = Astro.props;',
    '---',
    '<html lang="en">',
    '  <head>',
    '    <title>{title}</title>',
    '    <meta name="description" content={description} />',
    ...(robots ? [robots] : []),
    '  </head>',
    '  <body><slot /></body>',
    '</html>',
  );
  const base = r.commit('base', {
    'src/layouts/Layout.astro': layout(''),
    'src/pages/blog.astro': lines('---', "import Layout from '../layouts/Layout.astro';", '---', '<Layout title="Blog" description="Posts">', '  <h1>Blog</h1>', '</Layout>'),
    'public/robots.txt': lines('User-agent: *', 'Allow: /'),
    'README.md': lines('# Site'),
  });
  const head = r.commit('noindex', {
    'src/layouts/Layout.astro': layout('    <meta name="robots" content="noindex" />'),
    'src/pages/blog.astro': lines('---', "import Layout from '../layouts/Layout.astro';", '---', '<Layout title="Blog" description="Posts">', '  <h1>Our blog</h1>', '  <h2>Latest</h2>', '</Layout>'),
    'public/robots.txt': lines('User-agent: *', 'Allow: /', 'Disallow: /drafts'),
  });
  return { r, base, head };
}

async function expectedBody(r: GitRepo, base: string, head: string, extra: Partial<Parameters<typeof buildDeployBody>[0]> = {}): Promise<DeployCreate> {
  const { changes } = await changesFromGit({ cwd: r.dir, base, head });
  return buildDeployBody({ commitSha: head, changes, ...extra });
}

function githubEnv(head: string, before: string, extra: Record<string, string> = {}): Record<string, string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-cli-event-'));
  tmpDirs.push(dir);
  const eventPath = path.join(dir, 'event.json');
  fs.writeFileSync(eventPath, JSON.stringify({ before, after: head, ref: 'refs/heads/main' }));
  return {
    CI: 'true', GITHUB_ACTIONS: 'true', GITHUB_EVENT_NAME: 'push', GITHUB_SHA: head, GITHUB_REF: 'refs/heads/main', GITHUB_REF_NAME: 'main',
    GITHUB_EVENT_PATH: eventPath, GITHUB_RUN_ID: '42', GITHUB_REPOSITORY: 'acme/site', GITHUB_SERVER_URL: 'https://github.com', ...extra,
  };
}

// ---------------------------------------------------------------------------------------------
// A fake API for the exit codes: it records the deploy it is sent and answers the scope probe;
// `check(n)` gives the deploy's site check at the n-th read.

interface FakeApi extends ScriptedServer {
  posts(): DeployCreate[];
}

function deployFrom(body: DeployCreate) {
  const now = new Date().toISOString();
  return {
    id: DEPLOY_ID, workspaceId: WS, commitSha: body.commitSha, environment: body.environment ?? 'production', ref: body.ref ?? null,
    message: body.message ?? null, source: body.changes?.length ? 'cli' : 'webhook', deployedAt: now, changes: body.changes ?? [], createdAt: now, updatedAt: now,
    ciProvider: body.ciProvider ?? null, ciRunUrl: body.ciRunUrl ?? null,
  };
}

function siteCheck(state: string, error: string | null = null) {
  return {
    id: '01900000-0000-7000-8000-0000000000c1', workspaceId: WS, deployId: DEPLOY_ID, state, trigger: 'deploy', scheduledAt: new Date().toISOString(),
    startedAt: null, finishedAt: state === 'finished' || state === 'failed' ? new Date().toISOString() : null, pages: [], error,
  };
}

const FINDINGS = [
  {
    kind: 'title_missing', severity: 'high', url: 'https://acme.example/blog', before: 'Blog', after: null, clicks: 0,
    causes: [{ path: 'src/pages/blog.astro', category: 'page', signals: [{ kind: 'title', change: 'removed', line: 4 }], score: 0.91, reason: 'removed `title` signal in a page matching /blog' }],
  },
  { kind: 'page_weight_increased', severity: 'low', url: 'https://acme.example/', before: '120 KB', after: '900 KB', clicks: 3, causes: [] },
  {
    kind: 'noindex_added', severity: 'critical', url: 'https://acme.example/', before: 'index, follow', after: 'noindex', clicks: 12,
    causes: [
      { path: 'src/layouts/Layout.astro', category: 'template', signals: [{ kind: 'meta_robots', change: 'added', line: 8 }], score: 0.97, reason: 'added `meta_robots` signal in a template every page uses' },
      { path: 'public/robots.txt', category: 'robots', signals: [], score: 0.2, reason: 'robots file changed' },
    ],
  },
];

async function fakeApi(opts: { record?: Answer; probe?: Answer; check?: (n: number) => unknown; findings?: unknown[] } = {}): Promise<FakeApi> {
  let reads = 0;
  const srv = await scriptedServer((s: Seen) => {
    const u = new URL(s.url, 'http://x');
    if (s.method === 'POST' && u.pathname === '/v1/deploys') return opts.record ?? { status: 201, body: deployFrom(JSON.parse(s.body)) };
    if (s.method === 'GET' && u.pathname === '/v1/deploys') return opts.probe ?? { status: 200, body: { data: [] } };
    if (s.method === 'GET' && u.pathname === '/v1/deploys/00000000-0000-0000-0000-000000000000') return opts.probe ?? { status: 404, body: problem(404, 'not_found') };
    if (s.method === 'GET' && u.pathname === `/v1/deploys/${DEPLOY_ID}`) {
      const check = opts.check ? opts.check(reads++) : siteCheck('finished');
      const findings = (check as { state?: string } | null)?.state === 'finished' ? (opts.findings ?? []) : [];
      // A baseline, as a workspace's second check has: the findings are what got worse since it.
      return { status: 200, body: { ...deployFrom({ commitSha: 'abc1234' }), siteCheck: check, baseline: siteCheck('finished'), findings, issues: [], siteCrawl: null, crawlFindings: [], impact: null } };
    }
    return { status: 404, body: problem(404, 'not_found') };
  });
  return Object.assign(srv, { posts: () => srv.seen.filter((s) => s.method === 'POST').map((s) => JSON.parse(s.body) as DeployCreate) });
}

// ---------------------------------------------------------------------------------------------

describe('sitehealth: usage', () => {
  it('--help documents the deploy command and its exit codes; bad usage exits 2', async () => {
    const cwd = os.tmpdir();
    const help = await sitehealth(['deploy', '--help'], { cwd });
    assert.equal(help.code, 0, show(help));
    for (const text of ['--wait', '--fail-on <severity>', '--timeout <duration>', '--dry-run', 'Exit codes:', '4  --wait: the site check did not finish', '5  --fail-on']) {
      assert.ok(help.stdout.includes(text), text);
    }
    const alias = await sitehealth(['--help'], { cwd, alias: true });
    assert.equal(alias.code, 0);
    assert.match(alias.stdout, /Usage: sitehealth deploy/, 'sitehealth-deploy is `sitehealth deploy`');
    const version = await sitehealth(['--version'], { cwd });
    assert.equal(version.stdout.trim(), JSON.parse(fs.readFileSync(path.join(cli.dir, 'package.json'), 'utf8')).version);

    for (const args of [[], ['nope'], ['deploy', '--no-such-flag'], ['deploy', '--fail-on', 'extreme'], ['deploy', '--wait', '--timeout', 'soon']]) {
      const r = await sitehealth(args, { cwd });
      assert.equal(r.code, 2, `${args.join(' ')}: ${show(r)}`);
      assert.ok(r.stderr.length > 0);
    }
  });

  it('durations and exit codes: each documented code is distinct', async () => {
    assert.equal(parseDuration('90'), 90_000);
    assert.equal(parseDuration('90s'), 90_000);
    assert.equal(parseDuration('15m'), 900_000);
    assert.equal(parseDuration('1h30m'), 5_400_000);
    assert.equal(parseDuration('500ms'), 500);
    for (const bad of ['', 'soon', '15 m', '1x', 'm15']) assert.throws(() => parseDuration(bad), /not a duration/, bad);
    const codes = Object.values(EXIT_CODES);
    assert.equal(new Set(codes).size, codes.length);
    const help = await sitehealth(['deploy', '--help'], { cwd: os.tmpdir() });
    for (const c of codes) assert.match(help.stdout, new RegExp(`^  ${c}  `, 'm'), `exit code ${c} is documented`);
  });

  it('no key, no commit, or --wait on a non-production deploy: exit 2 before anything is sent', async () => {
    const { r, head } = astroSite();
    const api = await fakeApi();
    try {
      const noKeyRun = await sitehealth(['deploy', '--url', api.url], { cwd: r.dir });
      assert.equal(noKeyRun.code, 2, show(noKeyRun));
      assert.match(noKeyRun.stderr, /SITEHEALTH_API_KEY/);

      const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-cli-empty-'));
      tmpDirs.push(empty);
      const noCommit = await sitehealth(['deploy', '--url', api.url], { cwd: empty, env: { SITEHEALTH_API_KEY: KEY } });
      assert.equal(noCommit.code, 2, show(noCommit));
      assert.match(noCommit.stderr, /no commit/);

      const badSha = await sitehealth(['deploy', '--commit', 'not-a-sha', '--url', api.url], { cwd: r.dir, env: { SITEHEALTH_API_KEY: KEY } });
      assert.equal(badSha.code, 2, show(badSha));

      const staging = await sitehealth(['deploy', '--wait', '-e', 'staging', '--url', api.url], { cwd: r.dir, env: { SITEHEALTH_API_KEY: KEY, SITEHEALTH_COMMIT: head } });
      assert.equal(staging.code, 2, show(staging));
      assert.match(staging.stderr, /only production deploys get a site check/);
      assert.equal(api.seen.length, 0, 'nothing was sent');
    } finally {
      await api.close();
    }
  });
});

describe('sitehealth deploy: what it reads and what it sends', () => {
  it('--dry-run prints the body from git diff (base..commit) and sends nothing; no key needed', async () => {
    const { r, base, head } = astroSite();
    const api = await fakeApi();
    try {
      const res = await sitehealth(['deploy', '--dry-run', '--base', base, '--url', api.url], { cwd: r.dir });
      assert.equal(res.code, 0, show(res));
      const body = JSON.parse(res.stdout);
      assert.deepEqual(JSON.parse(res.stdout), { ...(await expectedBody(r, base, head)), ref: 'main' });
      assert.deepEqual(body.changes.map((c: { path: string; category: string }) => [c.path, c.category]), [
        ['public/robots.txt', 'robots'],
        ['src/layouts/Layout.astro', 'template'],
        ['src/pages/blog.astro', 'page'],
      ]);
      const kinds = body.changes.flatMap((c: { signals: Array<{ kind: string; change: string }> }) => c.signals.map((s) => `${s.kind}:${s.change}`));
      for (const k of ['robots_rule:added', 'meta_robots:added', 'heading:added', 'heading:removed']) assert.ok(kinds.includes(k), `${k} in ${kinds}`);
      assert.match(res.stderr, /local: commit [0-9a-f]{12}, on main, compared with/);
      assert.match(res.stderr, /3 changed files, \d+ signals: only paths, categories, signal kinds and line numbers are sent/);
      assert.equal(api.seen.length, 0);

      // Without --base, outside CI: the commit's parent. The alias gives the same body.
      const parent = await sitehealth(['--dry-run'], { cwd: r.dir, alias: true });
      assert.equal(parent.code, 0, show(parent));
      assert.deepEqual(JSON.parse(parent.stdout), body);
      assert.match(parent.stderr, /\(parent\)/);

      // --changed-files-from: paths from a file or stdin, categories without signals.
      const listed = await sitehealth(['deploy', '--dry-run', '--commit', 'HEAD', '--changed-files-from', '-'], { cwd: r.dir, input: 'src/pages/blog.astro\n\npublic/robots.txt\n' });
      assert.equal(listed.code, 0, show(listed));
      assert.equal(JSON.parse(listed.stdout).commitSha, head, 'a revision is resolved to its SHA');
      assert.deepEqual(JSON.parse(listed.stdout).changes, [
        { path: 'src/pages/blog.astro', category: 'page', signals: [] },
        { path: 'public/robots.txt', category: 'robots', signals: [] },
      ]);
    } finally {
      await api.close();
    }
  });

  it('detects GitHub Actions, GitLab CI and CircleCI: commit, ref and base from each; flags and SITEHEALTH_* win', async () => {
    const { r, base, head } = astroSite();
    const expected = { ...(await expectedBody(r, base, head)), ref: 'main' };
    const cases: Array<[string, Record<string, string>, RegExp, Partial<DeployCreate>]> = [
      ['GitHub Actions', githubEnv(head, base, { GITHUB_WORKSPACE: r.dir }), /GitHub Actions: commit .*, on main, compared with [0-9a-f]{12} \(github-push\)/, { ciProvider: 'github', ciRunUrl: 'https://github.com/acme/site/actions/runs/42' }],
      ['GitLab CI', {
        CI: 'true', GITLAB_CI: 'true', CI_COMMIT_SHA: head, CI_COMMIT_BEFORE_SHA: base, CI_COMMIT_REF_NAME: 'main', CI_PIPELINE_ID: '7', CI_JOB_ID: '8',
        CI_PROJECT_URL: 'https://gitlab.com/acme/site', CI_PROJECT_PATH: 'acme/site', CI_PROJECT_DIR: r.dir,
      }, /GitLab CI\/CD: commit .*, on main, compared with [0-9a-f]{12} \(gitlab-push\)/, { ciProvider: 'gitlab', ciRunUrl: 'https://gitlab.com/acme/site/pipelines/7' }],
      ['CircleCI', {
        CI: 'true', CIRCLECI: 'true', CIRCLE_SHA1: head, CIRCLE_BRANCH: 'main', CIRCLE_BASE_REVISION: base, CIRCLE_BUILD_NUM: '5',
        CIRCLE_PROJECT_USERNAME: 'acme', CIRCLE_PROJECT_REPONAME: 'site', CIRCLE_WORKING_DIRECTORY: r.dir,
      }, /CircleCI: commit .*, on main, compared with [0-9a-f]{12} \(circleci\)/, { ciProvider: 'circleci' }],
    ];
    // A later commit on the branch, so "HEAD" and the CI's commit differ: the CI's commit wins.
    r.commit('later', { 'README.md': lines('# Site', '', 'More.') });
    for (const [name, env, line, ci] of cases) {
      const res = await sitehealth(['deploy', '--dry-run'], { cwd: r.dir, env });
      assert.equal(res.code, 0, `${name}: ${show(res)}`);
      assert.deepEqual(JSON.parse(res.stdout), { ...expected, ...ci }, name);
      assert.match(res.stderr, line, name);
    }
    // Overrides: a flag beats SITEHEALTH_*, which beats detection.
    const over = await sitehealth(['deploy', '--dry-run', '--ref', 'release-1', '-e', 'staging'], {
      cwd: r.dir,
      env: { ...cases[0][1], SITEHEALTH_REF: 'ignored', SITEHEALTH_BASE: head, SITEHEALTH_ENVIRONMENT: 'ignored-too' },
    });
    assert.equal(over.code, 0, show(over));
    const body = JSON.parse(over.stdout);
    assert.equal(body.ref, 'release-1');
    assert.equal(body.environment, 'staging');
    assert.deepEqual(body.changes, [], 'SITEHEALTH_BASE = the commit: nothing changed');
    assert.match(over.stderr, /\(SITEHEALTH_BASE\)/);
  });

  it('caps: past 500 files and 50 signals per file the most telling are kept, with warnings', async () => {
    const r = repo();
    const base = r.commit('base', { 'public/robots.txt': lines('User-agent: *', 'Allow: /'), 'src/pages/index.html': lines('<h1>Home</h1>') });
    const files: Record<string, string> = {};
    for (let i = 0; i < 510; i++) files[`src/content/posts/post-${String(i).padStart(3, '0')}.md`] = lines(`Post ${i}`);
    files['public/robots.txt'] = lines('User-agent: *', 'Disallow: /');
    files['src/pages/index.html'] = lines('<h1>Home</h1>', ...Array.from({ length: 60 }, (_, i) => `<h2>Section ${i}</h2>`));
    const head = r.commit('many', files);
    const res = await sitehealth(['deploy', '--dry-run', '--base', base], { cwd: r.dir });
    assert.equal(res.code, 0, show(res));
    const body = JSON.parse(res.stdout);
    assert.equal(body.commitSha, head);
    assert.equal(body.changes.length, 500);
    const robots = body.changes.find((c: { path: string }) => c.path === 'public/robots.txt');
    const index = body.changes.find((c: { path: string }) => c.path === 'src/pages/index.html');
    assert.ok(robots && index, 'robots.txt and the page survive the cap');
    assert.equal(index.signals.length, 50);
    assert.match(res.stderr, /warning: 512 files changed; kept 500/);
    assert.match(res.stderr, /warning: src\/pages\/index\.html: more than 50 signals; kept the 50 most telling/);
    assert.match(res.stderr, /500 changed files \(of 512 changed\)/);
  });

  it('a shallow clone without the base records the deploy without changes and warns (exit 0)', async () => {
    const src = repo();
    const base = src.commit('one', { 'index.html': lines('<title>One</title>') });
    const head = src.commit('two', { 'index.html': lines('<title>Two</title>') });
    const clone = GitRepo.clone(['--depth', '1', `file://${src.dir}`]);
    repos.push(clone);
    const api = await fakeApi();
    try {
      const res = await sitehealth(['deploy', '--url', api.url], { cwd: clone.dir, env: { ...githubEnv(head, base), SITEHEALTH_API_KEY: KEY } });
      assert.equal(res.code, 0, show(res));
      assert.match(res.stderr, new RegExp(`warning: base commit ${base} is not in this clone \\(a shallow checkout\\?\\)`));
      assert.match(res.stderr, /No changes sent/);
      assert.match(res.stdout, new RegExp(`Recorded deploy ${DEPLOY_ID}`));
      assert.deepEqual(api.posts(), [{ commitSha: head, ref: 'main', ciProvider: 'github', ciRunUrl: 'https://github.com/acme/site/actions/runs/42' }], 'recorded, with no changes field (unknown, not "none")');
      assert.equal(api.seen[0].headers['x-api-key'], KEY);
    } finally {
      await api.close();
    }
  });

  it('no diff content leaves the machine: the request body holds paths, categories, signal kinds and line numbers only', async () => {
    const r = repo();
    const markers = ['SECRET_MARKER_7f3a', 'do-not-leak-9b1c', 'Marker Title q8z', 'Confidential zx81', 'https://internal.marker.example', 'sk_live_marker', 'commit subject marker'];
    const base = r.commit('base', {
      'src/app/page.tsx': lines('export const metadata = {', "  title: 'Old title',", '};', 'export default function Page() { return <h1>Home</h1>; }'),
      'src/lib/config.ts': lines("export const API = 'https://api.example';"),
      'public/_redirects': lines('/old /new 301'),
      '.env.production': lines('PUBLIC_URL=https://acme.example'),
    });
    const head = r.commit('commit subject marker', {
      'src/app/page.tsx': lines(
        'export const metadata = {',
        "  title: 'Marker Title q8z',",
        "  alternates: { canonical: 'https://internal.marker.example/' },",
        "  robots: { index: false },",
        '};',
        'export default function Page() { return <><h1>Confidential zx81</h1><a href="https://internal.marker.example/x">x</a></>; }',
      ),
      'src/lib/config.ts': lines("export const SECRET_MARKER_7f3a = 'do-not-leak-9b1c';", "export const stripe = process.env.sk_live_marker ?? 'sk_live_marker';"),
      'public/_redirects': lines('/old /new 301', '/secret-path-do-not-leak-9b1c https://internal.marker.example 302'),
      '.env.production': lines('PUBLIC_URL=https://acme.example', 'SECRET_MARKER_7f3a=do-not-leak-9b1c'),
    });
    const api = await fakeApi();
    try {
      const res = await sitehealth(['deploy', '--base', base, '--url', api.url], { cwd: r.dir, env: { SITEHEALTH_API_KEY: KEY } });
      assert.equal(res.code, 0, show(res));
      const [post] = api.seen.filter((s) => s.method === 'POST');
      for (const m of markers) assert.ok(!post.body.includes(m), `"${m}" left the machine: ${post.body}`);
      const body = JSON.parse(post.body) as DeployCreate;
      assert.deepEqual(Object.keys(body).sort(), ['changes', 'commitSha', 'ref']);
      assert.equal(body.commitSha, head);
      for (const c of body.changes!) {
        assert.deepEqual(Object.keys(c).sort(), ['category', 'path', 'signals']);
        for (const s of c.signals ?? []) {
          assert.ok(Object.keys(s).every((k) => ['kind', 'change', 'line'].includes(k)), JSON.stringify(s));
          assert.ok(s.line === undefined || Number.isInteger(s.line));
        }
      }
      assert.deepEqual(body.changes!.map((c) => c.path).sort(), ['.env.production', 'public/_redirects', 'src/app/page.tsx', 'src/lib/config.ts']);
      const kinds = new Set(body.changes!.flatMap((c) => (c.signals ?? []).map((s) => s.kind)));
      for (const k of ['title', 'canonical', 'meta_robots', 'redirect', 'env']) assert.ok(kinds.has(k as never), `${k} in ${[...kinds]}`);
      // What the bin printed carries no content either.
      for (const m of markers.filter((x) => x !== 'commit subject marker')) assert.ok(!res.stdout.includes(m) && !res.stderr.includes(m), m);
    } finally {
      await api.close();
    }
  });
});

describe('sitehealth deploy: exit codes and what it prints', () => {
  it('the API refusing the pipeline\'s settings exits 2, an API that cannot serve exits 3; --json says so; the key is never printed, even when echoed', async () => {
    const { r, head } = astroSite();
    const refused = await fakeApi({ record: { status: 400, body: problem(400, 'validation_failed', { detail: `bad key ${KEY} in body`, errors: [{ in: 'body', path: '/ref', message: 'too long' }] }) } });
    const wrongKey = await fakeApi({ record: { status: 401, body: problem(401, 'unauthorized') } });
    const noWorkspace = await fakeApi({ record: { status: 404, body: problem(404, 'not_found') } });
    const down = await fakeApi({ record: { status: 503, body: problem(503, 'service_unavailable'), headers: { 'retry-after': '0' } } });
    try {
      const a = await sitehealth(['deploy', '--url', refused.url, '--json'], { cwd: r.dir, env: { SITEHEALTH_API_KEY: KEY } });
      assert.equal(a.code, 2, show(a));
      assert.match(a.stderr, /--ref \(SITEHEALTH_REF\): too long \(the API answered .*\(400 validation_failed\).*\[request req-1\]\); nothing was recorded/, 'the flag and variable, not the JSON Pointer');
      assert.match(a.stderr, /bad key \[redacted\] in body/, 'the echoed key is redacted');
      assert.deepEqual({ ...JSON.parse(a.stdout), error: undefined }, { outcome: 'error', exitCode: 2, error: undefined });
      assert.equal(JSON.parse(a.stdout).error.code, 'validation_failed');

      const k = await sitehealth(['deploy', '--url', wrongKey.url], { cwd: r.dir, env: { SITEHEALTH_API_KEY: KEY, SITEHEALTH_COMMIT: head } });
      assert.equal(k.code, 2, show(k));
      assert.match(k.stderr, /the API key \(SITEHEALTH_API_KEY\) was not accepted/);
      const w = await sitehealth(['deploy', '--url', noWorkspace.url, '--workspace', WS], { cwd: r.dir, env: { SITEHEALTH_API_KEY: KEY, SITEHEALTH_COMMIT: head } });
      assert.equal(w.code, 2, show(w));
      assert.match(w.stderr, new RegExp(`workspace ${WS} \\(--workspace, SITEHEALTH_WORKSPACE_ID\\) does not exist or this key cannot see it`));

      const b = await sitehealth(['deploy', '--url', down.url], { cwd: r.dir, env: { SITEHEALTH_API_KEY: KEY, SITEHEALTH_COMMIT: head } });
      assert.equal(b.code, 3, show(b));
      assert.equal(down.seen.length, 3, 'POST /v1/deploys is retried (idempotent), twice');

      const nowhere = await sitehealth(['deploy', '--url', 'http://127.0.0.1:9'], { cwd: r.dir, env: { SITEHEALTH_API_KEY: KEY } });
      assert.equal(nowhere.code, 3, show(nowhere));
      assert.match(nowhere.stderr, /connection_error/);
    } finally {
      await refused.close();
      await wrongKey.close();
      await noWorkspace.close();
      await down.close();
    }
  });

  it('a bad --deployed-at and a --base the clone lacks exit 2 before anything is sent, in a dry run too', async () => {
    const { r } = astroSite();
    const api = await fakeApi();
    try {
      for (const args of [['--deployed-at', 'yesterday'], ['--deployed-at', '2026-11-21T10:00:00'], ['--base', 'no-such-branch']]) {
        for (const dry of [[], ['--dry-run']]) {
          const res = await sitehealth(['deploy', '--url', api.url, ...args, ...dry, '--json'], { cwd: r.dir, env: { SITEHEALTH_API_KEY: KEY } });
          assert.equal(res.code, 2, `${args.join(' ')} ${dry.join(' ')}: ${show(res)}`);
          assert.match(res.stderr, args[0] === '--base' ? /base "no-such-branch" \(--base\) is not a commit/ : /--deployed-at\) must be an ISO 8601 date-time with an offset/);
          assert.equal(JSON.parse(res.stdout).outcome, 'error');
        }
      }
      assert.equal(api.posts().length, 0, 'nothing was sent');
    } finally {
      await api.close();
    }
  });

  it('--wait checks the search scope before recording: without it, exit 2 and nothing recorded', async () => {
    const { r } = astroSite();
    const scopeless = await fakeApi({ probe: { status: 403, body: problem(403, 'insufficient_scope') } });
    try {
      // A bound key (no workspace): the probe reads a deploy that cannot exist.
      const res = await sitehealth(['deploy', '--wait', '--url', scopeless.url], { cwd: r.dir, env: { SITEHEALTH_API_KEY: KEY } });
      assert.equal(res.code, 2, show(res));
      assert.match(res.stderr, /needs an API key with the `search` scope/);
      assert.deepEqual(scopeless.seen.map((s) => `${s.method} ${s.url}`), ['GET /v1/deploys/00000000-0000-0000-0000-000000000000']);
      // With a workspace: the probe lists its deploys.
      const ws = await sitehealth(['deploy', '--wait', '--workspace', WS, '--url', scopeless.url], { cwd: r.dir, env: { SITEHEALTH_API_KEY: KEY } });
      assert.equal(ws.code, 2, show(ws));
      assert.equal(scopeless.seen.at(-1)!.url, `/v1/deploys?workspace_id=${WS}&limit=1`);
      assert.equal(scopeless.posts().length, 0);
    } finally {
      await scopeless.close();
    }
  });

  it('--wait: a check that never finishes times out with exit 4; a failed check exits 6', async () => {
    const { r } = astroSite();
    const stuck = await fakeApi({ check: () => siteCheck('queued') });
    const failing = await fakeApi({ check: (n) => siteCheck(n < 2 ? 'running' : 'failed', 'The website address is not public: 10.0.0.1') });
    try {
      const started = Date.now();
      const a = await sitehealth(['deploy', '--wait', '--timeout', '1s', '--poll-interval', '100ms', '--url', stuck.url], { cwd: r.dir, env: { SITEHEALTH_API_KEY: KEY } });
      assert.equal(a.code, 4, show(a));
      assert.ok(Date.now() - started < 15_000);
      assert.match(a.stderr, /site check queued/);
      assert.match(a.stderr, /timed out after 1s: the site check is queued/);
      assert.equal(stuck.posts().length, 1, 'recorded before waiting');

      const b = await sitehealth(['deploy', '--wait', '--poll-interval', '50ms', '--url', failing.url], { cwd: r.dir, env: { SITEHEALTH_API_KEY: KEY } });
      assert.equal(b.code, 6, show(b));
      assert.match(b.stderr, /site check running[\s\S]*site check failed[\s\S]*the site check failed: The website address is not public/);
    } finally {
      await stuck.close();
      await failing.close();
    }
  });

  it('--fail-on: findings at or above it exit 5, with kind, severity, url, before -> after and causes; below it exit 0', async () => {
    const { r } = astroSite();
    const api = await fakeApi({ check: (n) => siteCheck(['queued', 'running', 'finished'][Math.min(n, 2)]), findings: FINDINGS });
    try {
      const res = await sitehealth(['deploy', '--fail-on', 'high', '--poll-interval', '50ms', '--url', api.url], { cwd: r.dir, env: { SITEHEALTH_API_KEY: KEY } });
      assert.equal(res.code, 5, show(res));
      assert.match(res.stderr, /site check queued[\s\S]*site check running[\s\S]*site check finished/, 'each state change is a line');
      const out = res.stdout;
      assert.match(out, /2 findings at or above high \(3 in all\):/);
      // Failing ones first, most severe first, then the rest.
      const order = ['noindex_added', 'title_missing', 'page_weight_increased'].map((k) => out.indexOf(k));
      assert.deepEqual([...order].sort((x, y) => x - y), order, out);
      assert.match(out, /\[FAIL\] CRITICAL noindex_added: https:\/\/acme\.example\/\n\s+index, follow -> noindex\n\s+likely causes:\n\s+1\. src\/layouts\/Layout\.astro \(template, score 0\.97\): added `meta_robots` signal in a template every page uses\n\s+2\. public\/robots\.txt/);
      assert.match(out, /\[FAIL\] HIGH title_missing: https:\/\/acme\.example\/blog\n\s+Blog -> \(none\)/);
      assert.match(out, /\[info\] LOW page_weight_increased: https:\/\/acme\.example\/\n\s+120 KB -> 900 KB\n\s+no likely cause/);
      assert.match(res.stderr, /failing: 2 new findings at or above high/);

      const critical = await sitehealth(['deploy', '--wait', '--fail-on', 'critical', '--json', '--poll-interval', '50ms', '--url', api.url], { cwd: r.dir, env: { SITEHEALTH_API_KEY: KEY } });
      assert.equal(critical.code, 5);
      const json = JSON.parse(critical.stdout);
      assert.equal(json.outcome, 'gate_failed');
      assert.equal(json.exitCode, 5);
      assert.deepEqual(json.failing.map((f: { kind: string }) => f.kind), ['noindex_added']);
      assert.equal(json.findings.length, 3);
      assert.equal(json.deploy.id, DEPLOY_ID);

      const clean = await fakeApi({ findings: [FINDINGS[1]] });
      try {
        const pass = await sitehealth(['deploy', '--wait', '--fail-on', 'medium', '--poll-interval', '50ms', '--url', clean.url], { cwd: r.dir, env: { SITEHEALTH_API_KEY: KEY } });
        assert.equal(pass.code, 0, show(pass));
        assert.match(pass.stdout, /No finding at or above medium \(1 below it\):\n\s+\[info\] LOW page_weight_increased/);
        const noGate = await sitehealth(['deploy', '--wait', '--poll-interval', '50ms', '--url', api.url], { cwd: r.dir, env: { SITEHEALTH_API_KEY: KEY } });
        assert.equal(noGate.code, 0, '--wait without --fail-on only reports');
        assert.match(noGate.stdout, /3 findings:/);
      } finally {
        await clean.close();
      }
    } finally {
      await api.close();
    }
  });

  it('progress is a spinner on a terminal and plain lines otherwise', async () => {
    const { r } = astroSite();
    const api = await fakeApi({ check: (n) => siteCheck(n < 6 ? 'running' : 'finished') });
    const api2 = await fakeApi({ check: (n) => siteCheck(n < 2 ? 'running' : 'finished') });
    try {
      const capture = (isTTY: boolean) => {
        const chunks: string[] = [];
        return { chunks, stream: { isTTY, write: (s: string) => chunks.push(s) } };
      };
      const args = ['deploy', '--wait', '--poll-interval', '100ms', '--url', api.url];
      const tty = capture(true);
      const out1 = capture(false);
      const code = await run(args, { stdout: out1.stream, stderr: tty.stream, env: { SITEHEALTH_API_KEY: KEY }, cwd: r.dir });
      assert.equal(code, 0);
      const ttyText = tty.chunks.join('');
      assert.ok(ttyText.includes('\r\x1b[2K'), 'redrawn in place');
      assert.match(ttyText, /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] site check running \(\d+s\)/);
      assert.ok(!ttyText.includes(KEY));

      const plain = capture(false);
      const out2 = capture(false);
      assert.equal(await run([...args.slice(0, -1), api2.url], { stdout: out2.stream, stderr: plain.stream, env: { SITEHEALTH_API_KEY: KEY }, cwd: r.dir }), 0);
      const plainText = plain.chunks.join('');
      assert.ok(!plainText.includes('\r') && !plainText.includes('\x1b'), 'no control characters in a CI log');
      assert.match(plainText, /site check running \(\d+s\)\nsite check finished \(\d+s\)\n/);
    } finally {
      await api.close();
      await api2.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Against the real thing: API server, worker, a website on loopback.

const ENV = { SITE_CHECK_DELAY_SECONDS: '0', CRAWL_DELAY_SECONDS: '0', ALLOW_PRIVATE_NETWORK: '1', CRAWL_DELAY_MS: '0' };

for (const engine of engines()) describe(`sitehealth deploy --wait --fail-on against a live server and a real website (${engine})`, () => {
  let api: TestApi;
  let site: FixtureSite;
  let runner: ReturnType<typeof testRunner>;
  let key: string;
  let deploysOnlyKey: string;
  let workspaceId: string;

  const page = (slug: string, o: { robots?: string; description?: string | null } = {}) => htmlPage({
    title: `Page ${slug}`,
    description: o.description === null ? undefined : (o.description ?? `About ${slug}`),
    robots: o.robots,
    canonical: site.url(`/${slug}`),
    h1: [`Heading ${slug}`],
    links: ['/', '/blog', '/about'],
    words: 250,
  });

  before(async () => {
    api = await TestApi.start(engine, { env: ENV });
    site = await startFixtureSite();
    site.set('/', htmlPage({ title: 'Home', description: 'Home page', canonical: site.url('/'), h1: ['Welcome'], links: ['/blog', '/about'], words: 200 }));
    site.set('/blog', page('blog', { robots: 'index, follow' }));
    site.set('/about', page('about'));
    site.set('/robots.txt', { body: `User-agent: *\nAllow: /\nSitemap: ${site.url('/sitemap.xml')}\n`, contentType: 'text/plain' });
    site.set('/sitemap.xml', sitemapXml([site.url('/blog'), site.url('/about')]));
    const owner = await api.owner();
    const ws = await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `CLI ${crypto.randomUUID()}`, website: site.url('/') } });
    workspaceId = ws.body.data.id;
    key = (await api.key(owner.userId, { scopes: ['deploys', 'search'] })).apiKey;
    deploysOnlyKey = (await api.key(owner.userId, { scopes: ['deploys'] })).apiKey;
    runner = testRunner(api.db, { config: loadConfig({ ...process.env, ...ENV }), pollMs: 100 });
    await runner.start();
  });
  after(async () => {
    await runner?.stop(5000);
    await site?.close();
    await api?.stop();
  });

  it('passes on a clean deploy, fails on a critical regression with its cause, passes when only a medium one appears', async () => {
    const r = repo();
    const astro = (slug: string, meta: string[]) => lines('---', "import Layout from '../layouts/Layout.astro';", '---', `<Layout title="Page ${slug}">`, ...meta, `  <h1>Heading ${slug}</h1>`, '</Layout>');
    const c0 = r.commit('site', {
      'src/pages/blog.astro': astro('blog', ['  <meta name="robots" content="index, follow" slot="head" />']),
      'src/pages/about.astro': astro('about', ['  <meta name="description" content="About about" slot="head" />']),
      'src/layouts/Layout.astro': lines('<html><head><slot name="head" /></head><body><slot /></body></html>'),
    });
    const c1 = r.commit('copy edit', { 'src/pages/about.astro': astro('about', ['  <meta name="description" content="About about" slot="head" />', '  <p>More words.</p>']) });
    const env = { SITEHEALTH_API_KEY: key, SITEHEALTH_URL: api.url, SITEHEALTH_WORKSPACE_ID: workspaceId };
    const args = ['--wait', '--fail-on', 'high', '--timeout', '90s', '--poll-interval', '200ms'];

    const first = await sitehealth(['deploy', '--commit', c1, '--base', c0, ...args], { cwd: r.dir, env });
    assert.equal(first.code, 0, show(first));
    assert.match(first.stderr, /site check (queued|running)[\s\S]*site check finished/);
    assert.match(first.stdout, /First check of this website \(nothing to compare with\)/);

    // The regression: noindex on /blog, from a commit that adds it.
    const c2 = r.commit('hide the blog', { 'src/pages/blog.astro': astro('blog', ['  <meta name="robots" content="noindex" slot="head" />']) });
    site.set('/blog', page('blog', { robots: 'noindex' }));
    const second = await sitehealth(['deploy', '--commit', c2, ...args], { cwd: r.dir, env });
    assert.equal(second.code, 5, show(second));
    assert.match(second.stdout, /1 finding at or above high \(1 in all\):/);
    assert.match(second.stdout, new RegExp(`\\[FAIL\\] CRITICAL noindex_added: ${site.url('/blog').replace(/[.]/g, '\\.')}\\n\\s+index, follow -> noindex\\n\\s+likely cause:\\n\\s+1\\. src/pages/blog\\.astro \\(page, score \\d\\.\\d\\d\\): .*meta_robots`));

    // Only a medium finding: below the gate.
    const c3 = r.commit('drop a description', { 'src/pages/about.astro': astro('about', ['  <p>More words.</p>']) });
    site.set('/about', page('about', { description: null }));
    const third = await sitehealth(['deploy', '--commit', c3, ...args], { cwd: r.dir, env });
    assert.equal(third.code, 0, show(third));
    assert.match(third.stdout, /No finding at or above high \(1 below it\):\n\s+\[info\] MEDIUM meta_description_missing/);
    assert.match(third.stdout, /src\/pages\/about\.astro/);

    const list = await api.call('GET', '/v1/deploys', { key, query: { workspace_id: workspaceId } });
    assert.deepEqual(list.body.data.map((d: { commitSha: string }) => d.commitSha), [c3, c2, c1]);
    const recorded = list.body.data[1];
    assert.deepEqual(recorded.changes, [{ path: 'src/pages/blog.astro', category: 'page', signals: [{ kind: 'meta_robots', change: 'removed', line: 5 }, { kind: 'meta_robots', change: 'added', line: 5 }] }]);
  });

  it('a pipeline: a GitHub push is production and gated; a pull request is a preview (not waited for, or skipped); a GitLab staging job is staging; a website that does not answer exits 6, baseline or not', async (t) => {
    const r = repo();
    const c0 = r.commit('site', { 'index.html': lines('<title>One</title>') });
    const c1 = r.commit('two', { 'index.html': lines('<title>Two</title>') });
    // A website of its own, clean: the other tests of this suite change theirs.
    const clean = await startFixtureSite();
    t.after(() => clean.close());
    clean.set('/', htmlPage({ title: 'Home', description: 'Home page', canonical: clean.url('/'), h1: ['Welcome'], links: [], words: 200 }));
    const owner = await api.owner();
    const workspace = async (website: string) => (await api.call('POST', '/v1/workspaces', { key: owner.apiKey, body: { name: `Pipeline ${crypto.randomUUID()}`, website } })).body.data.id as string;
    const live = await workspace(clean.url('/'));
    const pipelineKey = (await api.key(owner.userId, { scopes: ['deploys', 'search'] })).apiKey;
    const apiEnv = (ws: string) => ({ SITEHEALTH_API_KEY: pipelineKey, SITEHEALTH_URL: api.url, SITEHEALTH_WORKSPACE_ID: ws });
    const args = ['deploy', '--wait', '--fail-on', 'high', '--timeout', '90s', '--poll-interval', '200ms'];
    const deployOf = async (ws: string, sha: string) => {
      const list = await api.call('GET', '/v1/deploys', { key: pipelineKey, query: { workspace_id: ws } });
      const found = list.body.data.find((d: { commitSha: string }) => d.commitSha === sha);
      return found ? (await api.call('GET', `/v1/deploys/${found.id}`, { key: pipelineKey })).body : undefined;
    };

    // A GitHub push: production, checked, the run kept with the deploy.
    const push = await sitehealth(args, { cwd: r.dir, env: { ...githubEnv(c1, c0, { GITHUB_WORKSPACE: r.dir }), ...apiEnv(live) } });
    noKey(push, pipelineKey);
    assert.equal(push.code, 0, show(push));
    const pushed = await deployOf(live, c1);
    assert.equal(pushed.environment, 'production');
    assert.equal(pushed.siteCheck.state, 'finished');
    assert.equal(pushed.ciProvider, 'github');
    assert.equal(pushed.ciRunUrl, 'https://github.com/acme/site/actions/runs/42');

    // A GitHub pull request: a preview, recorded with no check and nothing waited for.
    const c2 = r.commit('feature', { 'index.html': lines('<title>Three</title>') });
    const eventDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehealth-cli-pr-'));
    tmpDirs.push(eventDir);
    fs.writeFileSync(path.join(eventDir, 'event.json'), JSON.stringify({ number: 5, pull_request: { number: 5, base: { sha: c1, ref: 'main' }, head: { sha: c2, ref: 'feature' } } }));
    const prEnv = {
      ...githubEnv(c2, c1, { GITHUB_WORKSPACE: r.dir }),
      GITHUB_EVENT_NAME: 'pull_request', GITHUB_REF: 'refs/pull/5/merge', GITHUB_HEAD_REF: 'feature', GITHUB_BASE_REF: 'main', GITHUB_EVENT_PATH: path.join(eventDir, 'event.json'),
      ...apiEnv(live),
    };
    const pr = await sitehealth(args, { cwd: r.dir, env: prEnv });
    assert.equal(pr.code, 0, show(pr));
    assert.match(pr.stderr, /environment preview \(from the CI context: pull-request\) gets no site check/);
    const previewed = await deployOf(live, c2);
    assert.ok(previewed, show(pr));
    assert.equal(previewed.environment, 'preview');
    assert.equal(previewed.siteCheck, null, 'a preview queues no production check');
    // --skip-previews: nothing is recorded at all.
    const c3 = r.commit('feature 2', { 'index.html': lines('<title>Four</title>') });
    const skipped = await sitehealth([...args, '--skip-previews'], { cwd: r.dir, env: { ...prEnv, GITHUB_SHA: c3 } });
    assert.equal(skipped.code, 0, show(skipped));
    assert.match(skipped.stdout, /Skipped: a pull or merge request build/);
    assert.equal(await deployOf(live, c3), undefined, 'a skipped preview is not recorded');

    // A GitLab job deploying to staging: staging, with the job's page.
    const gitlab = await sitehealth(args, {
      cwd: r.dir,
      env: {
        CI: 'true', GITLAB_CI: 'true', CI_COMMIT_SHA: c3, CI_COMMIT_BEFORE_SHA: c2, CI_COMMIT_REF_NAME: 'main', CI_PIPELINE_ID: '7', CI_JOB_ID: '9',
        CI_PROJECT_URL: 'https://gitlab.com/acme/site', CI_PROJECT_PATH: 'acme/site', CI_PROJECT_DIR: r.dir, CI_ENVIRONMENT_NAME: 'staging',
        CI_JOB_URL: 'https://gitlab.com/acme/site/-/jobs/9', ...apiEnv(live),
      },
    });
    assert.equal(gitlab.code, 0, show(gitlab));
    const staged = await deployOf(live, c3);
    assert.equal(staged.environment, 'staging');
    assert.equal(staged.siteCheck, null);
    assert.deepEqual([staged.ciProvider, staged.ciRunUrl], ['gitlab', 'https://gitlab.com/acme/site/-/jobs/9']);

    // A website that does not answer: exit 6 with the reason, on the first check (no baseline)
    // and again when the baseline was down too (nothing "got worse", and the site is still down).
    const gone = await startFixtureSite();
    const goneUrl = gone.url('/');
    await gone.close();
    const down = await workspace(goneUrl);
    for (const [sha, before] of [[c1, c0], [c2, c1]]) {
      const res = await sitehealth(args, { cwd: r.dir, env: { ...githubEnv(sha, before, { GITHUB_WORKSPACE: r.dir }), ...apiEnv(down) } });
      assert.equal(res.code, EXIT_CODES.checkFailed, show(res));
      assert.match(res.stderr, new RegExp(`the website did not answer: ${goneUrl.replace(/[.]/g, '\\.')} could not be fetched`));
      assert.doesNotMatch(res.stdout, /No findings/);
    }
    assert.notEqual((await deployOf(down, c2)).baseline, null, 'the second check had a baseline');
  });

  it('doctor checks the key, its scopes, the workspace and the git state, and records nothing', async () => {
    const r = repo();
    const c0 = r.commit('one', { 'index.html': lines('<title>One</title>') });
    r.commit('two', { 'index.html': lines('<title>Two</title>') });
    const before = (await api.call('GET', '/v1/deploys', { key, query: { workspace_id: workspaceId } })).body.data.length;
    const env = { SITEHEALTH_API_KEY: key, SITEHEALTH_URL: api.url, SITEHEALTH_WORKSPACE_ID: workspaceId };
    const good = await sitehealth(['doctor'], { cwd: r.dir, env });
    assert.equal(good.code, 0, show(good));
    assert.match(good.stdout, /^ok {3}key: accepted by .*, with the deploys scope$/m);
    assert.match(good.stdout, /^ok {3}search scope: present/m);
    assert.match(good.stdout, new RegExp(`^ok {3}workspace: ${workspaceId} is visible to the key$`, 'm'));
    assert.match(good.stdout, new RegExp(`^ok {3}git: local: commit [0-9a-f]{12} on main, environment production; compared with ${c0.slice(0, 12)} \\(parent\\)$`, 'm'));

    const json = await sitehealth(['doctor', '--json', '--base', 'no-such-branch'], { cwd: r.dir, env: { ...env, SITEHEALTH_API_KEY: deploysOnlyKey } });
    noKey(json, deploysOnlyKey);
    assert.equal(json.code, 2, show(json));
    const report = JSON.parse(json.stdout) as { ok: boolean; checks: Array<{ name: string; ok: boolean; detail: string }> };
    assert.equal(report.ok, false);
    assert.deepEqual(report.checks.map((c) => [c.name, c.ok]), [['key', true], ['search scope', false], ['git', false]]);
    assert.match(report.checks[1].detail, /`search` scope/);
    assert.match(report.checks[2].detail, /base no-such-branch \(option\) is not in this clone/);

    const wrong = await sitehealth(['doctor'], { cwd: r.dir, env: { ...env, SITEHEALTH_API_KEY: `sh_${'x'.repeat(40)}` } });
    assert.equal(wrong.code, 2, show(wrong));
    assert.match(wrong.stdout, /^FAIL key: not accepted by .* \(401\)/m);
    const hidden = await sitehealth(['doctor', '--workspace', crypto.randomUUID()], { cwd: r.dir, env });
    assert.equal(hidden.code, 2, show(hidden));
    assert.match(hidden.stdout, /^FAIL workspace: workspace .* does not exist or this key cannot see it/m);
    assert.equal((await api.call('GET', '/v1/deploys', { key, query: { workspace_id: workspaceId } })).body.data.length, before, 'nothing was recorded');
  });

  it('a key without the search scope is told so before anything is recorded', async () => {
    const r = repo();
    r.commit('one', { 'index.html': lines('<title>One</title>') });
    const head = r.commit('two', { 'index.html': lines('<title>Two</title>') });
    const res = await sitehealth(['deploy', '--wait', '--fail-on', 'high'], {
      cwd: r.dir,
      env: { SITEHEALTH_API_KEY: deploysOnlyKey, SITEHEALTH_URL: api.url, SITEHEALTH_WORKSPACE_ID: workspaceId },
    });
    noKey(res, deploysOnlyKey);
    assert.equal(res.code, 2, show(res));
    assert.match(res.stderr, /`search` scope/);
    const list = await api.call('GET', '/v1/deploys', { key, query: { workspace_id: workspaceId } });
    assert.ok(!list.body.data.some((d: { commitSha: string }) => d.commitSha === head), 'nothing was recorded');
    // Without --wait the same key records.
    const ok = await sitehealth(['deploy'], { cwd: r.dir, env: { SITEHEALTH_API_KEY: deploysOnlyKey, SITEHEALTH_URL: api.url, SITEHEALTH_WORKSPACE_ID: workspaceId } });
    assert.equal(ok.code, 0, show(ok));
  });
});
