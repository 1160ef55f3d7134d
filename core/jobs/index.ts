// The jobs table: enqueue (in the caller's transaction), claim, complete, fail, heartbeat,
// release, lease recovery, cancellation, operator views, retention and the queue's depth for
// the metrics. One module per statement, each readable on its own.
// SQL text (runSql), not the models: the queue's statements are its throughput (bench:queue).
export { enqueue, enqueueKind, JOBS_CHANNEL, type EnqueueOptions, type EnqueueResult } from './enqueue.ts';
export { wakeWorkersAfterCommit } from './wake.ts';
export { jobStep, jobRow, type PlannedJob } from './plan.ts';
export { claimJobs, PG_CLAIM, type ClaimedJob, type ClaimOptions } from './claim.ts';
export { completeJobs, type JobLease } from './complete.ts';
export { failJob, type FailOutcome } from './fail.ts';
export { extendLeases } from './heartbeat.ts';
export { releaseJobs } from './release.ts';
export { resetExpiredLeases, type RecoveredJob } from './reset-expired.ts';
export { cancelJobs } from './cancel.ts';
export { retryDelayMs } from './backoff.ts';
export {
  jobKinds,
  JOB_KINDS,
  JOB_STATES,
  DEFAULT_RETRY_POLICY,
  isJobKind,
  isJobState,
  retryPolicy,
  type JobKind,
  type JobPayloads,
  type JobState,
  type RetryPolicy,
} from './kinds.ts';
export { jobStats, listJobs, getJob, retryJob, type JobStats, type JobView, type RetryResult } from './admin.ts';
export { jobRetention } from './retention.ts';
export { queueDepth, DEPTH_STATES, type DepthState, type QueueDepth } from './depth.ts';
