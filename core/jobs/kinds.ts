import { JOB_STATES, type JobState } from '../db/index.ts';

// The job kinds and their payload types: the single list that the API (enqueue), the worker
// (task registry) and the operator CLI agree on.
//
// To add a kind:
//   1. add `my_kind: { ...payload }` to JobPayloads (ids only: payloads are logged by kind and
//      id, never by content, and must not carry secrets),
//   2. add its retry policy to `jobKinds` below (the compiler insists),
//   3. add worker/tasks/my_kind.ts and register it in worker/tasks/index.ts (the compiler
//      insists there too).

export interface JobPayloads {
  /** Retention and cleanup; one per period across all workers (see worker/maintenance.ts). */
  maintenance: { periodStart: number };
  site_check: { checkId: string };
  site_crawl: { crawlId: string };
  /** Turns one outbox event into a message per subscribed active webhook, each with its first delivery. */
  webhook_fanout: { eventId: string };
  /** One delivery attempt of a message (the retry schedule enqueues the next). */
  webhook_delivery: { messageId: string; attempt: number };
  /** A connected repository's push or deployment into a deploy, its changes read from the host (core/connections). */
  repository_deploy: { deliveryId: string };
  /** The commit status of a deploy's site check, posted back to its connected repository. */
  commit_status: { checkId: string };
  /** A Search Console sync: the days since the last one and the 3 before (core/search-console). */
  search_sync: { connectionId: string };
  /** The digests of one workspace, frequency and slot (core/digests): one per member who wants them. */
  digest: { workspaceId: string; frequency: 'daily' | 'weekly'; slotAt: number };
}

export type JobKind = keyof JobPayloads;

export interface RetryPolicy {
  /** Attempts in all (the first run included) before the job is recorded as failed. */
  maxAttempts: number;
  /** Delay before retry 1; doubles for each further retry, capped at backoffMaxMs. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Abort the attempt (and fail it) after this long; 0 = no limit. */
  timeoutMs: number;
}

const MINUTE = 60_000;

export const jobKinds = {
  maintenance: { maxAttempts: 3, backoffBaseMs: 1 * MINUTE, backoffMaxMs: 15 * MINUTE, timeoutMs: 30 * MINUTE },
  site_check: { maxAttempts: 3, backoffBaseMs: 30_000, backoffMaxMs: 10 * MINUTE, timeoutMs: 10 * MINUTE },
  site_crawl: { maxAttempts: 3, backoffBaseMs: 1 * MINUTE, backoffMaxMs: 30 * MINUTE, timeoutMs: 2 * 60 * MINUTE },
  webhook_fanout: { maxAttempts: 10, backoffBaseMs: 5_000, backoffMaxMs: 5 * MINUTE, timeoutMs: MINUTE },
  // The webhook retry schedule (WEBHOOK_RETRY_SCHEDULE) owns retries of failed deliveries: each
  // job makes one attempt and schedules the next. The queue's own attempts only repeat an attempt
  // whose result could not be recorded (database down), with the same delivery key and body.
  webhook_delivery: { maxAttempts: 5, backoffBaseMs: 5_000, backoffMaxMs: 5 * MINUTE, timeoutMs: 2 * MINUTE },
  // Each attempt retries the host's 5xx and rate limits itself (core/connections/host-fetch.ts);
  // the queue's attempts cover a worker that died, and the last one records the deploy without changes.
  repository_deploy: { maxAttempts: 3, backoffBaseMs: 5_000, backoffMaxMs: 2 * MINUTE, timeoutMs: 10 * MINUTE },
  commit_status: { maxAttempts: 5, backoffBaseMs: 10_000, backoffMaxMs: 10 * MINUTE, timeoutMs: 2 * MINUTE },
  // A failed attempt (Search Console's 5xx, a timeout) is retried; the last failure is recorded on
  // the connection and in the activity feed. A refused token is not retried (core/search-console).
  search_sync: { maxAttempts: 3, backoffBaseMs: MINUTE, backoffMaxMs: 15 * MINUTE, timeoutMs: 30 * MINUTE },
  // A failed send puts its member back (core/digests/send.ts): a retry sends only the members not
  // sent yet. 8 attempts span about 35 minutes: past STALE_SEND_MS, so a member whose send a dead
  // worker held is taken again by a retry.
  digest: { maxAttempts: 8, backoffBaseMs: 30_000, backoffMaxMs: 10 * MINUTE, timeoutMs: 10 * MINUTE },
} as const satisfies { [K in JobKind]: RetryPolicy };

export const JOB_KINDS = Object.keys(jobKinds) as JobKind[];

export function isJobKind(value: unknown): value is JobKind {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(jobKinds, value);
}

/**
 * Kinds outside this list are run only by workers that registered a handler for them (tests and
 * benchmarks extend the registry); they get this policy.
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 3, backoffBaseMs: 1_000, backoffMaxMs: 10_000, timeoutMs: 0 };

export function retryPolicy(kind: string): RetryPolicy {
  return isJobKind(kind) ? jobKinds[kind] : DEFAULT_RETRY_POLICY;
}

export { JOB_STATES, type JobState };

export function isJobState(value: unknown): value is JobState {
  return typeof value === 'string' && (JOB_STATES as readonly string[]).includes(value);
}
