import type { RetentionRule } from '../core/db/index.ts';
import { activityRetention } from '../core/activity/index.ts';
import { passkeyRetention, rateLimitRetention, signInRetention, ssoRetention } from '../core/access/index.ts';
import { jobRetention } from '../core/jobs/index.ts';
import { requestLogRetention } from '../core/request-logs/index.ts';
import { webhookRetention } from '../core/webhooks/index.ts';
import { eventRetention } from '../core/events/index.ts';
import { idempotencyRetention } from '../core/idempotency/index.ts';
import { searchDataRetention } from '../core/search-data/index.ts';
import { digestRetention } from '../core/digests/index.ts';

/** Every domain's retention rules, composed in the one place the maintenance task applies them. */
export const retentionRules: readonly RetentionRule[] = [...activityRetention, ...requestLogRetention, ...webhookRetention, ...eventRetention, ...searchDataRetention, ...rateLimitRetention, ...signInRetention, ...passkeyRetention, ...ssoRetention, ...jobRetention, ...idempotencyRetention, ...digestRetention];
