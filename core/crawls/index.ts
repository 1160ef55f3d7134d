// Crawls: same-origin links and the sitemap, breadth first, compared with the previous crawl.
export { newestCrawlOfDeploy, siteCrawlToApi, finishedCrawlBefore, listSiteCrawls, getSiteCrawl, siteCrawlDetail, latestSiteCrawls } from './crawls.ts';

/** The resource `x-workspace` names with `of: "SiteCrawl"` (server/resources.ts). */
export const SITE_CRAWL_ROWS = { resource: 'SiteCrawl', table: 'site_crawls' } as const;
export { runSiteCrawl, finishCrawl, type CrawlOptions } from './run.ts';
export { crawlFindings, newSince, REDIRECT_CHAIN_HOPS, type CrawledPage, type CrawlFinding } from './findings.ts';
export { queuedCrawlSteps, queuedCrawlRows, rescheduleCrawl, queueCrawlNow } from './queue.ts';
