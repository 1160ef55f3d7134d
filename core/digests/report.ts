// The content of a digest, and of a report for any period (spec/digests.tsp Report): deploys with
// their checks' verdicts, findings that appeared and went away, pages that lost search clicks and
// search totals against the previous period, each with a link into the API.
import type { Schemas } from '../contract/index.ts';
import { Deploy, SiteCheck, runSql, type SiteCrawl, type Workspace, type DbOrTrx } from '../db/index.ts';
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

type Kind = ReportFinding['kind'];
type Severity = Schemas['Severity'];
type Cause = Schemas['Cause'];

/** A finished check or crawl as the report reads it. */
interface Run {
  id: string;
  finishedAt: number;
  /** What it found worse than the run before. */
  findings: Array<{ kind: Kind; severity: Severity; url: string; causes: Cause[]; explanation?: string | null }>;
  /** What was wrong in it on its own: a check's issues, every finding of a crawl. */
  problems: Array<{ kind: Kind; severity: Severity; url: string }>;
}

interface Runs {
  source: ReportFinding['source'];
  /** The newest run finished before the period: what was wrong at its start. */
  atStart: Run | null;
  /** Runs finished in the period, oldest first. */
  inPeriod: Run[];
}

const key = (f: { kind: string; url: string }) => `${f.kind} ${f.url}`;

/** A check's stored findings (`findings`, `issues`) or a crawl's (`crawlFindings`, `all`). */
type StoredFindings = NonNullable<SiteCheck['findings']> & NonNullable<SiteCrawl['findings']>;

/** A workspace's checks or crawls finished in [from, to), and the one before. */
async function finishedRuns(db: DbOrTrx, source: Runs['source'], ws: string, from: number, to: number): Promise<Runs> {
  // The findings column is JSON text on both engines (the checks' and crawls' migration).
  const table = source === 'check' ? 'site_checks' : 'site_crawls';
  type Row = { id: string; finished_at: number | string; findings: string | null };
  const head = `SELECT id, finished_at, findings FROM ${table} WHERE workspace_id = ? AND state = 'finished'`;
  const [inPeriod, before] = await Promise.all([
    runSql<Row>(db, `${head} AND finished_at >= ? AND finished_at < ? ORDER BY finished_at, id`, [ws, from, to]),
    runSql<Row>(db, `${head} AND finished_at < ? ORDER BY finished_at DESC, id DESC LIMIT 1`, [ws, from]),
  ]);
  const toRun = (r: Row): Run => {
    const stored: StoredFindings = r.findings ? JSON.parse(r.findings) : {};
    return { id: r.id, finishedAt: Number(r.finished_at), findings: (source === 'check' ? stored.findings : stored.crawlFindings) ?? [], problems: (source === 'check' ? stored.issues : stored.all) ?? [] };
  };
  return { source, atStart: before[0] ? toRun(before[0]) : null, inPeriod: inPeriod.map(toRun) };
}

/**
 * New findings of the period's runs (a page and kind once, the first time), and the problems at
 * its start or during it that its newest run no longer has: a check only judges the pages it
 * looked at; a crawl walked the site.
 */
async function judgeRuns(db: DbOrTrx, runs: Runs, link: (path: string) => string): Promise<{ found: ReportFinding[]; resolved: ReportFinding[] }> {
  const path = (id: string) => link(runs.source === 'check' ? `/v1/site-checks/${id}` : `/v1/site-crawls/${id}`);
  const item = (r: Run, f: { kind: Kind; severity: Severity; url: string }, topCause: Cause | null, explanation: string | null): ReportFinding => ({
    source: runs.source,
    kind: f.kind,
    severity: f.severity,
    url: f.url,
    runId: r.id,
    at: toIso(r.finishedAt)!,
    topCause,
    explanation,
    link: path(r.id),
  });
  const found = new Map<string, ReportFinding>();
  const causes = new Map<string, Cause | null>();
  const all = [...(runs.atStart ? [runs.atStart] : []), ...runs.inPeriod];
  for (const r of all) {
    for (const f of r.findings) {
      causes.set(key(f), f.causes[0] ?? null);
      if (r !== runs.atStart && !found.has(key(f))) found.set(key(f), item(r, f, f.causes[0] ?? null, f.explanation ?? null));
    }
  }
  const resolved: ReportFinding[] = [];
  const last = runs.inPeriod[runs.inPeriod.length - 1];
  if (last) {
    const seen = new Map<string, Run['problems'][number]>();
    for (const r of all.slice(0, -1)) for (const p of r.problems) seen.set(key(p), p);
    const now = new Set(last.problems.map(key));
    const looked = runs.source === 'check' ? new Set(((await SiteCheck.query(db).findById(last.id).select('pages'))?.pages ?? []).map((p) => p.url)) : null;
    for (const [k, p] of seen) if (!now.has(k) && (!looked || looked.has(p.url))) resolved.push(item(last, p, causes.get(k) ?? null, null));
  }
  return { found: [...found.values()], resolved };
}

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
  const verdicts = await newestChecksByDeploy(
    db,
    deploys.map((d) => d.id),
  );
  const deployItems: Schemas['ReportDeploy'][] = deploys.map((d) => {
    const c = verdicts.get(d.id);
    const findings = c?.state === 'finished' ? (c.findings?.findings?.length ?? 0) : 0;
    const verdict: Schemas['ReportDeploy']['verdict'] = !c ? 'not_checked' : c.state === 'finished' ? (findings > 0 ? 'regressions' : 'clean') : c.state === 'failed' ? 'failed' : 'pending';
    return { id: d.id, commitSha: d.commit_sha, environment: d.environment, ref: d.ref, deployedAt: toIso(Number(d.deployed_at))!, verdict, findings, link: link(`/v1/deploys/${d.id}`) };
  });

  const checks = await judgeRuns(db, await finishedRuns(db, 'check', ws, from, to), link);
  const crawls = await judgeRuns(db, await finishedRuns(db, 'crawl', ws, from, to), link);

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
    newFindings: [...checks.found, ...crawls.found].sort(bySeverity).slice(0, MAX_FINDINGS),
    resolvedFindings: [...checks.resolved, ...crawls.resolved].sort(bySeverity).slice(0, MAX_FINDINGS),
    lostClicks,
    search,
  };
}

/** Nothing to say: no digest goes out. */
export function isEmptyReport(r: Report): boolean {
  return r.deploys.length === 0 && r.newFindings.length === 0 && r.resolvedFindings.length === 0 && r.lostClicks.length === 0 && r.search === null;
}
