// Running git without a shell and without holding its output in memory: the file list from
// `--name-status -z`, changed lines from a streamed `--unified=0` patch fed to the SDK's parser.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { devNull, tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnifiedDiffParser, type ChangedFile, type DiffParserHandler } from '@sitehealth/sdk/signals';

/** Raised when git fails for a reason other than a missing revision. */
export class GitError extends Error {
  readonly code: number | null;
  readonly stderr: string;
  constructor(message: string, code: number | null, stderr: string) {
    super(message);
    this.name = 'GitError';
    this.code = code;
    this.stderr = stderr;
  }
}

/** Options every call passes, so a user's git config cannot change what we read. */
const BASE_CONFIG = [
  '-c', 'core.quotePath=false', '-c', 'diff.noprefix=false', '-c', 'diff.mnemonicPrefix=false', '-c', 'color.ui=false',
  // An order file would reorder the output; the null device keeps git's path order.
  '-c', `diff.orderFile=${devNull}`,
];

/**
 * Hunk-header function context per file kind, as POSIX extended regexes (git's `xfuncname`).
 * Each hunk header then names the nearest preceding section opener (`async redirects() {`,
 * `"dependencies": {`, `[[redirects]]`), which `signals.ts` reads as the changed lines' context.
 * For JS-like files a line at column 0 also matches, so leaving a section resets the context.
 */
const XFUNCNAME: Record<string, string> = {
  shjs: '^([A-Za-z_$@<})].*|[[:space:]]+.*(metadata|Metadata|useHead|useHeadSafe|useSeoMeta|useServerSeoMeta|useServerHead|siteMetadata|seo|head|robots|alternates|languages|openGraph|twitter|redirects|redirect|rewrites|headers|routeRules)[[:space:]]*(\\(|:|=).*)$',
  shpkg: '^([[:space:]]*"[^"]*"[[:space:]]*:[[:space:]]*[[{].*)$',
  shhost: '^([[:space:]]*"(redirects|rewrites|routes|headers|env)"[[:space:]]*:[[:space:]]*[[{].*)$',
  shtoml: '^([[:space:]]*\\[.*|[[:space:]]*[A-Za-z0-9_."\'-]*(dependencies|requires|dev)[[:space:]]*=[[:space:]]*\\[[[:space:]]*)$',
};
const ATTRIBUTES = [
  ...['js', 'mjs', 'cjs', 'ts', 'mts', 'cts', 'jsx', 'tsx', 'vue', 'svelte', 'astro'].map((e) => `*.${e} diff=shjs`),
  'package.json diff=shpkg',
  'composer.json diff=shpkg',
  ...['vercel.json', 'now.json', 'firebase.json', 'staticwebapp.config.json', 'serve.json'].map((f) => `${f} diff=shhost`),
  ...['netlify.toml', 'pyproject.toml', 'Pipfile', 'Cargo.toml'].map((f) => `${f} diff=shtoml`),
].join('\n');

function assertRevision(rev: string, what: string): void {
  if (typeof rev !== 'string' || rev === '' || rev.startsWith('-') || /[\0\s]/.test(rev)) {
    throw new TypeError(`${what}: not a usable git revision: ${JSON.stringify(rev)}`);
  }
}

