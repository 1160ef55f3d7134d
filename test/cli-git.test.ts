// The SDK's CI diff plumbing on real git repositories: renames, deletions, binary files, odd
// paths, the server's caps, shallow clones, a large streamed diff, the pure diff-text parser, and
// the deploy body (which must never carry a changed line's content).
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildDeployBody, changesFromGit } from '@sitehealth/cli';
import type { Signal } from '@sitehealth/sdk';
import { changesFromDiffText, detectSignals, unquoteGitPath, UnifiedDiffParser, MAX_DIFF_LINE_BYTES, type AnalyzedChange } from '@sitehealth/sdk/signals';
import { GitRepo, lines } from './support/git-repo.ts';

function sig(kind: Signal['kind'], change: 'a' | 'r', line?: number): Signal {
  const s: Signal = { kind, change: change === 'a' ? 'added' : 'removed' };
  if (line !== undefined) s.line = line;
  return s;
}

const repos: GitRepo[] = [];
after(() => {
  for (const r of repos) r.dispose();
});
function repo(): GitRepo {
  const r = GitRepo.create();
  repos.push(r);
  return r;
}

/**
 * NUL bytes make git report a binary file; contents from different seeds share nothing, so git
 * never pairs a deleted and an added one as a rename.
 */
const binary = (seed: number) => {
  const out = Buffer.alloc(512);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < out.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = i % 16 === 0 ? 0 : x >>> 24;
  }
  return out;
};

