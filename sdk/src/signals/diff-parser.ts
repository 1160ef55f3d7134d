// Reading a `git diff` patch one line at a time, from bytes or text, without holding it in
// memory. Plain TypeScript over Uint8Array: the CLI feeds it git's output, the server a host's
// patch, and it runs wherever the SDK does.
import type { ChangeSide, FileStatus } from './scanner.js';

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

const utf8 = new TextEncoder();
const text = new TextDecoder();
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
    for (const b of utf8.encode(ch)) bytes.push(b);
  }
  return { value: text.decode(Uint8Array.from(bytes)), rest: s.slice(i + 1) };
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

  write(chunk: Uint8Array | string): void {
    this.splitter.write(typeof chunk === 'string' ? utf8.encode(chunk) : chunk);
  }

  end(): void {
    this.splitter.end();
    this.closeSection();
  }

  /**
   * Starts a section whose headers are not in the text: a repository host's per-file patch
   * (GitHub's `files[].patch`, GitLab's `diffs[].diff`) is its hunks alone, for the file its
   * listing names. The hunks written next belong to `header`'s file.
   */
  beginFile(header: DiffFileHeader): void {
    this.closeSection();
    const section: Section = { oldPath: header.oldPath ?? header.path, newPath: header.path, status: header.status, binary: header.binary, sink: null, announced: true };
    section.sink = this.handler.file(header);
    this.section = section;
  }

  private onLine(buf: Uint8Array): void {
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
        this.onHeaderLine(text.decode(buf));
        return;
      }
      if (this.oldLeft === 0 && this.newLeft === 0) this.inHunk = false;
      return;
    }
    this.onHeaderLine(text.decode(buf));
  }

  private deliver(change: ChangeSide, line: number, buf: Uint8Array): void {
    const sink = this.section?.sink;
    if (sink) sink.line(change, line, text.decode(buf.subarray(1)), this.hunkSection);
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
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private readonly onLine: (line: Uint8Array) => void;
  private readonly maxBytes: number;

  constructor(onLine: (line: Uint8Array) => void, maxBytes: number) {
    this.onLine = onLine;
    this.maxBytes = maxBytes;
  }

  write(chunk: Uint8Array): void {
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

  private keep(part: Uint8Array): void {
    const room = this.maxBytes - this.pendingBytes;
    if (room <= 0 || part.length === 0) return;
    // Copied: the chunk it points into would otherwise stay alive until the line ends.
    const kept = (part.length > room ? part.subarray(0, room) : part).slice();
    this.pending.push(kept);
    this.pendingBytes += kept.length;
  }

  private emit(): void {
    const line = this.pending.length === 1 ? this.pending[0] : concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.onLine(line);
  }
}

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  const joined = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    joined.set(p, at);
    at += p.length;
  }
  return joined;
}
