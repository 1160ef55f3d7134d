import type { HandlerMap } from '../handler-types.ts';
import * as deploys from './deploys.ts';
import * as siteChecks from './site-checks.ts';
import * as siteCrawls from './site-crawls.ts';
import * as workspaces from './workspaces.ts';
import * as logs from './logs.ts';
import * as activity from './activity.ts';
import * as webhooks from './webhooks.ts';
import * as connections from './connections.ts';
import * as hooks from './hooks.ts';
import * as apiKeys from './api-keys.ts';
import * as members from './members.ts';
import * as digests from './digests.ts';
import * as sessions from './sessions.ts';
import * as passkeys from './passkeys.ts';
import * as sso from './sso.ts';
import * as searchPerformance from './search-performance.ts';
import * as searchConsole from './search-console.ts';

/**
 * One handler per operationId of the generated document. `satisfies` makes a missing or
 * mistyped handler a compile error; test/handler-map.test.ts catches extras at run time.
 */
export const handlers = {
  Deploys_create: deploys.create,
  Deploys_list: deploys.list,
  Deploys_get: deploys.get,
  SiteChecks_create: siteChecks.create,
  SiteChecks_list: siteChecks.list,
  SiteChecks_latest: siteChecks.latest,
  SiteChecks_get: siteChecks.get,
  SiteCrawls_create: siteCrawls.create,
  SiteCrawls_list: siteCrawls.list,
  SiteCrawls_latest: siteCrawls.latest,
  SiteCrawls_get: siteCrawls.get,
  Workspaces_list: workspaces.list,
  Workspaces_create: workspaces.create,
  Workspaces_get: workspaces.get,
  Workspaces_update: workspaces.update,
  Workspaces_delete: workspaces.remove,
  Logs_list: logs.list,
  Activity_list: activity.list,
  Webhooks_list: webhooks.list,
  Webhooks_create: webhooks.create,
  Webhooks_get: webhooks.get,
  Webhooks_update: webhooks.update,
  Webhooks_delete: webhooks.remove,
  Webhooks_test: webhooks.test,
  Webhooks_listDeliveries: webhooks.listDeliveriesOf,
  Webhooks_getDelivery: webhooks.getDeliveryOf,
  Webhooks_redeliver: webhooks.redeliver,
  Connections_list: connections.list,
  Connections_create: connections.create,
  Connections_update: connections.update,
  Connections_delete: connections.remove,
  Hooks_github: hooks.github,
  Hooks_gitlab: hooks.gitlab,
  ApiKeys_list: apiKeys.list,
  ApiKeys_create: apiKeys.create,
  ApiKeys_get: apiKeys.get,
  ApiKeys_delete: apiKeys.remove,
  ApiKeys_rotate: apiKeys.rotate,
  Members_list: members.list,
  Members_update: members.update,
  Members_delete: members.remove,
  Invitations_list: members.listInvites,
  Invitations_create: members.invite,
  Invitations_delete: members.withdraw,
  InvitationAcceptance_accept: members.accept,
  Notifications_get: digests.getNotifications,
  Notifications_update: digests.updateNotifications,
  Reports_get: digests.report,
  Unsubscribe_page: digests.unsubscribePage,
  Unsubscribe_unsubscribe: digests.unsubscribe,
  Sessions_create: sessions.signIn,
  Sessions_list: sessions.list,
  Sessions_delete: sessions.remove,
  CurrentUser_signOutOthers: sessions.signOutOthers,
  CurrentUser_get: sessions.me,
  CurrentUser_changePassword: sessions.changeOwnPassword,
  CurrentUser_sendVerification: sessions.sendVerification,
  PasswordReset_request: sessions.requestReset,
  PasswordReset_complete: sessions.completeReset,
  EmailVerification_complete: sessions.verifyEmail,
  Passkeys_registrationOptions: passkeys.registrationOptions,
  Passkeys_create: passkeys.create,
  Passkeys_list: passkeys.list,
  Passkeys_delete: passkeys.remove,
  PasskeySignIn_options: passkeys.signInOptions,
  PasskeySignIn_create: passkeys.signIn,
  SingleSignOn_get: sso.get,
  SingleSignOn_configure: sso.configure,
  SingleSignOn_remove: sso.remove,
  SsoSignIn_start: sso.start,
  SsoSignIn_callback: sso.callback,
  TwoStepSignIn_complete: sessions.completeTwoStep,
  CurrentUser_startTwoStep: sessions.startOwnTwoStep,
  CurrentUser_confirmTwoStep: sessions.confirmOwnTwoStep,
  CurrentUser_disableTwoStep: sessions.disableOwn,
  CurrentUser_regenerateRecoveryCodes: sessions.regenerateCodes,
  SearchPerformance_get: searchPerformance.get,
  SearchConsole_get: searchConsole.get,
  SearchConsole_connect: searchConsole.connect,
  SearchConsole_disconnect: searchConsole.disconnect,
  SearchConsole_sync: searchConsole.sync,
  SearchConsoleCallback_complete: searchConsole.complete,
} satisfies HandlerMap;
