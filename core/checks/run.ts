import type { Logger } from 'pino';
import { Deploy, SiteCheck, Workspace, withTransaction, type Db } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { checkPublicUrl } from '../net/index.ts';
import { SiteFetcher, notPublicMessage, robotsTxtUrl, type FetchedPage, type SiteFetcherOptions } from '../pages/index.ts';
import { bySeverity, compareChecks, compareRendered, compareSites, judgeCheck, judgeSite, rankCauses, ROBOTS_TEXT_KEPT, SITEMAP_URLS_KEPT, type SiteFacts } from '../findings/index.ts';
import { recordEvent } from '../events/index.ts';
import { nowMs } from '../platform/index.ts';
import { enqueue } from '../jobs/index.ts';
import { clicksByUrl } from '../search-data/index.ts';
import { renderPages } from '../render/index.ts';
import { chooseKeyPages } from './key-pages.ts';
import { finishedCheckBefore } from './checks.ts';
import { suspectChanges } from './suspects.ts';
import { pageFromRow, siteCheckToApi } from './to-api.ts';

export interface RunOptions extends Omit<SiteFetcherOptions, 'signal'> {
  signal: AbortSignal;
  log: Logger;
  /** Pages fetched at once. */
  concurrency?: number;
  /** Rendered checks (RENDER_*); absent: HTML only, as with RENDER_CHECKS=off. */
  render?: { mode: 'auto' | 'on' | 'off'; runs: number; timeoutMs: number };
}

/** Runs `fn` over `items` with at most `limit` at once, keeping the input order in the result. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  });
  await Promise.all(lanes);
  return out;
}

/**
 * Runs a site check: the home page and the key pages, each a page record; findings against the
 * previous finished check with their likely causes among the deploy's changes; issues of this
 * check alone; the `site_check.completed` and (with findings) `site_check.regression` events.
 *
 * At-least-once safe: a check already finished or failed is left alone, a check found `running`
 * (its worker died) is run again from the start, and the result is written only if the check is
 * still running, with events keyed by the check, so a second run writes nothing twice.
 */
export async function runSiteCheck(db: Db, checkId: string, o: RunOptions): Promise<void> {
  const check = await SiteCheck.query(db).findById(checkId);
  if (!check || check.state === 'finished' || check.state === 'failed') return;
  const startedAt = nowMs();
  await SiteCheck.query(db).findById(checkId).whereIn('state', ['queued', 'running']).patch({ state: 'running', started_at: startedAt });

  const workspace = await Workspace.query(db).findById(check.workspace_id).select('website', 'render_preset');
  if (!workspace) return; // deleted meanwhile: its checks went with it
  const home = workspace.website;
  const verdict = checkPublicUrl(home, { allowPrivateNetwork: o.allowPrivateNetwork, httpsOnly: false });
  if (!verdict.ok) return finishCheck(db, checkId, { error: notPublicMessage(verdict.reason) });

  const fetcher = new SiteFetcher({ ...o });
  const robotsFile = await fetcher.robotsTxtFile(home);
  const robots = robotsFile.robots;
  const first = await fetcher.page(home, robots);
  if (first.error?.code === 'blocked_address') {
    o.log.debug({ checkId, refusedAddress: first.error.refusedAddress }, 'website refused: not a public address');
    return finishCheck(db, checkId, { error: notPublicMessage(first.error.message) });
  }
  const keyPages = await chooseKeyPages(db, { workspaceId: check.workspace_id, home: first.record.finalUrl || home, fetcher, robots });
  const rest = await mapLimit(keyPages, o.concurrency ?? 4, (url) => fetcher.page(url, robots));
  const fetched = [first.record, ...rest.map((p) => p.record)];
  const pages = await withRenders(fetched, workspace.render_preset, o);

  const site = await siteFacts(fetcher, robotsFile, first, startedAt);

  const baseline = await finishedCheckBefore(db, check.workspace_id, Number(check.scheduled_at));
  const { changes, explanation, deploys } = baseline
    ? await suspectChanges(db, check, Number(baseline.started_at ?? baseline.scheduled_at), startedAt, 'check')
    : { changes: [], explanation: null, deploys: 0 };
  const raw = baseline ? [...compareSites(baseline.site, site, { checkedAt: startedAt, deploysBetween: deploys }), ...compareChecks(baseline.pages.map(pageFromRow), pages), ...compareRendered(baseline.pages.map(pageFromRow), pages)].sort(bySeverity) : [];
  const spread = (kind: string) => raw.filter((f) => f.kind === kind).length / pages.length;
  // Clicks as of now, for the events' payloads; the API reads them again when a finding is read.
  const clicks = await clicksByUrl(db, check.workspace_id, raw.map((f) => f.url));
  const findings: Schemas['DeployFinding'][] = raw.map((f) => ({ ...f, clicks: clicks.get(f.url) ?? 0, causes: rankCauses(f.kind, f.url, changes, { spread: spread(f.kind) }), explanation }));
  const issues = [...judgeSite(site, startedAt), ...judgeCheck(pages)].sort(bySeverity);
  await finishCheck(db, checkId, { pages, site, findings, issues, baselineId: baseline?.id ?? null });
  o.log.info({ checkId, pages: pages.length, findings: findings.length, ms: nowMs() - startedAt }, 'site check finished');
}