/** Runs git for a small answer. Resolves with the exit code instead of throwing on a non-zero exit. */
export function runGit(cwd: string, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('git', [...BASE_CONFIG, ...args], { cwd, encoding: 'utf8', maxBuffer: 16 << 20, windowsHide: true }, (err, stdout, stderr) => {
      if (err && typeof (err as NodeJS.ErrnoException).code === 'string') {
        reject(new GitError(`cannot run git: ${err.message}`, null, String(stderr ?? '')));
        return;
      }
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Whether `rev` names a commit present in the repository at `cwd` (`git cat-file -e rev^{commit}`). */
export async function commitExists(cwd: string, rev: string): Promise<boolean> {
  assertRevision(rev, 'commitExists');
  const r = await runGit(cwd, ['cat-file', '-e', `${rev}^{commit}`]);
  if (r.code !== 0 && /not a git repository/i.test(r.stderr)) throw new GitError(`not a git repository: ${cwd}`, r.code, r.stderr);
  return r.code === 0;
}

/** The full SHA of `rev`, or null when it does not name a commit here. */
export async function resolveCommit(cwd: string, rev: string): Promise<string | null> {
  assertRevision(rev, 'resolveCommit');
  const r = await runGit(cwd, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`]);
  if (r.code !== 0 && /not a git repository/i.test(r.stderr)) throw new GitError(`not a git repository: ${cwd}`, r.code, r.stderr);
  return r.code === 0 ? r.stdout.trim() : null;
}

/** Spawns git (no shell) and hands its stdout to `onData` chunk by chunk. */
function streamGit(cwd: string, args: readonly string[], onData: (chunk: Buffer) => void): Promise<{ stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    let stderr = '';
    let failed: unknown = null;
    child.stdout.on('data', (chunk: Buffer) => {
      if (failed) return;
      try {
        onData(chunk);
      } catch (err) {
        failed = err;
        child.kill();
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (s: string) => {
      if (stderr.length < 64 * 1024) stderr += s;
    });
    child.on('error', (err) => reject(new GitError(`cannot run git: ${err.message}`, null, stderr)));
    child.on('close', (code) => {
      if (failed) reject(failed);
      else if (code !== 0) reject(new GitError(`git ${args.find((a) => !a.startsWith('-') && !a.includes('=')) ?? ''} failed (exit ${code}): ${stderr.trim()}`, code, stderr));
      else resolve({ stderr });
    });
  });
}

export interface GitRange {
  /** The repository (any folder inside its work tree). */
  cwd: string;
  base: string;
  head: string;
}

/** `git diff --name-status -z -M base head`: every changed file with its status, in diff order. */
export async function listChangedFiles({ cwd, base, head }: GitRange): Promise<{ files: ChangedFile[]; warnings: string[] }> {
  assertRevision(base, 'base');
  assertRevision(head, 'head');
  const files: ChangedFile[] = [];
  let fields: string[] = [];
  let tail = Buffer.alloc(0);
  const take = (field: string) => {
    fields.push(field);
    const status = fields[0];
    const need = /^[RC]/.test(status) ? 3 : 2;
    if (fields.length < need) return;
    const letter = status[0];
    if (need === 3) files.push({ path: fields[2], oldPath: fields[1], status: letter === 'R' ? 'renamed' : 'copied' });
    else files.push({ path: fields[1], status: letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : letter === 'T' ? 'type_changed' : 'modified' });
    fields = [];
  };
  const { stderr } = await streamGit(cwd, [
    ...BASE_CONFIG, 'diff', '--name-status', '-z', '-M', '--no-ext-diff', '--no-relative', base, head, '--',
  ], (chunk) => {
    const data = tail.length ? Buffer.concat([tail, chunk]) : chunk;
    let start = 0;
    for (let nul = data.indexOf(0, start); nul !== -1; nul = data.indexOf(0, start)) {
      take(data.toString('utf8', start, nul));
      start = nul + 1;
    }
    tail = Buffer.from(data.subarray(start));
  });
  return { files, warnings: gitWarnings(stderr) };
}

/**
 * Streams `git diff --no-color --unified=0 --no-ext-diff -M base head` through
 * `UnifiedDiffParser`: `handler.file` sees each file's header and returns where its lines go.
 */
export async function streamDiff({ cwd, base, head }: GitRange, handler: DiffParserHandler): Promise<{ warnings: string[] }> {
  assertRevision(base, 'base');
  assertRevision(head, 'head');
  const dir = await mkdtemp(join(tmpdir(), 'sitehealth-diff-'));
  try {
    const attributes = join(dir, 'attributes');
    await writeFile(attributes, `${ATTRIBUTES}\n`);
    const config = Object.entries(XFUNCNAME).flatMap(([driver, re]) => ['-c', `diff.${driver}.xfuncname=${re}`]);
    const parser = new UnifiedDiffParser(handler);
    const { stderr } = await streamGit(cwd, [
      ...BASE_CONFIG, '-c', `core.attributesFile=${attributes}`, ...config,
      'diff', '--no-color', '--unified=0', '--inter-hunk-context=0', '--no-ext-diff', '--no-textconv', '-M', '--submodule=short',
      '--src-prefix=a/', '--dst-prefix=b/', '--no-relative',
      base, head, '--',
    ], (chunk) => parser.write(chunk));
    parser.end();
    return { warnings: gitWarnings(stderr) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** git's own warnings worth passing on (e.g. rename detection skipped on huge diffs). */
function gitWarnings(stderr: string): string[] {
  return stderr.split('\n').map((l) => l.trim()).filter((l) => /^warning:/i.test(l)).map((l) => `git: ${l.replace(/^warning:\s*/i, '')}`);
}
