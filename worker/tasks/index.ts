import type { TaskRegistry } from '../task.ts';
import { maintenance } from './maintenance.ts';
import { site_check } from './site_check.ts';
import { site_crawl } from './site_crawl.ts';
import { webhook_delivery } from './webhook_delivery.ts';
import { webhook_fanout } from './webhook_fanout.ts';
import { repository_deploy } from './repository_deploy.ts';
import { commit_status } from './commit_status.ts';
import { search_sync } from './search_sync.ts';
import { digest } from './digest.ts';

// The task registry: one file per kind, named after the kind. `satisfies` makes a declared kind
// (core/jobs/kinds.ts) without a handler, or a handler for an undeclared kind, a compile error.
export const tasks = {
  maintenance,
  site_check,
  site_crawl,
  webhook_fanout,
  webhook_delivery,
  repository_deploy,
  commit_status,
  search_sync,
  digest,
} satisfies TaskRegistry;