describe('changesFromGit: renames, deletions, binary files, odd paths', () => {
  it('a renamed page is a route removed and a route added; edited lines carry old and new numbers', async () => {
    const r = repo();
    const page = (title: string) => lines(
      '---',
      "import Layout from '../layouts/Layout.astro';",
      '---',
      `<Layout title="${title}">`,
      '  <h1>About Acme</h1>',
      '  <p>We make widgets. We have made widgets since 1999, in three factories, for customers in',
      '  forty countries, and we intend to keep making widgets for a long time to come.</p>',
      '</Layout>',
    );
    const base = r.commit('base', {
      'src/pages/about.astro': page('About'),
      'src/pages/team.astro': lines('<h1>Team</h1>', '<p>Alice, Bob, Carol, Dave, Erin, Frank, Grace, Heidi, Ivan, Judy.</p>'),
      'src/components/Card.astro': lines('<div class="card"><slot /></div>'),
    });
    r.git('mv', 'src/pages/team.astro', 'src/pages/people.astro');
    r.git('mv', 'src/components/Card.astro', 'src/components/Tile.astro');
    r.git('mv', 'src/pages/about.astro', 'src/pages/company.astro');
    const head = r.commit('rename', { 'src/pages/company.astro': page('Company') });
    const result = await changesFromGit({ cwd: r.dir, base, head });
    assert.deepEqual(result, {
      changes: [
        { path: 'src/components/Tile.astro', category: 'component', signals: [] },
        {
          path: 'src/pages/company.astro',
          category: 'page',
          signals: [sig('route', 'r'), sig('route', 'a'), sig('title', 'r', 4), sig('title', 'a', 4)],
        },
        { path: 'src/pages/people.astro', category: 'page', signals: [sig('route', 'r'), sig('route', 'a')] },
      ],
      warnings: [],
      totalFiles: 3,
      baseMissing: false,
    });
  });

  it('deleted content and assets: every removed signal at its old line, the route and the image gone', async () => {
    const r = repo();
    const base = r.commit('base', {
      'content/blog/launch.md': lines('---', 'title: Launch', 'canonical: https://acme.dev/blog/launch/', '---', '', '# Launch day', '', '![Team](/img/team.jpg)'),
      'static/img/team.jpg': binary(1),
      'layouts/_default/single.html': lines('<article>{{ .Content }}</article>'),
    });
    const head = r.commit('delete', { 'content/blog/launch.md': null, 'static/img/team.jpg': null });
    const result = await changesFromGit({ cwd: r.dir, base, head });
    assert.deepEqual(result.changes, [
      {
        path: 'content/blog/launch.md',
        category: 'content',
        // `---` front matter lines come out of git as `----`: still removed lines, not headers.
        signals: [sig('route', 'r'), sig('title', 'r', 2), sig('canonical', 'r', 3), sig('heading', 'r', 6), sig('image', 'r', 8)],
      },
      { path: 'static/img/team.jpg', category: 'asset', signals: [sig('image', 'r')] },
    ]);
    assert.deepEqual(result.warnings, []);
  });

  it('binary files: modified ones have no signals, added fonts and images are file-level signals', async () => {
    const r = repo();
    const base = r.commit('base', { 'public/images/hero image.png': binary(1), 'public/og.webp': binary(7) });
    const head = r.commit('binary', {
      'public/images/hero image.png': binary(2),
      'public/fonts/Inter Var.woff2': binary(3),
      'public/og.webp': null,
    });
    const result = await changesFromGit({ cwd: r.dir, base, head });
    assert.deepEqual(result.changes, [
      { path: 'public/fonts/Inter Var.woff2', category: 'asset', signals: [sig('font', 'a')] },
      { path: 'public/images/hero image.png', category: 'asset', signals: [] },
      { path: 'public/og.webp', category: 'asset', signals: [sig('image', 'r')] },
    ]);
  });

  it('paths with spaces, unicode, quotes and tabs come back exactly', async () => {
    const r = repo();
    const page = (h: string) => lines(`<title>${h}</title>`, '<p>Le texte de la page, assez long pour rester la même page après un renommage.</p>');
    const base = r.commit('base', {
      'content/blog/été 2024.md': lines('# Été', '', 'Texte.'),
      'src/pages/old name.astro': page('Ancien'),
      'public/say "hi".html': lines('<h1>Hi</h1>'),
      'public/tab\there.html': lines('<h1>Tab</h1>'),
    });
    r.git('mv', 'src/pages/old name.astro', 'src/pages/nouveau nöm.astro');
    const head = r.commit('odd paths', {
      'content/blog/été 2024.md': lines('# Été 2024', '', 'Texte.'),
      'src/pages/nouveau nöm.astro': page('Nouveau'),
      'public/say "hi".html': lines('<h1>Hello</h1>'),
      'public/tab\there.html': lines('<h2>Tab</h2>'),
      'docs/ünïcödé guide.md': lines('# Guide'),
    });
    const result = await changesFromGit({ cwd: r.dir, base, head });
    assert.deepEqual(result.changes, [
      { path: 'content/blog/été 2024.md', category: 'content', signals: [sig('heading', 'r', 1), sig('heading', 'a', 1)] },
      { path: 'docs/ünïcödé guide.md', category: 'docs', signals: [] },
      { path: 'public/say "hi".html', category: 'page', signals: [sig('heading', 'r', 1), sig('heading', 'a', 1)] },
      { path: 'public/tab\there.html', category: 'page', signals: [sig('heading', 'r', 1), sig('heading', 'a', 1)] },
      { path: 'src/pages/nouveau nöm.astro', category: 'page', signals: [sig('route', 'r'), sig('route', 'a'), sig('title', 'r', 1), sig('title', 'a', 1)] },
    ]);
  });

  it('a symlink that becomes a file is one change; CRLF lines keep their numbers', async () => {
    const r = repo();
    r.write('real.html', lines('<h1>Real</h1>'));
    fs.symlinkSync('real.html', path.join(r.dir, 'alias.html'));
    const base = r.commit('base', { 'win.html': '<html>\r\n<title>Old</title>\r\n</html>\r\n' });
    fs.rmSync(path.join(r.dir, 'alias.html'));
    const head = r.commit('type change', { 'alias.html': lines('<title>Alias</title>'), 'win.html': '<html>\r\n<title>New</title>\r\n</html>\r\n' });
    const result = await changesFromGit({ cwd: r.dir, base, head });
    assert.deepEqual(result.changes, [
      { path: 'alias.html', category: 'page', signals: [sig('title', 'a', 1)] },
      { path: 'win.html', category: 'page', signals: [sig('title', 'r', 2), sig('title', 'a', 2)] },
    ]);
  });

  it('the repository\'s git config cannot change what is parsed', async () => {
    // An order file, no prefixes, colour or an external diff would change the patch unless
    // overridden; quoted octal paths and merged hunks with context lines are parsed either way.
    const r = repo();
    const page = (a: string, b: string) => lines(`<title>${a}</title>`, '<p>one</p>', '<p>two</p>', `<h1>${b}</h1>`, '<p>three, long enough to stay the same file</p>');
    const base = r.commit('base', { 'a.html': page('A', 'A'), 'zé.html': page('Z', 'Z') });
    fs.writeFileSync(path.join(r.dir, 'order.txt'), 'zè.html\n');
    for (const [key, value] of [
      ['diff.noprefix', 'true'], ['diff.mnemonicPrefix', 'true'], ['diff.interHunkContext', '10'], ['diff.context', '7'],
      ['diff.orderFile', path.join(r.dir, 'order.txt')], ['core.quotePath', 'true'], ['diff.external', 'false'],
      ['diff.renames', 'false'], ['color.ui', 'always'], ['color.diff', 'always'], ['diff.submodule', 'diff'],
    ]) r.git('config', key, value);
    r.git('mv', 'zé.html', 'zè.html');
    const head = r.commit('edit', { 'a.html': page('A2', 'A2'), 'zè.html': page('Z2', 'Z') });
    const result = await changesFromGit({ cwd: r.dir, base, head });
    assert.deepEqual(result.changes, [
      { path: 'a.html', category: 'page', signals: [sig('title', 'r', 1), sig('title', 'a', 1), sig('heading', 'r', 4), sig('heading', 'a', 4)] },
      { path: 'order.txt', category: 'docs', signals: [] },
      { path: 'zè.html', category: 'page', signals: [sig('route', 'r'), sig('route', 'a'), sig('title', 'r', 1), sig('title', 'a', 1)] },
    ]);
  });

  it('a head that is not a commit throws; a base of HEAD~1 works', async () => {
    const r = repo();
    r.commit('one', { 'index.html': lines('<h1>One</h1>') });
    r.commit('two', { 'index.html': lines('<h1>Two</h1>') });
    await assert.rejects(changesFromGit({ cwd: r.dir, base: 'HEAD~1', head: 'refs/heads/nope' }), /head refs\/heads\/nope is not a commit/);
    await assert.rejects(changesFromGit({ cwd: r.dir, base: '--output=/tmp/x', head: 'HEAD' }), TypeError);
    const result = await changesFromGit({ cwd: r.dir, base: 'HEAD~1' });
    assert.deepEqual(result.changes, [{ path: 'index.html', category: 'page', signals: [sig('heading', 'r', 1), sig('heading', 'a', 1)] }]);
  });
});

