// Site checks: the home page and key pages after a deploy, compared with the previous check.
export { newestChecksByDeploy, newestCheckOfDeploy, finishedCheckBefore, latestSiteChecks, listSiteChecks, getSiteCheck, siteCheckDetail, type RunListQuery } from './checks.ts';
export { suspectChanges, SUSPECT_DEPLOYS, type Suspects } from './suspects.ts';

/** The resource `x-workspace` names with `of: "SiteCheck"` (server/resources.ts). */
export const SITE_CHECK_ROWS = { resource: 'SiteCheck', table: 'site_checks' } as const;
export { siteCheckToApi, pageFromRow } from './to-api.ts';
export { runSiteCheck, finishCheck, type RunOptions } from './run.ts';
export { chooseKeyPages, KEY_PAGES } from './key-pages.ts';
export { queuedCheckSteps, queuedCheckRows, rescheduleCheck, queueCheckNow, type QueuedRun } from './queue.ts';
