// A deploy's `changes` from a diff: each changed file's category and signals, never code, within
// the server's limits (`MAX_FILES_PER_DEPLOY` files, `MAX_SIGNALS_PER_FILE` signals per file:
// the API document's, see ../limits.ts). The CLI feeds it from git, the server from a host's
// patch; both get the same answer for the same diff.
import { MAX_CHANGES } from '../limits.js';
import type { ChangeCategory, Signal } from '../types.js';
import { CATEGORY_PRIORITY, categorize } from './categorize.js';
import { UnifiedDiffParser, type ChangedFile, type DiffFileHeader, type DiffLineSink } from './diff-parser.js';
import { MAX_SIGNALS_PER_FILE, SignalScanner } from './scanner.js';

/** The server accepts at most this many changes per deploy (`MAX_CHANGES`). */
export const MAX_FILES_PER_DEPLOY = MAX_CHANGES;

/** A changed file as sent: path, category and signals; never code. */
export interface AnalyzedChange {
  path: string;
  category: ChangeCategory;
  signals: Signal[];
}

export interface ChangesResult {
  changes: AnalyzedChange[];
  /** Why the result is partial or empty, for the CI log. */
  warnings: string[];
  /** How many files changed in all, before the `maxFiles` cap. */
  totalFiles: number;
}

export interface ChangeLimits {
  /** Default and server maximum 500. */
  maxFiles?: number;
  /** Default and server maximum 50. */
  maxSignalsPerFile?: number;
}

interface Tracked {
  file: ChangedFile;
  category: ChangeCategory;
  scanner: SignalScanner;
}

/**
 * The analysis of one diff, fed file by file. Files may be announced before their patch (git
 * lists them first, so `capFiles` can skip scanning those a deploy cannot carry) or met in it
 * (`sink(header, { addUnlisted: true })`). `finish` returns the changes in diff order.
 *
 * ```ts
 * const analysis = new ChangeAnalysis();
 * const parser = new UnifiedDiffParser({ file: (header) => analysis.sink(header, { addUnlisted: true }) });
 * parser.write(patch); parser.end();
 * const { changes, warnings } = analysis.finish();
 * ```
 */
export class ChangeAnalysis {
  readonly maxFiles: number;
  readonly maxSignals: number;
  private readonly tracked = new Map<string, Tracked>();
  private kept: Set<Tracked> | null = null;
  private readonly warnings: string[] = [];

  constructor(limits: ChangeLimits = {}) {
    this.maxFiles = limits.maxFiles ?? MAX_FILES_PER_DEPLOY;
    this.maxSignals = limits.maxSignalsPerFile ?? MAX_SIGNALS_PER_FILE;
    if (!Number.isInteger(this.maxFiles) || this.maxFiles < 0) throw new RangeError('maxFiles must be an integer >= 0');
    if (!Number.isInteger(this.maxSignals) || this.maxSignals < 0) throw new RangeError('maxSignalsPerFile must be an integer >= 0');
  }

  /** A changed file known before its patch (a listing such as `git diff --name-status`). */
  add(file: ChangedFile): void {
    if (this.tracked.has(file.path)) return;
    const category = categorize(file.path);
    const scanner = new SignalScanner(file.path, { status: file.status, oldPath: file.oldPath, category, maxSignals: this.maxSignals });
    this.tracked.set(file.path, { file: { ...file }, category, scanner });
  }

  /**
   * Keeps the `maxFiles` files that best explain a regression (robots, sitemap, redirects,
   * headers, routing, templates, pages, ..., tests last); the others are no longer scanned.
   */
  capFiles(): void {
    if (this.kept) return;
    const all = [...this.tracked.values()];
    const rank = (c: ChangeCategory) => CATEGORY_PRIORITY.indexOf(c);
    this.kept = new Set(
      all
        .map((t, i) => ({ t, i }))
        .sort((a, b) => rank(a.t.category) - rank(b.t.category) || a.i - b.i)
        .slice(0, this.maxFiles)
        .map(({ t }) => t),
    );
    if (this.kept.size < all.length) {
      this.warnings.push(
        `${all.length} files changed; kept ${this.maxFiles} (the most a deploy may list), preferring robots, sitemap, redirects, headers, routing, templates and pages`,
      );
    }
  }