/** What the check saw of the site as a whole: the home page's certificate, robots.txt, the sitemap. */
async function siteFacts(fetcher: SiteFetcher, robotsFile: Awaited<ReturnType<SiteFetcher['robotsTxtFile']>>, first: FetchedPage, checkedAt: number): Promise<SiteFacts> {
  const home = first.record.finalUrl || first.record.url;
  const sitemap = await fetcher.sitemaps(home, robotsFile.robots, { maxTotalUrls: SITEMAP_URLS_KEPT });
  const urls = [...new Set(sitemap.urls)].sort();
  return {
    checkedAt,
    home,
    certificateValidTo: first.certificateValidTo,
    robotsUrl: robotsTxtUrl(home),
    robotsText: robotsFile.text === null ? null : robotsFile.text.slice(0, ROBOTS_TEXT_KEPT),
    sitemapUrl: sitemap.reachable ? (robotsFile.robots.sitemaps[0] ?? new URL('/sitemap.xml', home).href) : null,
    sitemapUrls: sitemap.reachable ? urls.slice(0, SITEMAP_URLS_KEPT) : null,
  };
}

/**
 * Each page with its render record: pages that answered 2xx are rendered (home page and key
 * pages alike); the others are `skipped`, their HTML status already says what is wrong.
 */
async function withRenders(pages: Schemas['PageRecord'][], preset: Schemas['RenderPreset'], o: RunOptions): Promise<Schemas['PageRecord'][]> {
  const answered = (p: Schemas['PageRecord']) => p.status !== null && p.status >= 200 && p.status < 300;
  const { renders } = await renderPages(
    pages.filter(answered).map((p) => p.url),
    { mode: o.render?.mode ?? 'off', runs: o.render?.runs ?? 3, timeoutMs: o.render?.timeoutMs ?? 30_000, preset, allowPrivateNetwork: o.allowPrivateNetwork === true, log: o.log, signal: o.signal },
  );
  const notRendered = { state: 'skipped' as const, reason: 'the page did not answer 2xx', runs: 0, title: null, canonical: null, robots: [], hreflang: [], structuredDataTypes: [], preset: null, metrics: null, weight: null, scores: null };
  return pages.map((p) => ({ ...p, render: renders.get(p.url) ?? notRendered }));
}

interface Outcome {
  pages?: Schemas['PageRecord'][];
  site?: SiteFacts;
  findings?: Schemas['DeployFinding'][];
  issues?: Schemas['SiteCheckIssue'][];
  baselineId?: string | null;
  /** Set when the check could not run: it ends `failed` with this message. */
  error?: string;
}

/**
 * Ends a running check (finished, or failed with `error`) and writes its events, in one
 * transaction; a check no longer running (another attempt ended it) is left as it is.
 */
export async function finishCheck(db: Db, checkId: string, outcome: Outcome): Promise<void> {
  await withTransaction(db, async (trx) => {
    const failed = outcome.error !== undefined;
    const n = await SiteCheck.query(trx)
      .findById(checkId)
      .where('state', 'running')
      .patch({
        state: failed ? 'failed' : 'finished',
        finished_at: nowMs(),
        pages: outcome.pages ?? [],
        site: outcome.site ?? null,
        findings: failed ? null : { findings: outcome.findings ?? [], issues: outcome.issues ?? [] },
        error: outcome.error ?? null,
      });
    if (n === 0) return;
    const check = (await SiteCheck.query(trx).findById(checkId))!;
    // A deploy from a connected repository gets the verdict as a commit status (core/connections).
    const fromConnection = check.deploy_id ? (await Deploy.query(trx).findById(check.deploy_id).select('connection_id'))?.connection_id : null;
    if (fromConnection) await enqueue(trx, 'commit_status', { checkId }, { dedupeKey: `commit_status:${checkId}:done`, workspaceId: check.workspace_id });
    const api = siteCheckToApi(check);
    const findings = outcome.findings ?? [];
    await recordEvent(
      trx,
      check.workspace_id,
      'site_check.completed',
      { check: api, findings: findings.length, issues: (outcome.issues ?? []).length },
      { idempotencyKey: `site_check.completed:${checkId}` },
    );
    // Findings exist only against a baseline.
    if (findings.length > 0 && outcome.baselineId) {
      await recordEvent(
        trx,
        check.workspace_id,
        'site_check.regression',
        { check: api, baselineId: outcome.baselineId, deployId: check.deploy_id, findings },
        { idempotencyKey: `site_check.regression:${checkId}` },
      );
    }
  });
}
