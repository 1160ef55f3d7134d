import type { HandlerMap } from '../handler-types.ts';
import { notImplemented } from './not-implemented.ts';
import * as deploys from './deploys.ts';
import * as siteChecks from './site-checks.ts';
import * as workspaces from './workspaces.ts';
import * as logs from './logs.ts';
import * as activity from './activity.ts';

/**
 * One handler per operationId of the generated document. `satisfies` makes a missing or
 * mistyped handler a compile error; test/handler-map.test.ts catches extras at run time.
 */
export const handlers = {
  Deploys_create: deploys.create,
  Deploys_list: deploys.list,
  Deploys_get: deploys.get,
  SiteChecks_latest: siteChecks.latest,
  Workspaces_list: workspaces.list,
  Workspaces_create: workspaces.create,
  Workspaces_get: workspaces.get,
  Workspaces_update: workspaces.update,
  Workspaces_delete: workspaces.remove,
  Logs_list: logs.list,
  Activity_list: activity.list,
  Webhooks_list: notImplemented,
  Webhooks_create: notImplemented,
  Webhooks_get: notImplemented,
  Webhooks_update: notImplemented,
  Webhooks_delete: notImplemented,
  Webhooks_test: notImplemented,
  Webhooks_listDeliveries: notImplemented,
  Webhooks_getDelivery: notImplemented,
  Webhooks_redeliver: notImplemented,
} satisfies HandlerMap;