describe('changesFromGit: caps', () => {
  it('more than 500 files: 500 changes, the telling ones kept, a warning', async () => {
    const r = repo();
    const base = r.commit('base', { 'README.md': 'x\n' });
    const files: Record<string, string> = {};
    for (let i = 0; i < 520; i++) files[`test/case-${String(i).padStart(3, '0')}.test.ts`] = `export const n = ${i};\n`;
    files['public/robots.txt'] = lines('User-agent: *', 'Disallow: /admin');
    files['src/pages/index.astro'] = lines('<h1>Home</h1>');
    const head = r.commit('many', files);
    const result = await changesFromGit({ cwd: r.dir, base, head });
    assert.equal(result.changes.length, 500);
    assert.equal(result.totalFiles, 522);
    assert.deepEqual(result.warnings, [
      '522 files changed; kept 500 (the most a deploy may list), preferring robots, sitemap, redirects, headers, routing, templates and pages',
    ]);
    // Diff order is kept: public/ and src/ sort after nothing here but before test/.
    assert.deepEqual(result.changes[0], { path: 'public/robots.txt', category: 'robots', signals: [sig('robots_rule', 'a', 1), sig('robots_rule', 'a', 2)] });
    assert.deepEqual(result.changes[1], { path: 'src/pages/index.astro', category: 'page', signals: [sig('route', 'a'), sig('heading', 'a', 1)] });
    assert.equal(result.changes[2].path, 'test/case-000.test.ts');
    assert.equal(result.changes[499].path, 'test/case-497.test.ts');
    assert.equal(result.changes.filter((c) => c.category === 'test').length, 498);
  });

  it('a custom maxFiles cap applies the same way', async () => {
    const r = repo();
    const base = r.commit('base', { 'README.md': 'x\n' });
    const head = r.commit('three', { 'a.css': 'a{}\n', 'b.html': '<p>b</p>\n', 'docs/c.md': 'c\n' });
    const result = await changesFromGit({ cwd: r.dir, base, head, maxFiles: 2 });
    assert.deepEqual(result.changes.map((c) => c.path), ['a.css', 'b.html']);
    assert.equal(result.warnings.length, 1);
  });

  it('more than 50 signals in one file: 50 kept, the most telling first, a warning', async () => {
    const r = repo();
    const base = r.commit('base', { 'index.html': lines('<html>', '</html>') });
    const body: string[] = ['<html>'];
    for (let i = 0; i < 60; i++) body.push(`<a href="/p/${i}">Item ${i}</a>`);
    body.push('<meta name="robots" content="noindex">', '</html>');
    const head = r.commit('links', { 'index.html': lines(...body) });
    const result = await changesFromGit({ cwd: r.dir, base, head });
    const signals = result.changes[0].signals;
    assert.equal(signals.length, 50);
    // 60 links on new lines 2..61 and the robots meta on 62: the robots meta survives the cut.
    assert.deepEqual(signals, [...Array.from({ length: 49 }, (_, i) => sig('link', 'a', i + 2)), sig('meta_robots', 'a', 62)]);
    assert.deepEqual(result.warnings, ['index.html: more than 50 signals; kept the 50 most telling']);
  });
});