  /**
   * Where a patch section's lines go: the scanner of its file, or null for a file dropped by the
   * cap (or, without `addUnlisted`, one the listing did not announce). A type change (symlink to
   * file) comes as two sections for one path; both feed it.
   */
  sink(header: DiffFileHeader, options: { addUnlisted: boolean }): DiffLineSink | null {
    let t = this.tracked.get(header.path);
    if (!t) {
      if (!options.addUnlisted || this.kept) return null;
      this.add({ path: header.path, status: header.status, ...(header.oldPath !== undefined && { oldPath: header.oldPath }) });
      t = this.tracked.get(header.path)!;
    } else if (options.addUnlisted && t.file.status !== header.status) {
      // The second half of a type change in a patch: the first said deleted, this one added.
      t.file.status = 'type_changed';
      t.scanner.status = 'type_changed';
    }
    if (this.kept && !this.kept.has(t)) return null;
    const scanner = t.scanner;
    return { line: (change, line, text, section) => scanner.push(change, line, text, section) };
  }

  /** The changes of the kept files, in diff order, and why the result is partial. */
  finish(extraWarnings: readonly string[] = []): ChangesResult {
    this.capFiles();
    const warnings = [...extraWarnings.filter((w) => !this.warnings.includes(w)), ...this.warnings];
    const changes = [...this.tracked.values()].filter((t) => this.kept!.has(t)).map(({ file, category, scanner }) => {
      const { signals, truncated } = scanner.finish();
      if (truncated) warnings.push(`${file.path}: more than ${this.maxSignals} signals; kept the ${this.maxSignals} most telling`);
      return { path: file.path, category, signals };
    });
    return { changes, warnings, totalFiles: this.tracked.size };
  }
}

/**
 * The analysis of a patch already in hand (e.g. `git diff --unified=0 -M` output, or a
 * repository host's patch): files, statuses and renames come from its headers. Pure: no git,
 * no file system.
 */
export function changesFromDiffText(text: string, limits: ChangeLimits = {}): ChangesResult {
  const analysis = new ChangeAnalysis(limits);
  const parser = new UnifiedDiffParser({ file: (header) => analysis.sink(header, { addUnlisted: true }) });
  parser.write(text);
  parser.end();
  return analysis.finish();
}

/** A changed file as a repository host lists it: its patch is the file's hunks alone, when the host sent one. */
export interface FilePatch extends ChangedFile {
  patch?: string;
}

/**
 * The analysis of a host's listing of changed files with their per-file patches (a compare or a
 * commit, on GitHub or GitLab). A path listed again (the same file in several commits) is one
 * change whose signals come from every patch given for it; the first listing's status stands.
 */
export function changesFromFilePatches(files: readonly FilePatch[], limits: ChangeLimits = {}): ChangesResult {
  const analysis = new ChangeAnalysis(limits);
  for (const f of files) analysis.add({ path: f.path, status: f.status, ...(f.oldPath !== undefined && { oldPath: f.oldPath }) });
  analysis.capFiles();
  for (const f of files) {
    if (!f.patch) continue;
    const header: DiffFileHeader = { path: f.path, status: f.status, binary: false, ...(f.oldPath !== undefined && { oldPath: f.oldPath }) };
    const sink = analysis.sink(header, { addUnlisted: false });
    if (!sink) continue;
    const parser = new UnifiedDiffParser({ file: () => sink });
    parser.beginFile(header);
    parser.write(f.patch);
    parser.end();
  }
  return analysis.finish();
}
