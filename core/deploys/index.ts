// Deploys: recording from CI (an idempotent upsert that schedules the check and crawl), lists and detail.
export { listDeploys, getDeploy, deployToApi, PRODUCTION, type ListDeploysQuery } from './deploys.ts';
export { recordDeploy, MANUAL_ORIGIN, type DeployInput, type DeployOrigin, type RecordResult, type ScheduleDelays } from './record.ts';
export { deployDetail } from './detail.ts';

/** Deploy rows carry their workspace: an operation whose path names a deploy declares `of: "Deploy"` (spec/main.tsp). */
export const DEPLOY_ROWS = { resource: 'Deploy', table: 'deploys' } as const;
