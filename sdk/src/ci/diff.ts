// Reading `git diff` without a shell and without holding it in memory: file list from
// `--name-status -z`, changed lines from a streamed `--unified=0` patch, one line at a time.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { devNull, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChangeSide, FileStatus } from './signals.js';

/** One changed file as git lists it. `path` is the new path (the old one for a deletion). */
export interface ChangedFile {
  path: string;
  status: FileStatus;
  /** The previous path of a renamed or copied file. */
  oldPath?: string;
}

/** What a patch section says about its file. */
export interface DiffFileHeader extends ChangedFile {
  binary: boolean;
}

export interface DiffLineSink {
  line(change: ChangeSide, line: number, text: string, section: string | undefined): void;
}

export interface DiffParserHandler {
  /** Called once per patch section, before its lines; return `null` to skip its lines cheaply. */
  file(header: DiffFileHeader): DiffLineSink | null;
}

/** A changed line longer than this is cut: one minified line must not need its own megabytes. */
export const MAX_DIFF_LINE_BYTES = 1 << 20;

// ---------------------------------------------------------------------------------------------
// Parsing.

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;
const C_ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/**
 * Reads a C-quoted path as git writes names with control characters, quotes or backslashes
 * (and non-ASCII bytes as octal escapes unless `core.quotePath` is off). Returns the name and
 * the rest of the string after the closing quote.
 */
export function unquoteGitPath(s: string): { value: string; rest: string } {
  if (!s.startsWith('"')) return { value: s, rest: '' };
  const bytes: number[] = [];
  let i = 1;
  for (; i < s.length; i++) {
    const ch = s[i];
    if (ch === '"') break;
    if (ch === '\\' && i + 1 < s.length) {
      const next = s[i + 1];
      if (/[0-7]/.test(next)) {
        bytes.push(parseInt(s.slice(i + 1, i + 4), 8));
        i += 3;
      } else {
        bytes.push(C_ESCAPES[next] ?? next.charCodeAt(0));
        i += 1;
      }
      continue;
    }
    for (const b of Buffer.from(ch, 'utf8')) bytes.push(b);
  }
  return { value: Buffer.from(bytes).toString('utf8'), rest: s.slice(i + 1) };
}