describe('changesFromGit: shallow clones', () => {
  it('a base missing from a --depth 1 clone gives baseMissing, no changes and a warning, without throwing', async () => {
    const r = repo();
    const first = r.commit('one', { 'index.html': lines('<title>One</title>') });
    r.commit('two', { 'index.html': lines('<title>Two</title>') });
    r.commit('three', { 'index.html': lines('<title>Three</title>') });
    const clone = GitRepo.clone(['--depth', '1', `file://${r.dir}`]);
    repos.push(clone);
    assert.equal(clone.git('rev-list', '--count', 'HEAD').trim(), '1');
    const result = await changesFromGit({ cwd: clone.dir, base: first, head: 'HEAD' });
    assert.deepEqual(result, {
      changes: [],
      warnings: [
        `base commit ${first} is not in this clone (a shallow checkout?): recording the deploy without changes; ` +
        'fetch more history (e.g. actions/checkout with fetch-depth: 0, or git fetch --deepen) to send them',
      ],
      totalFiles: 0,
      baseMissing: true,
    });
    // HEAD~1 is not there either.
    assert.equal((await changesFromGit({ cwd: clone.dir, base: 'HEAD~1' })).baseMissing, true);
  });

  it('no base at all is the same, with its own warning', async () => {
    const r = repo();
    r.commit('one', { 'index.html': 'x\n' });
    for (const base of [undefined, null, '', '  ']) {
      assert.deepEqual(await changesFromGit({ cwd: r.dir, base }), {
        changes: [],
        warnings: ['no base commit to compare with: recording the deploy without changes'],
        totalFiles: 0,
        baseMissing: true,
      });
    }
  });
});

