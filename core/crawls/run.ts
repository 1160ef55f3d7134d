import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { CrawlPage, SiteCrawl, Workspace, withTransaction, type Db } from '../db/index.ts';
import type { Schemas } from '../contract/index.ts';
import { checkPublicUrl } from '../net/index.ts';
import { SiteFetcher, isSameOrigin, normalizeUrl, notPublicMessage, originOf, type RobotsTxt, type SiteFetcherOptions } from '../pages/index.ts';
import { topPagesByClicks } from '../search-data/index.ts';
import { KEY_PAGES, suspectChanges } from '../checks/index.ts';
import { rankCauses } from '../findings/index.ts';
import { recordEvent } from '../events/index.ts';
import { nowMs } from '../platform/index.ts';
import { Frontier } from './frontier.ts';
import { crawlFindings, newSince, type CrawledPage, type CrawlFinding } from './findings.ts';
import { finishedCrawlBefore, siteCrawlToApi } from './crawls.ts';

export interface CrawlOptions extends Omit<SiteFetcherOptions, 'signal'> {
  signal: AbortSignal;
  log: Logger;
  /** Pages fetched at most (CRAWL_MAX_PAGES). */
  maxPages: number;
  /** Requests to the site at once (CRAWL_CONCURRENCY). */
  concurrency: number;
  /** Pause of each of those between its requests, ms (CRAWL_DELAY_MS); robots.txt's Crawl-delay, up to 2 s, when larger. */
  delayMs: number;
}

/** How often the crawl's `pagesCrawled` is brought up to date while it runs. */
const PROGRESS_EVERY_MS = 2000;

/**
 * Crawls a website breadth first from its home page and its sitemap: same-origin links only,
 * robots.txt obeyed (a disallowed URL is recorded, never fetched), at most `maxPages` fetched,
 * `concurrency` requests at a time with `delayMs` between each lane's requests. Then the pages
 * the site had before that the walk did not find again (knownPages: they may have been deleted,
 * moved or unlinked). Then its findings, the ones new since the previous finished crawl with
 * their likely causes, the page list for the next crawl and for check key pages, and the
 * `site_crawl.completed` and (with new findings) `site_crawl.regression` events, in one
 * transaction.
 *
 * At-least-once safe like a check: a crawl already ended is left alone; one found `running` is
 * crawled again from the start; results and events are written once.
 */
export async function runSiteCrawl(db: Db, crawlId: string, o: CrawlOptions): Promise<void> {
  const crawl = await SiteCrawl.query(db).findById(crawlId);
  if (!crawl || crawl.state === 'finished' || crawl.state === 'failed') return;
  const startedAt = nowMs();
  await SiteCrawl.query(db).findById(crawlId).whereIn('state', ['queued', 'running']).patch({ state: 'running', started_at: startedAt, pages_crawled: 0 });
  const workspace = await Workspace.query(db).findById(crawl.workspace_id).select('website');
  if (!workspace) return;
  const verdict = checkPublicUrl(workspace.website, { allowPrivateNetwork: o.allowPrivateNetwork, httpsOnly: false });
  if (!verdict.ok) return finishCrawl(db, crawlId, { error: notPublicMessage(verdict.reason) });

  const fetcher = new SiteFetcher({ ...o });
  const robots = await fetcher.robotsTxt(workspace.website);
  const first = await fetcher.page(workspace.website, robots);
  if (first.error?.code === 'blocked_address') {
    o.log.debug({ crawlId, refusedAddress: first.error.refusedAddress }, 'website refused: not a public address');
    return finishCrawl(db, crawlId, { error: notPublicMessage(first.error.message) });
  }
  // The site is where the home page landed (http -> https, apex -> www).
  const home = normalizeUrl(first.record.finalUrl) ?? workspace.website;

  const sitemap = await fetcher.sitemaps(home, robots, { maxTotalUrls: o.maxPages * 4 });
  const inSitemap = new Set(sitemap.urls.map((u) => normalizeUrl(u)).filter((u): u is string => u !== null));

  // The same baseline the crawl's detail shows (core/crawls/crawls.ts).
  const previous = await finishedCrawlBefore(db, crawl.workspace_id, Number(crawl.scheduled_at));
  const known = await knownPages(db, crawl.workspace_id, home, previous?.id ?? null);
  const walked = await walk({ home, first, fetcher, robots, inSitemap, revisit: known.revisit, o, progress: (n) => progress(db, crawlId, n) });
  const pages = walked.pages;
  const all = crawlFindings({
    pages,
    home,
    sitemapErrors: sitemap.errors,
    sitemapReachable: sitemap.reachable,
    previouslyOk: known.ok,
    previouslyDirect: known.direct,
    complete: walked.complete,
  });
  const { changes, explanation } = previous
    ? await suspectChanges(db, crawl, Number(previous.started_at ?? previous.scheduled_at), startedAt, 'crawl')
    : { changes: [], explanation: null };
  // Without a previous crawl nothing is "new": a first crawl sets the reference.
  const fresh: Schemas['DeployCrawlFinding'][] = previous
    ? newSince(all, (previous.findings?.all ?? []) as CrawlFinding[]).map((f) => ({
        ...f,
        causes: rankCauses(f.kind, f.url, changes, { spread: all.filter((x) => x.kind === f.kind).length / Math.max(1, pages.length) }),
        explanation,
      }))
    : [];
  await finishCrawl(db, crawlId, { pages, all, fresh });
  o.log.info({ crawlId, pages: pages.length, findings: all.length, new: fresh.length, ms: nowMs() - startedAt }, 'crawl finished');
}