/** `a/x` -> `x`; `/dev/null` -> undefined. */
function stripPrefix(name: string, prefix: 'a/' | 'b/'): string | undefined {
  if (name === '/dev/null') return undefined;
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/** A path on a `---`, `+++`, `rename from` ... line: possibly quoted, possibly with git's trailing tab. */
function headerPath(raw: string): string {
  const s = raw.endsWith('\t') ? raw.slice(0, -1) : raw;
  return s.startsWith('"') ? unquoteGitPath(s).value : s;
}

/** The two names of `diff --git a/X b/Y`; for unquoted names with spaces only X == Y is certain. */
function gitHeaderPaths(rest: string): { oldPath?: string; newPath?: string } {
  if (rest.startsWith('"')) {
    const first = unquoteGitPath(rest);
    const second = first.rest.trimStart();
    const b = second.startsWith('"') ? unquoteGitPath(second).value : second;
    return { oldPath: stripPrefix(first.value, 'a/'), newPath: stripPrefix(b, 'b/') };
  }
  const quotedSecond = rest.indexOf(' "b/');
  if (quotedSecond > 0) {
    return { oldPath: stripPrefix(rest.slice(0, quotedSecond), 'a/'), newPath: stripPrefix(unquoteGitPath(rest.slice(quotedSecond + 1)).value, 'b/') };
  }
  // `a/P b/P`: the same name twice, which is how git writes every section but a rename or copy.
  const len = (rest.length - 5) / 2;
  if (Number.isInteger(len) && len > 0) {
    const p = rest.slice(2, 2 + len);
    if (rest === `a/${p} b/${p}`) return { oldPath: p, newPath: p };
  }
  const sep = rest.indexOf(' b/');
  return sep > 0 ? { oldPath: stripPrefix(rest.slice(0, sep), 'a/'), newPath: rest.slice(sep + 3) } : {};
}

interface Section {
  oldPath?: string;
  newPath?: string;
  status: FileStatus;
  binary: boolean;
  sink: DiffLineSink | null;
  announced: boolean;
}

/**
 * A streaming parser of `git diff` patches (`--unified=0` or any context). Feed it raw bytes
 * with `write`, then call `end`. Hunk line counts decide where a hunk ends, so a removed line
 * that reads `--- a/x` is never taken for a header.
 */
export class UnifiedDiffParser {
  private readonly handler: DiffParserHandler;
  private readonly splitter: LineSplitter;
  private section: Section | null = null;
  private inHunk = false;
  private oldLine = 0;
  private newLine = 0;
  private oldLeft = 0;
  private newLeft = 0;
  private hunkSection: string | undefined;

  constructor(handler: DiffParserHandler) {
    this.handler = handler;
    this.splitter = new LineSplitter((line) => this.onLine(line), MAX_DIFF_LINE_BYTES);
  }

  write(chunk: Buffer | string): void {
    this.splitter.write(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  }

  end(): void {
    this.splitter.end();
    this.closeSection();
  }

  private onLine(buf: Buffer): void {
    if (this.inHunk) {
      const c = buf[0];
      if (c === 0x2d /* - */ && this.oldLeft > 0) {
        this.deliver('removed', this.oldLine, buf);
        this.oldLine++;
        this.oldLeft--;
      } else if (c === 0x2b /* + */ && this.newLeft > 0) {
        this.deliver('added', this.newLine, buf);
        this.newLine++;
        this.newLeft--;
      } else if (c === 0x20 /* space */ && this.oldLeft > 0 && this.newLeft > 0) {
        this.oldLine++;
        this.newLine++;
        this.oldLeft--;
        this.newLeft--;
      } else if (c === 0x5c /* \ No newline at end of file */) {
        return;
      } else {
        this.inHunk = false;
        this.onHeaderLine(buf.toString('utf8'));
        return;
      }
      if (this.oldLeft === 0 && this.newLeft === 0) this.inHunk = false;
      return;
    }
    this.onHeaderLine(buf.toString('utf8'));
  }

  private deliver(change: ChangeSide, line: number, buf: Buffer): void {
    const sink = this.section?.sink;
    if (sink) sink.line(change, line, buf.toString('utf8', 1), this.hunkSection);
  }

  private onHeaderLine(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.startsWith('diff --git ')) {
      this.closeSection();
      this.section = { ...gitHeaderPaths(line.slice('diff --git '.length)), status: 'modified', binary: false, sink: null, announced: false };
      return;
    }
    if (line.startsWith('--- ') && (!this.section || this.section.announced)) {
      // A plain unified diff without `diff --git` lines.
      this.closeSection();
      this.section = { status: 'modified', binary: false, sink: null, announced: false };
    }
    const s = this.section;
    if (!s) return;
    if (line.startsWith('@@ ')) {
      const m = HUNK.exec(line);
      if (!m) return;
      this.announce(s);
      this.oldLine = Number(m[1]);
      this.oldLeft = m[2] === undefined ? 1 : Number(m[2]);
      this.newLine = Number(m[3]);
      this.newLeft = m[4] === undefined ? 1 : Number(m[4]);
      this.hunkSection = m[5] ? m[5] : undefined;
      this.inHunk = this.oldLeft > 0 || this.newLeft > 0;
      return;
    }
    if (s.announced) return;
    if (line.startsWith('new file mode')) s.status = 'added';
    else if (line.startsWith('deleted file mode')) s.status = 'deleted';
    else if (line.startsWith('rename from ')) { s.oldPath = headerPath(line.slice(12)); s.status = 'renamed'; }
    else if (line.startsWith('rename to ')) { s.newPath = headerPath(line.slice(10)); s.status = 'renamed'; }
    else if (line.startsWith('copy from ')) { s.oldPath = headerPath(line.slice(10)); s.status = 'copied'; }
    else if (line.startsWith('copy to ')) { s.newPath = headerPath(line.slice(8)); s.status = 'copied'; }
    else if (line.startsWith('--- ')) {
      const p = stripPrefix(headerPath(line.slice(4)), 'a/');
      if (p === undefined) s.status = 'added';
      else s.oldPath = p;
    } else if (line.startsWith('+++ ')) {
      const p = stripPrefix(headerPath(line.slice(4)), 'b/');
      if (p === undefined) s.status = 'deleted';
      else s.newPath = p;
    } else if (line.startsWith('Binary files ') || line === 'GIT binary patch') {
      s.binary = true;
    }
  }

  private announce(s: Section): void {
    if (s.announced) return;
    s.announced = true;
    const path = s.status === 'deleted' ? (s.oldPath ?? s.newPath) : (s.newPath ?? s.oldPath);
    if (path === undefined) return;
    const header: DiffFileHeader = { path, status: s.status, binary: s.binary };
    if ((s.status === 'renamed' || s.status === 'copied') && s.oldPath !== undefined) header.oldPath = s.oldPath;
    s.sink = this.handler.file(header);
  }

  private closeSection(): void {
    if (this.section) this.announce(this.section);
    this.section = null;
    this.inHunk = false;
  }
}

/**
 * Splits a byte stream into lines (without `\n`), keeping at most `maxBytes` of each line:
 * the rest of an over-long line is dropped as it streams by, never buffered.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private readonly onLine: (line: Buffer) => void;
  private readonly maxBytes: number;

  constructor(onLine: (line: Buffer) => void, maxBytes: number) {
    this.onLine = onLine;
    this.maxBytes = maxBytes;
  }

  write(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      this.keep(chunk.subarray(start, end));
      if (nl === -1) return;
      this.emit();
      start = nl + 1;
    }
  }

  end(): void {
    if (this.pendingBytes > 0 || this.pending.length > 0) this.emit();
  }

  private keep(part: Buffer): void {
    const room = this.maxBytes - this.pendingBytes;
    if (room <= 0 || part.length === 0) return;
    // Copied: the chunk it points into would otherwise stay alive until the line ends.
    const kept = Buffer.from(part.length > room ? part.subarray(0, room) : part);
    this.pending.push(kept);
    this.pendingBytes += kept.length;
  }

  private emit(): void {
    const line = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.onLine(line);
  }
}

// ---------------------------------------------------------------------------------------------
// Running git.

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
