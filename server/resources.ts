import { DEPLOY_ROWS } from '../core/deploys/index.ts';
import { WEBHOOK_ROWS } from '../core/webhooks/index.ts';
import { SITE_CHECK_ROWS } from '../core/checks/index.ts';
import { SITE_CRAWL_ROWS } from '../core/crawls/index.ts';

/**
 * The resources an operation's `x-workspace` may name with `of` (spec/main.tsp), each with the
 * table its owning domain keeps them in. createApp refuses to start when the document names a
 * resource missing here.
 */
export const ROW_RESOURCES: ReadonlyArray<{ resource: string; table: string }> = [DEPLOY_ROWS, WEBHOOK_ROWS, SITE_CHECK_ROWS, SITE_CRAWL_ROWS];