/** A URL the crawl asks for again if the walk did not find it, with the depth it is recorded at. */
interface Revisit {
  url: string;
  depth: number;
}

/** What the site answered before this crawl, and what to ask for again if the walk misses it. */
interface KnownPages {
  /** URLs that answered 200 in the previous crawl (after any redirects), and the key pages by search clicks. */
  ok: Set<string>;
  /** URLs that answered 200 at their own address (no redirect) in the previous crawl. */
  direct: Set<string>;
  revisit: { always: Revisit[]; ifRoom: Revisit[] };
}

/**
 * The pages a crawl requests again when its walk did not rediscover them (docs/api.md#pages-that-vanish):
 * always the key pages by search clicks (the same top KEY_PAGES a check looks at, over the last 28
 * days of search data), then, within the page cap, every same-origin URL that answered 200 in the
 * previous finished crawl, shallowest and most linked first. A revisited page keeps the depth it
 * had in the previous crawl; a key page the previous crawl did not have is at depth 1, as a
 * sitemap URL is.
 */
async function knownPages(db: Db, workspaceId: string, home: string, previousId: string | null): Promise<KnownPages> {
  const before = previousId
    ? await CrawlPage.query(db)
        .where({ crawl_id: previousId, status: 200, blocked_by_robots: false })
        .orderBy([{ column: 'depth' }, { column: 'inlinks', order: 'desc' }, { column: 'url' }])
        .select('url', 'depth', 'redirects')
    : [];
  const origin = originOf(home);
  const searched = origin ? await topPagesByClicks(db, workspaceId, { origin, limit: KEY_PAGES }) : [];
  const depthOf = new Map(before.map((p) => [p.url, p.depth]));
  const always: Revisit[] = [];
  const seen = new Set<string>();
  for (const { url: raw } of searched) {
    const url = normalizeUrl(raw);
    if (!url || seen.has(url) || !isSameOrigin(url, home)) continue;
    seen.add(url);
    always.push({ url, depth: depthOf.get(url) ?? 1 });
  }
  const ifRoom = before.filter((p) => !seen.has(p.url) && isSameOrigin(p.url, home)).map((p) => ({ url: p.url, depth: p.depth }));
  return {
    ok: new Set([...before.map((p) => p.url), ...seen]),
    direct: new Set(before.filter((p) => p.redirects.length === 0).map((p) => p.url)),
    revisit: { always, ifRoom },
  };
}

interface WalkInput {
  home: string;
  first: Awaited<ReturnType<SiteFetcher['page']>>;
  fetcher: SiteFetcher;
  robots: RobotsTxt;
  inSitemap: ReadonlySet<string>;
  revisit: KnownPages['revisit'];
  o: CrawlOptions;
  progress: (fetched: number) => void;
}

/**
 * The breadth-first walk itself: the frontier, the lanes and the page list. Then the known pages
 * the walk did not find (`revisit`), fetched by the same lanes but never followed: nothing on the
 * site links to them any more, so their own links say nothing about the site's. `complete`: the
 * walk ran out of links before the page cap, so a page it did not find is really unlinked.
 */
