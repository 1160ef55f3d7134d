// Crawls: same-origin links and the sitemap, breadth first, compared with the previous crawl.
export { newestCrawlOfDeploy, siteCrawlToApi } from './crawls.ts';
