// The content of a digest, and of a report for any period (spec/digests.tsp Report): deploys with
// their checks' verdicts, findings that appeared and went away, pages that lost search clicks and
// search totals against the previous period, each with a link into the API.
import type { Schemas } from '../contract/index.ts';
import { Deploy, SiteCheck, Workspace, type DbOrTrx } from '../db/index.ts';
import { newestChecksByDeploy } from '../checks/index.ts';
import { bySeverity } from '../findings/index.ts';
import { addDays, dayOf, pagesLosingClicks, searchTotals } from '../search-data/index.ts';
import { wallClock } from '../monitoring/index.ts';
import { toIso } from '../platform/index.ts';

export type Report = Schemas['Report'];
type ReportFinding = Schemas['ReportFinding'];

const MAX_DEPLOYS = 50;
const MAX_FINDINGS = 50;
const MAX_PAGES = 10;

/** The local calendar days that end in [from, to): the period's days of search data. */
export function periodDays(from: number, to: number, timeZone: string): { first: string; last: string; count: number } {
  const first = dayOf(wallClock(from, timeZone));
  const last = addDays(dayOf(wallClock(to, timeZone)), -1);
  return { first, last, count: Math.max(0, Math.round((Date.parse(last) - Date.parse(first)) / 86_400_000) + 1) };
}

type CheckRow = Pick<SiteCheck, 'id' | 'finished_at' | 'findings'>;

const key = (f: { kind: string; url: string }) => `${f.kind} ${f.url}`;

/** Builds the report of a workspace for [from, to) (epoch ms). */
export async function buildReport(db: DbOrTrx, workspace: Pick<Workspace, 'id' | 'name' | 'timezone'>, from: number, to: number, publicUrl: string): Promise<Report> {
  const ws = workspace.id;
  const link = (p: string) => `${publicUrl}${p}`;

  // Deploys of the period and the verdicts of their newest checks.
  const deploys = await Deploy.query(db)
    .where({ workspace_id: ws })
    .where('deployed_at', '>=', from)
    .where('deployed_at', '<', to)
    .orderBy([
      { column: 'deployed_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(MAX_DEPLOYS)
    .select('id', 'commit_sha', 'environment', 'ref', 'deployed_at');
  const checks = await newestChecksByDeploy(
    db,
    deploys.map((d) => d.id),
  );
  const deployItems: Schemas['ReportDeploy'][] = deploys.map((d) => {
    const c = checks.get(d.id);
    const findings = c?.state === 'finished' ? (c.findings?.findings?.length ?? 0) : 0;
    const verdict: Schemas['ReportDeploy']['verdict'] = !c ? 'not_checked' : c.state === 'finished' ? (findings > 0 ? 'regressions' : 'clean') : c.state === 'failed' ? 'failed' : 'pending';
    return { id: d.id, commitSha: d.commit_sha, environment: d.environment, ref: d.ref, deployedAt: toIso(Number(d.deployed_at))!, verdict, findings, link: link(`/v1/deploys/${d.id}`) };
  });

  // Checks finished in the period, oldest first, and the one before it (what was wrong at its start).
  const finished = () => SiteCheck.query(db).where({ workspace_id: ws, state: 'finished' }).select('id', 'finished_at', 'findings');
  const inPeriod = (await finished()
    .where('finished_at', '>=', from)
    .where('finished_at', '<', to)
    .orderBy([
      { column: 'finished_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ])) as CheckRow[];
  const atStart = (await finished()
    .where('finished_at', '<', from)
    .orderBy([
      { column: 'finished_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first()) as CheckRow | undefined;

  const findingOf = (c: CheckRow, f: { kind: Schemas['CheckFindingKind']; severity: Schemas['Severity']; url: string }, extra: { topCause: Schemas['Cause'] | null; explanation: string | null }): ReportFinding => ({
    kind: f.kind,
    severity: f.severity,
    url: f.url,
    checkId: c.id,
    at: toIso(Number(c.finished_at))!,
    ...extra,
    link: link(`/v1/site-checks/${c.id}`),
  });

  const newFindings = new Map<string, ReportFinding>();
  const causes = new Map<string, Schemas['Cause'] | null>();
  for (const c of [...(atStart ? [atStart] : []), ...inPeriod]) {
    for (const f of c.findings?.findings ?? []) {
      const topCause = f.causes[0] ?? null;
      causes.set(key(f), topCause);
      if (c !== atStart && !newFindings.has(key(f))) newFindings.set(key(f), findingOf(c, f, { topCause, explanation: f.explanation ?? null }));
    }
  }

  // Resolved: a problem at the start or during the period that the period's newest check, which
  // looked at that page, no longer has.
  const resolved: ReportFinding[] = [];
  const last = inPeriod[inPeriod.length - 1];
  if (last) {
    const seen = new Map<string, Schemas['SiteCheckIssue']>();
    for (const c of [...(atStart ? [atStart] : []), ...inPeriod.slice(0, -1)]) for (const i of c.findings?.issues ?? []) seen.set(key(i), i);
    const now = new Set((last.findings?.issues ?? []).map(key));
    const lastPages = await SiteCheck.query(db).findById(last.id).select('pages');
    const looked = new Set((lastPages?.pages ?? []).map((p) => p.url));
    for (const [k, i] of seen) {
      if (now.has(k) || !looked.has(i.url)) continue;
      resolved.push(findingOf(last, i, { topCause: causes.get(k) ?? null, explanation: null }));
    }
  }

  // Search: the period's days against as many days before them.
  const days = periodDays(from, to, workspace.timezone);
  const previous = { from: addDays(days.first, -days.count), to: addDays(days.first, -1) };
  const current = { from: days.first, to: days.last };
  let search: Schemas['ReportSearch'] | null = null;
  let lostClicks: Schemas['ReportPage'][] = [];
  if (days.count > 0) {
    const [now, before] = await Promise.all([searchTotals(db, ws, current.from, current.to), searchTotals(db, ws, previous.from, previous.to)]);
    if (now.days > 0) {
      const change = (a: number, b: number) => (b > 0 ? Math.round((a / b - 1) * 10_000) / 10_000 : null);
      search = {
        current: { ...current, ...now },
        previous: { ...previous, ...before },
        clicksChange: change(now.clicks, before.clicks),
        impressionsChange: change(now.impressions, before.impressions),
      };
      const pages = await pagesLosingClicks(db, ws, { previous, current, limit: MAX_PAGES });
      lostClicks = pages.map((p) => ({ ...p, lostClicks: p.previousClicks - p.clicks, link: link(`/v1/site-checks/latest?workspace_id=${ws}`) }));
    }
  }

  return {
    workspaceId: ws,
    workspaceName: workspace.name,
    timezone: workspace.timezone,
    from: toIso(from)!,
    to: toIso(to)!,
    deploys: deployItems,
    newFindings: [...newFindings.values()].sort(bySeverity).slice(0, MAX_FINDINGS),
    resolvedFindings: resolved.sort(bySeverity).slice(0, MAX_FINDINGS),
    lostClicks,
    search,
  };
}

/** Nothing to say: no digest goes out. */
export function isEmptyReport(r: Report): boolean {
  return r.deploys.length === 0 && r.newFindings.length === 0 && r.resolvedFindings.length === 0 && r.lostClicks.length === 0 && r.search === null;
}