describe('large diffs stream', () => {
  it('a ~100 MB diff is read without holding it: memory grows far less than the diff', async (t) => {
    const r = repo();
    const base = r.commit('base', { 'README.md': 'x\n' });
    // Written by a child process, so this process's memory is measured from a small baseline.
    const script = `
      const fs = require('node:fs');
      const row = (i) => '<li><a href="/p/' + i + '">Product ' + i + '</a><img src="/i/' + i + '.webp" loading="lazy" alt=""></li>\\n';
      for (const name of ['a.html', 'b.html']) {
        const fd = fs.openSync(name, 'w');
        let chunk = '';
        for (let i = 0; i < 450000; i++) {
          if (i === 225000) chunk += '<meta name="robots" content="noindex">\\n';
          chunk += row(i);
          if (chunk.length > 1 << 20) { fs.writeSync(fd, chunk); chunk = ''; }
        }
        fs.writeSync(fd, chunk);
        fs.closeSync(fd);
      }
      // One 8 MB line, as minified bundles are; only its first MAX_DIFF_LINE_BYTES are read.
      fs.writeFileSync('bundle.min.js', 'var x=1;'.repeat(1 << 20) + 'process.env.LATE\\n');
    `;
    execFileSync(process.execPath, ['-e', script], { cwd: r.dir });
    const head = r.commit('big', {});
    const diffBytes = fs.statSync(path.join(r.dir, 'a.html')).size * 2 + (8 << 20);
    assert.ok(diffBytes > 90e6, `diff of ${diffBytes} bytes`);

    const before = process.memoryUsage().rss;
    let peak = before;
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const result = await changesFromGit({ cwd: r.dir, base, head });
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage().rss);

    t.diagnostic(`RSS grew ${Math.round((peak - before) / 1e6)} MB for a ${Math.round(diffBytes / 1e6)} MB diff`);
    assert.ok(peak - before < diffBytes / 2, `RSS grew ${Math.round((peak - before) / 1e6)} MB for a ${Math.round(diffBytes / 1e6)} MB diff`);
    assert.deepEqual(result.changes.map((c) => [c.path, c.category, c.signals.length]), [
      ['a.html', 'page', 50],
      ['b.html', 'page', 50],
      ['bundle.min.js', 'script', 0],
    ]);
    // The noindex in the middle of each file outranks its links and images.
    for (const c of result.changes.slice(0, 2)) {
      assert.deepEqual(c.signals.filter((s) => s.kind === 'meta_robots'), [sig('meta_robots', 'a', 225_001)]);
    }
    assert.deepEqual(result.warnings, [
      'a.html: more than 50 signals; kept the 50 most telling',
      'b.html: more than 50 signals; kept the 50 most telling',
    ]);
    assert.equal(MAX_DIFF_LINE_BYTES, 1 << 20);
  });
});

describe('changesFromDiffText and the parser', () => {
  const text = [
    'diff --git a/src/pages/old.astro b/src/pages/new page.astro',
    'similarity index 90%',
    'rename from src/pages/old.astro',
    'rename to src/pages/new page.astro',
    'index 1111111..2222222 100644',
    '--- a/src/pages/old.astro',
    '+++ b/src/pages/new page.astro\t',
    '@@ -3 +3 @@',
    '-<title>Old</title>',
    '+<title>New</title>',
    'diff --git a/content/post.md b/content/post.md',
    'deleted file mode 100644',
    'index 3333333..0000000',
    '--- a/content/post.md',
    '+++ /dev/null',
    '@@ -1,4 +0,0 @@',
    '----',
    '-title: Post',
    '----',
    '-# Heading',
    'diff --git "a/public/caf\\303\\251 \\"x\\".png" "b/public/caf\\303\\251 \\"x\\".png"',
    'new file mode 100644',
    'index 0000000..4444444',
    'Binary files /dev/null and "b/public/caf\\303\\251 \\"x\\".png" differ',
    'diff --git a/robots.txt b/robots.txt',
    'index 5555555..6666666 100644',
    '--- a/robots.txt',
    '+++ b/robots.txt',
    '@@ -2,0 +3,2 @@ User-agent: *',
    '+Disallow: /private',
    '+Sitemap: https://acme.dev/sitemap.xml',
    '\\ No newline at end of file',
    'diff --git a/a b.html b/a b.html',
    'old mode 100644',
    'new mode 100755',
    '',
  ].join('\n');

  it('reads renames, deletions, binary files, quoted names and hunk counts from the headers', () => {
    assert.deepEqual(changesFromDiffText(text), {
      changes: [
        { path: 'src/pages/new page.astro', category: 'page', signals: [sig('route', 'r'), sig('route', 'a'), sig('title', 'r', 3), sig('title', 'a', 3)] },
        { path: 'content/post.md', category: 'content', signals: [sig('route', 'r'), sig('title', 'r', 2), sig('heading', 'r', 4)] },
        { path: 'public/café "x".png', category: 'asset', signals: [sig('image', 'a')] },
        { path: 'robots.txt', category: 'robots', signals: [sig('robots_rule', 'a', 3), sig('sitemap_entry', 'a', 4)] },
        { path: 'a b.html', category: 'page', signals: [] },
      ],
      warnings: [],
      totalFiles: 5,
    });
  });

  it('caps files and signals with warnings', () => {
    const big = Array.from({ length: 3 }, (_, i) => [
      `diff --git a/p${i}.html b/p${i}.html`,
      `--- a/p${i}.html`,
      `+++ b/p${i}.html`,
      '@@ -0,0 +1,3 @@',
      '+<h1>a</h1>',
      '+<h2>b</h2>',
      '+<title>c</title>',
    ].join('\n')).join('\n');
    const result = changesFromDiffText(big, { maxFiles: 2, maxSignalsPerFile: 2 });
    assert.deepEqual(result.changes, [
      { path: 'p0.html', category: 'page', signals: [sig('heading', 'a', 1), sig('title', 'a', 3)] },
      { path: 'p1.html', category: 'page', signals: [sig('heading', 'a', 1), sig('title', 'a', 3)] },
    ]);
    assert.deepEqual(result.warnings, [
      '3 files changed; kept 2 (the most a deploy may list), preferring robots, sitemap, redirects, headers, routing, templates and pages',
      'p0.html: more than 2 signals; kept the 2 most telling',
      'p1.html: more than 2 signals; kept the 2 most telling',
    ]);
  });

  it('feeds lines in chunks of any size with the same result, and cuts over-long lines', () => {
    const seen: string[] = [];
    const parser = new UnifiedDiffParser({
      file: (h) => ({ line: (change, n, t, section) => seen.push(`${h.path}|${change}|${n}|${t.length}|${section ?? ''}`) }),
    });
    const long = 'x'.repeat(MAX_DIFF_LINE_BYTES + 5000);
    const input = Buffer.from(`diff --git a/f.js b/f.js\n--- a/f.js\n+++ b/f.js\n@@ -1 +1 @@ const a = {\n-${long}\n+é\n`);
    for (let i = 0; i < input.length; i += 7777) parser.write(input.subarray(i, i + 7777));
    parser.end();
    // The cut keeps MAX_DIFF_LINE_BYTES bytes of the line, of which one is the `-` marker.
    assert.deepEqual(seen, [`f.js|removed|1|${MAX_DIFF_LINE_BYTES - 1}|const a = {`, 'f.js|added|1|1|const a = {']);
  });

  it('unquotes git C-quoted paths', () => {
    assert.deepEqual(unquoteGitPath('"a/caf\\303\\251\\t\\"q\\"\\\\" rest'), { value: 'a/café\t"q"\\', rest: ' rest' });
    assert.deepEqual(unquoteGitPath('plain'), { value: 'plain', rest: '' });
  });
});

