// A deploy's `changes` from git: each changed file's category and signals, within the server's
// limits (`MAX_FILES_PER_DEPLOY` files, `MAX_SIGNALS_PER_FILE` signals per file: the API document's, see limits.ts).
import { MAX_CHANGES } from '../limits.js';
import type { ChangeCategory, Signal } from '../types.js';
import { CATEGORY_PRIORITY, categorize } from './categorize.js';
import { commitExists, listChangedFiles, resolveCommit, streamDiff, UnifiedDiffParser, type ChangedFile } from './diff.js';
import { MAX_SIGNALS_PER_FILE, SignalScanner } from './signals.js';

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

export interface ChangesFromGitOptions {
  /** A folder inside the repository; default `process.cwd()`. */
  cwd?: string;
  /** The commit (or any revision) to compare with: the previous deploy, the push's `before`, ... */
  base: string | null | undefined;
  /** Default `HEAD`. */
  head?: string;
  /** Default and server maximum 500. */
  maxFiles?: number;
  /** Default and server maximum 50. */
  maxSignalsPerFile?: number;
}

export interface ChangesFromGitResult extends ChangesResult {
  /** The base commit is not in this clone (a shallow clone, or no base given): no changes. */
  baseMissing: boolean;
}

interface Tracked {
  file: ChangedFile;
  category: ChangeCategory;
  scanner: SignalScanner;
}

function limits(maxFiles: number | undefined, maxSignals: number | undefined): { maxFiles: number; maxSignals: number } {
  const files = maxFiles ?? MAX_FILES_PER_DEPLOY;
  const signals = maxSignals ?? MAX_SIGNALS_PER_FILE;
  if (!Number.isInteger(files) || files < 0) throw new RangeError('maxFiles must be an integer >= 0');
  if (!Number.isInteger(signals) || signals < 0) throw new RangeError('maxSignalsPerFile must be an integer >= 0');
  return { maxFiles: files, maxSignals: signals };
}

/**
 * The files to keep when there are more than `max`: those whose category best explains a
 * regression (robots, sitemap, redirects, headers, routing, templates, pages, ..., tests last),
 * returned in diff order.
 */
function keepMostTelling<T extends { category: ChangeCategory }>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  const rank = (c: ChangeCategory) => CATEGORY_PRIORITY.indexOf(c);
  const kept = new Set(
    items
      .map((item, i) => ({ item, i }))
      .sort((a, b) => rank(a.item.category) - rank(b.item.category) || a.i - b.i)
      .slice(0, max)
      .map(({ item }) => item),
  );
  return items.filter((item) => kept.has(item));
}

function filesCapWarning(total: number, max: number): string {
  return `${total} files changed; kept ${max} (the most a deploy may list), preferring robots, sitemap, redirects, headers, routing, templates and pages`;
}

function finishChanges(tracked: readonly Tracked[], maxSignals: number, warnings: string[]): AnalyzedChange[] {
  return tracked.map(({ file, category, scanner }) => {
    const { signals, truncated } = scanner.finish();
    if (truncated) warnings.push(`${file.path}: more than ${maxSignals} signals; kept the ${maxSignals} most telling`);
    return { path: file.path, category, signals };
  });
}

function track(file: ChangedFile, maxSignals: number): Tracked {
  const category = categorize(file.path);
  return { file, category, scanner: new SignalScanner(file.path, { status: file.status, oldPath: file.oldPath, category, maxSignals }) };
}

/**
 * Categories and signals of every file changed between `base` and `head`, read from git in a
 * stream (a 200 MB diff is fine: only signals are kept). When `base` is missing from the clone
 * (CI checkouts are often shallow) or not given, the result is empty with `baseMissing: true` and
 * a warning, rather than an error: the deploy can still be recorded without changes.
 *
 * ```ts
 * const { changes, warnings } = await changesFromGit({ cwd: process.cwd(), base: process.env.BEFORE_SHA, head: 'HEAD' });
 * ```
 */
export async function changesFromGit(options: ChangesFromGitOptions): Promise<ChangesFromGitResult> {
  const cwd = options.cwd ?? process.cwd();
  const head = options.head ?? 'HEAD';
  const { maxFiles, maxSignals } = limits(options.maxFiles, options.maxSignalsPerFile);
  const base = options.base?.trim();
  if (!base) {
    return { changes: [], warnings: ['no base commit to compare with: recording the deploy without changes'], totalFiles: 0, baseMissing: true };
  }
  if (!(await commitExists(cwd, base))) {
    return {
      changes: [],
      warnings: [
        `base commit ${base} is not in this clone (a shallow checkout?): recording the deploy without changes; ` +
        'fetch more history (e.g. actions/checkout with fetch-depth: 0, or git fetch --deepen) to send them',
      ],
      totalFiles: 0,
      baseMissing: true,
    };
  }
  if (!(await resolveCommit(cwd, head))) throw new Error(`head ${head} is not a commit in ${cwd}`);

  const listed = await listChangedFiles({ cwd, base, head });
  const warnings = [...listed.warnings];
  const all = listed.files.map((file) => track(file, maxSignals));
  const kept = keepMostTelling(all, maxFiles);
  if (kept.length < all.length) warnings.push(filesCapWarning(all.length, maxFiles));

  // A type change (symlink <-> file) comes as two patch sections for one path; both feed it.
  const byPath = new Map(kept.map((t) => [t.file.path, t]));
  const streamed = await streamDiff({ cwd, base, head }, {
    file(header) {
      const t = byPath.get(header.path);
      if (!t) return null;
      return { line: (change, line, text, section) => t.scanner.push(change, line, text, section) };
    },
  });
  for (const w of streamed.warnings) if (!warnings.includes(w)) warnings.push(w);
  return { changes: finishChanges(kept, maxSignals, warnings), warnings, totalFiles: all.length, baseMissing: false };
}

/**
 * The same analysis from a patch already in hand (e.g. `git diff --unified=0 -M` output): files,
 * statuses and renames come from its headers. Pure: no git, no file system.
 */
export function changesFromDiffText(
  text: string,
  options: { maxFiles?: number; maxSignalsPerFile?: number } = {},
): ChangesResult {
  const { maxFiles, maxSignals } = limits(options.maxFiles, options.maxSignalsPerFile);
  const tracked = new Map<string, Tracked>();
  const parser = new UnifiedDiffParser({
    file(header) {
      let t = tracked.get(header.path);
      if (!t) {
        t = track({ path: header.path, status: header.status, ...(header.oldPath !== undefined && { oldPath: header.oldPath }) }, maxSignals);
        tracked.set(header.path, t);
      } else if (t.file.status !== header.status) {
        // The second half of a type change: the first said deleted, this one added.
        t.file.status = 'type_changed';
        t.scanner.status = 'type_changed';
      }
      const scanner = t.scanner;
      return { line: (change, line, lineText, section) => scanner.push(change, line, lineText, section) };
    },
  });
  parser.write(text);
  parser.end();
  const all = [...tracked.values()];
  const kept = keepMostTelling(all, maxFiles);
  const warnings: string[] = [];
  if (kept.length < all.length) warnings.push(filesCapWarning(all.length, maxFiles));
  return { changes: finishChanges(kept, maxSignals, warnings), warnings, totalFiles: all.length };
}
