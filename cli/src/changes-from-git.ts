// A deploy's `changes` read from the local clone: git lists the files and streams the patch, the
// SDK's `ChangeAnalysis` keeps each file's category and signals (see @sitehealth/sdk/signals).
import { ChangeAnalysis, type ChangeLimits, type ChangesResult } from '@sitehealth/sdk/signals';
import { commitExists, listChangedFiles, resolveCommit, streamDiff } from './git.js';

export interface ChangesFromGitOptions extends ChangeLimits {
  /** A folder inside the repository; default `process.cwd()`. */
  cwd?: string;
  /** The commit (or any revision) to compare with: the previous deploy, the push's `before`, ... */
  base: string | null | undefined;
  /** Default `HEAD`. */
  head?: string;
}

export interface ChangesFromGitResult extends ChangesResult {
  /** The base commit is not in this clone (a shallow clone, or no base given): no changes. */
  baseMissing: boolean;
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
  const analysis = new ChangeAnalysis(options);
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
  for (const file of listed.files) analysis.add(file);
  analysis.capFiles();
  const streamed = await streamDiff({ cwd, base, head }, { file: (header) => analysis.sink(header, { addUnlisted: false }) });
  return { ...analysis.finish([...listed.warnings, ...streamed.warnings]), baseMissing: false };
}