describe('buildDeployBody: nothing but paths, categories, signals and commit metadata', () => {
  it('no changed line content reaches the body, even with secrets in the diff', async () => {
    const r = repo();
    const secret = 'sk_live_51HqLyjWDarjtT1zdp7dcXYZ0aQ9mPpT';
    const base = r.commit('base', {
      '.env.production': lines(`STRIPE_SECRET_KEY=${secret}`),
      'src/app/layout.tsx': lines('export const metadata = {', "  title: 'Acme Internal Codename BLUEBIRD',", '};'),
      'index.html': lines('<meta name="robots" content="index" data-token="ghp_q1w2e3r4t5y6u7i8o9p0ASDFGHJKLzxcv">'),
    });
    const head = r.commit('secrets', {
      '.env.production': lines(`STRIPE_SECRET_KEY=${secret.replace('X', 'Y')}`, 'DATABASE_URL=postgres://admin:hunter2@db.internal:5432/acme'),
      'src/app/layout.tsx': lines('export const metadata = {', "  title: 'Acme Internal Codename REDWING',", '};'),
      'index.html': lines('<meta name="robots" content="noindex" data-token="ghp_ZZZ2e3r4t5y6u7i8o9p0ASDFGHJKLzxcv">'),
    });
    const { changes } = await changesFromGit({ cwd: r.dir, base, head });
    const body = buildDeployBody({ commitSha: head, ref: 'main', environment: 'production', message: 'Deploy', changes });
    const json = JSON.stringify(body);

    const diff = r.git('diff', '--unified=0', base, head);
    const changedLines = diff.split('\n').filter((l) => /^[+-](?![+-]{2} )/.test(l)).map((l) => l.slice(1)).filter((l) => l.trim().length > 3);
    assert.equal(changedLines.length, 7);
    for (const l of changedLines) assert.ok(!json.includes(l), `a changed line leaked: ${l}`);
    for (const token of ['sk_live', 'hunter2', 'BLUEBIRD', 'REDWING', 'ghp_', 'postgres://', 'noindex', 'STRIPE']) {
      assert.ok(!json.includes(token), `${token} leaked`);
    }
    assert.deepEqual(body, {
      commitSha: head,
      environment: 'production',
      ref: 'main',
      message: 'Deploy',
      changes: [
        { path: '.env.production', category: 'config', signals: [sig('env', 'r', 1), sig('env', 'a', 1), sig('env', 'a', 2)] },
        { path: 'index.html', category: 'page', signals: [sig('meta_robots', 'r', 1), sig('meta_robots', 'a', 1)] },
        { path: 'src/app/layout.tsx', category: 'template', signals: [sig('title', 'r', 2), sig('title', 'a', 2)] },
      ],
    });
  });

  it('rebuilds changes from known fields only and keeps to the server limits', () => {
    const sneaky = {
      path: 'index.html',
      category: 'page',
      code: '<script>steal()</script>',
      signals: [
        { kind: 'title', change: 'added', line: 3, text: '<title>secret</title>' },
        { kind: 'title', change: 'added', line: 3 },
        { kind: 'not_a_kind', change: 'added', line: 4 },
        { kind: 'canonical', change: 'changed', line: 5 },
        { kind: 'heading', change: 'removed', line: 0 },
        { kind: 'heading', change: 'removed', line: 20_000_000 },
        { kind: 'link', change: 'removed', line: 2.5 },
      ],
    } as unknown as AnalyzedChange;
    const many = Array.from({ length: 520 }, (_, i) => ({ path: `p/${i}.html`, category: 'page' as const, signals: [] }));
    const tooManySignals = { path: 'x.html', category: 'bogus', signals: Array.from({ length: 60 }, (_, i) => sig('link', 'a', i + 1)) } as unknown as AnalyzedChange;
    const body = buildDeployBody({
      commitSha: ' ABCDEF1 ',
      ref: 'r'.repeat(300),
      message: 'm'.repeat(2500),
      deployedAt: new Date('2024-05-01T12:00:00Z'),
      workspaceId: '',
      changes: [sneaky, tooManySignals, { path: 'index.html', category: 'page', signals: [] }, { path: 'y'.repeat(1025), category: 'page', signals: [] }, ...many],
    });
    assert.equal(body.commitSha, 'ABCDEF1');
    assert.equal(body.ref, 'r'.repeat(255));
    assert.equal(body.message?.length, 2000);
    assert.ok(body.message?.endsWith('…'));
    assert.equal(body.deployedAt, '2024-05-01T12:00:00.000Z');
    assert.equal('workspaceId' in body, false);
    assert.equal('environment' in body, false);
    assert.equal(body.changes?.length, 500);
    assert.deepEqual(body.changes?.[0], {
      path: 'index.html',
      category: 'page',
      signals: [sig('title', 'a', 3), sig('heading', 'r'), sig('link', 'r')],
    });
    assert.equal(body.changes?.[1].category, 'other');
    assert.equal(body.changes?.[1].signals?.length, 50);
    assert.equal(body.changes?.[2].path, 'p/0.html');
    assert.ok(!JSON.stringify(body).includes('steal') && !JSON.stringify(body).includes('secret'));
    assert.throws(() => buildDeployBody({ commitSha: 'not-a-sha' }), TypeError);
    assert.throws(() => buildDeployBody({ commitSha: 'abc12' }), TypeError);
  });

  it('detectSignals is the same analysis on lines in hand', () => {
    assert.deepEqual(
      detectSignals('src/layouts/Base.astro', { removed: [{ line: 12, text: '<link rel="canonical" href={url} />' }], added: [{ line: 12, text: '<link rel="canonical" href={url + "/"} />' }] }),
      [sig('canonical', 'r', 12), sig('canonical', 'a', 12)],
    );
    assert.deepEqual(detectSignals('test/fixtures/page.html', { added: [{ line: 1, text: '<meta name="robots" content="noindex">' }] }), []);
  });
});
