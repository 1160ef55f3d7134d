// How the CLI prints findings: kind, severity, page, before -> after, and the likely causes.
import type { DeployFinding, Severity, SiteCheckIssue } from '@sitehealth/sdk';

/** A finding's `before` / `after` as a person reads it. */
export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return '(none)';
  if (Array.isArray(v)) return v.length ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(', ') : '(none)';
  if (typeof v === 'string') return v === '' ? '""' : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

const MAX_CAUSES = 3;

/** Lines describing one finding (the first unindented). */
export function formatFinding(f: DeployFinding, opts: { failing: boolean }): string[] {
  const mark = opts.failing ? 'FAIL' : 'info';
  const lines = [
    `  [${mark}] ${f.severity.toUpperCase()} ${f.kind}: ${f.url}`,
    `         ${formatValue(f.before)} -> ${formatValue(f.after)}`,
  ];
  const causes = f.causes.slice(0, MAX_CAUSES);
  if (causes.length === 0) {
    lines.push('         no likely cause among the deploy\'s changed files');
  } else {
    lines.push(`         likely cause${causes.length > 1 ? 's' : ''}:`);
    causes.forEach((c, i) => lines.push(`           ${i + 1}. ${c.path} (${c.category}, score ${c.score.toFixed(2)}): ${c.reason}`));
  }
  return lines;
}

/** Lines describing one issue of a check on its own. */
export function formatIssue(i: SiteCheckIssue, opts: { failing: boolean }): string[] {
  return [`  [${opts.failing ? 'FAIL' : 'info'}] ${i.severity.toUpperCase()} ${i.kind}: ${i.url}`, `         ${formatValue(i.value)}`];
}

export interface CheckContext {
  /** The check had a baseline to compare with. */
  baseline: boolean;
  /** What is wrong in the check on its own. */
  issues: readonly SiteCheckIssue[];
  /** Of those, what fails the gate (only without a baseline). */
  failingIssues: readonly SiteCheckIssue[];
}

/**
 * The findings report: failing ones first, then the rest, each most severe first. A first check
 * has nothing to compare with: its own issues are the report, so a site that is broken from the
 * start never reads as "nothing got worse".
 */
export function formatFindings(findings: readonly DeployFinding[], failing: readonly DeployFinding[], failOn: Severity | undefined, check: CheckContext): string[] {
  if (!check.baseline) {
    if (check.issues.length === 0) return ['First check of this website (nothing to compare with): no issues found.'];
    const failingSet = new Set(check.failingIssues);
    const lines = [`First check of this website (nothing to compare with): ${check.issues.length} issue${check.issues.length > 1 ? 's' : ''}${failOn ? `, ${check.failingIssues.length} at or above ${failOn}` : ''}:`];
    for (const i of [...check.failingIssues, ...check.issues.filter((i) => !failingSet.has(i))]) lines.push(...formatIssue(i, { failing: failingSet.has(i) }));
    return lines;
  }
  if (findings.length === 0) return ['No findings: nothing got worse since the previous check.'];
  const failingSet = new Set(failing);
  const lines: string[] = [];
  if (failOn) {
    lines.push(
      failing.length
        ? `${failing.length} finding${failing.length > 1 ? 's' : ''} at or above ${failOn} (${findings.length} in all):`
        : `No finding at or above ${failOn} (${findings.length} below it):`,
    );
  } else {
    lines.push(`${findings.length} finding${findings.length > 1 ? 's' : ''}:`);
  }
  const ordered = [...failing, ...findings.filter((f) => !failingSet.has(f))];
  for (const f of ordered) lines.push(...formatFinding(f, { failing: failingSet.has(f) }));
  return lines;
}
