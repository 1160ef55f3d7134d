// Site checks: the home page and key pages after a deploy, compared with the previous check.
export { newestChecksByDeploy, newestCheckOfDeploy, finishedCheckBefore, latestSiteChecks } from './checks.ts';
export { siteCheckToApi } from './to-api.ts';
export { runSiteCheck, finishCheck, type RunOptions } from './run.ts';
export { chooseKeyPages, KEY_PAGES } from './key-pages.ts';
export { queuedCheckSteps, queuedCheckRows, rescheduleCheck, type QueuedRun } from './queue.ts';