async function walk(w: WalkInput): Promise<{ pages: CrawledPage[]; complete: boolean }> {
  const { home, fetcher, robots, o } = w;
  const frontier = new Frontier();
  const records = new Map<string, Omit<CrawledPage, 'inlinks' | 'linkedFrom' | 'inSitemap'>>();
  frontier.add(home, 0);
  for (const url of w.inSitemap) if (isSameOrigin(url, home)) frontier.add(url, 1);
  const delay = Math.max(o.delayMs, Math.min(2000, (robots.crawlDelaySeconds ?? 0) * 1000));

  let fetched = 0;
  let started = 1; // the home page
  let lastProgress = Date.now();
  const visit = async (url: string, depth: number, page?: WalkInput['first'], revisited = false) => {
    if (!robots.isAllowed(url)) {
      records.set(url, { url, depth, status: null, finalUrl: null, redirects: [], title: null, robots: [], blockedByRobots: true, error: null, isHtml: false, revisited });
      return;
    }
    const got = page ?? (await fetcher.page(url, robots));
    fetched += 1;
    const r = got.record;
    records.set(url, {
      url,
      depth,
      status: r.status,
      finalUrl: r.finalUrl,
      redirects: r.redirects,
      title: r.title,
      robots: r.robots,
      blockedByRobots: false,
      error: got.error ? { code: got.error.code, message: got.error.message } : null,
      isHtml: got.analysis?.isHtml ?? false,
      revisited,
    });
    const final = normalizeUrl(r.finalUrl);
    // Links of an HTML page that stayed on the site; a page that redirected off-site is not ours.
    if (!revisited && got.analysis?.isHtml && final && isSameOrigin(final, home)) {
      for (const link of got.analysis.links) {
        frontier.link(url, link);
        if (isSameOrigin(link, home)) frontier.add(link, depth + 1);
      }
    }
    if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
      lastProgress = Date.now();
      w.progress(fetched);
    }
  };

  // The home page was fetched already (to find where the site lives).
  const start = frontier.next()!;
  await visit(start.url, 0, w.first);
  let active = 0;
  const lane = async () => {
    for (;;) {
      o.signal.throwIfAborted();
      if (started >= o.maxPages) return;
      const entry = frontier.next();
      if (!entry) {
        // Another lane may still find links: wait for it rather than stop early.
        if (active === 0) return;
        await sleep(5);
        continue;
      }
      active += 1;
      if (robots.isAllowed(entry.url)) started += 1;
      try {
        await visit(entry.url, entry.depth);
      } finally {
        active -= 1;
      }
      if (delay > 0) await sleep(delay);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, lane));
  const complete = frontier.pending === 0;

  // Known pages the walk did not find: key pages by search clicks whatever the cap, the rest of
  // the previous crawl while the cap allows. robots.txt still decides; a disallowed URL is skipped.
  const missed = (r: Revisit) => !records.has(r.url) && robots.isAllowed(r.url);
  const room = Math.max(0, o.maxPages - started);
  const queue = [...w.revisit.always.filter(missed), ...w.revisit.ifRoom.filter(missed).slice(0, room)];
  let next = 0;
  const revisitLane = async () => {
    for (;;) {
      o.signal.throwIfAborted();
      const entry = queue[next++];
      if (!entry) return;
      if (records.has(entry.url)) continue;
      await visit(entry.url, entry.depth, undefined, true);
      if (delay > 0) await sleep(delay);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, revisitLane));

  const pages = [...records.values()].map((r) => {
    const inbound = frontier.inlinks.get(r.url);
    return { ...r, inlinks: inbound?.count ?? 0, linkedFrom: inbound?.from ?? null, inSitemap: w.inSitemap.has(r.url) };
  });
  return { pages, complete };
}

function progress(db: Db, crawlId: string, fetched: number): void {
  // Best effort: progress is for people watching; the final write is what counts.
  void SiteCrawl.query(db)
    .findById(crawlId)
    .where('state', 'running')
    .patch({ pages_crawled: fetched })
    .catch(() => {});
}

interface CrawlOutcome {
  pages?: CrawledPage[];
  all?: CrawlFinding[];
  fresh?: Schemas['DeployCrawlFinding'][];
  error?: string;
}

/** Ends a running crawl with its pages, findings and events, or failed with `error`. */
export async function finishCrawl(db: Db, crawlId: string, outcome: CrawlOutcome): Promise<void> {
  const pages = outcome.pages ?? [];
  await withTransaction(db, async (trx) => {
    const failed = outcome.error !== undefined;
    const n = await SiteCrawl.query(trx)
      .findById(crawlId)
      .where('state', 'running')
      .patch({
        state: failed ? 'failed' : 'finished',
        finished_at: nowMs(),
        pages_crawled: pages.filter((p) => !p.blockedByRobots).length,
        findings: failed ? null : { all: outcome.all ?? [], crawlFindings: outcome.fresh ?? [] },
        error: outcome.error ?? null,
      });
    if (n === 0) return;
    await CrawlPage.query(trx).where({ crawl_id: crawlId }).delete();
    // Plain Knex: Objection inserts several rows in one statement on PostgreSQL only, and a crawl
    // of 500 pages should not be 500 statements.
    for (let i = 0; i < pages.length; i += 200) {
      await trx('crawl_pages').insert(
        pages.slice(i, i + 200).map((p) => ({
          crawl_id: crawlId,
          url: p.url,
          depth: p.depth,
          status: p.status,
          final_url: p.finalUrl,
          redirects: JSON.stringify(p.redirects),
          title: p.title,
          robots: JSON.stringify(p.robots),
          blocked_by_robots: p.blockedByRobots,
          in_sitemap: p.inSitemap,
          inlinks: p.inlinks,
          linked_from: p.linkedFrom,
          error: p.error?.message ?? null,
        })),
      );
    }
    const crawl = (await SiteCrawl.query(trx).findById(crawlId))!;
    const api = siteCrawlToApi(crawl);
    const fresh = outcome.fresh ?? [];
    await recordEvent(trx, crawl.workspace_id, 'site_crawl.completed', { crawl: api, findings: (outcome.all ?? []).length, newFindings: fresh.length }, {
      idempotencyKey: `site_crawl.completed:${crawlId}`,
    });
    if (fresh.length > 0) {
      await recordEvent(trx, crawl.workspace_id, 'site_crawl.regression', { crawl: api, deployId: crawl.deploy_id, findings: fresh }, {
        idempotencyKey: `site_crawl.regression:${crawlId}`,
      });
    }
  });
}
