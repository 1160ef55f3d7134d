// Crawls: same-origin links and the sitemap, breadth first, compared with the previous crawl.
export { newestCrawlOfDeploy, siteCrawlToApi } from './crawls.ts';
export { runSiteCrawl, finishCrawl, type CrawlOptions } from './run.ts';
export { crawlFindings, newSince, REDIRECT_CHAIN_HOPS, type CrawledPage, type CrawlFinding } from './findings.ts';
export { queuedCrawlSteps, queuedCrawlRows, rescheduleCrawl } from './queue.ts';
