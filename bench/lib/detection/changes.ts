// The changed files of a corpus deploy, written as the lines of their diff (what
// `git diff --unified=0` shows). Their category and signals are not written by hand: the SDK's CI
// analysis (`categorize`, `detectSignals`) reads them from the path and the lines, exactly as
// `changesFromGit` does in a real pipeline, so a deploy carries what CI would really send.

import type { Change } from '@sitehealth/sdk';
import { categorize, detectSignals, type DiffLine, type FileStatus } from '@sitehealth/sdk/signals';

/** One hunk: removed lines numbered from `line` (old file), added ones from `newLine` (new file, default `line`). */
export interface Hunk {
  line: number;
  newLine?: number;
  /** git's function context for the hunk (`async redirects() {`), when the opener is not among the changed lines. */
  section?: string;
  removed?: string[];
  added?: string[];
}

export interface FileChange {
  path: string;
  status: FileStatus;
  oldPath?: string;
  hunks: Hunk[];
}

/** A modified file. */
export function modify(path: string, ...hunks: Hunk[]): FileChange {
  return { path, status: 'modified', hunks };
}

/** A deleted file (its lines, all removed). */
export function deleteFile(path: string, lines: string[]): FileChange {
  return { path, status: 'deleted', hunks: [{ line: 1, removed: lines }] };
}

/** A new file (its lines, all added). */
export function addFile(path: string, lines: string[]): FileChange {
  return { path, status: 'added', hunks: [{ line: 0, newLine: 1, added: lines }] };
}

/** A file moved without edits (`git diff -M` shows no lines). */
export function rename(oldPath: string, path: string): FileChange {
  return { path, oldPath, status: 'renamed', hunks: [] };
}

/** The change as the deploy API receives it from the SDK: path, category and signals. */
export function toApiChange(f: FileChange): Change {
  const removed: DiffLine[] = [];
  const added: DiffLine[] = [];
  for (const h of f.hunks) {
    (h.removed ?? []).forEach((text, i) => removed.push({ line: h.line + i, text, section: h.section }));
    (h.added ?? []).forEach((text, i) => added.push({ line: (h.newLine ?? h.line) + i, text, section: h.section }));
  }
  const signals = detectSignals(f.path, { removed, added }, { status: f.status, ...(f.oldPath !== undefined && { oldPath: f.oldPath }) });
  return { path: f.path, category: categorize(f.path), signals };
}
