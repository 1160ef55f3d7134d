// Deploys: recording from CI (an idempotent upsert that schedules the check and crawl), lists and detail.
export { recordDeploy, listDeploys, getDeploy, deployToApi, PRODUCTION, type DeployInput, type RecordResult, type ScheduleDelays, type ListDeploysQuery } from './deploys.ts';
export { deployDetail } from './detail.ts';
