// Friendly names for the generated API types (src/generated/types.ts, a copy of the repository's
// generated/types.ts), used as generated: no type here loosens or retypes the document.
import type { components, operations } from './generated/types.js';

export type { components, operations, paths } from './generated/types.js';

type Schemas = components['schemas'];
type Query<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

export type Workspace = Schemas['Workspace'];
export type WorkspaceType = Schemas['WorkspaceType'];
export type WorkspaceList = Schemas['WorkspaceList'];
export type WorkspaceUpdate = Schemas['WorkspaceUpdate'];
/** `type`, `timezone` and `language` are optional: the server defaults them to `PERSONAL`, `UTC` and `en`. */
export type WorkspaceCreate = Schemas['WorkspaceCreate'];

export type Deploy = Schemas['Deploy'];
export type DeployDetail = Schemas['DeployDetail'];
export type DeployList = Schemas['DeployList'];
export type DeployListItem = Schemas['DeployListItem'];
export type DeployListQuery = Query<'Deploys_list'>;
export type ChangeCategory = Schemas['ChangeCategory'];
export type Signal = Schemas['Signal'];
export type SignalKind = Schemas['SignalKind'];
export type Change = Schemas['Change'];
/** A changed file as sent (the same as `Change`: `signals` is optional, `[]` on the server when omitted). */
export type ChangeInput = Change;
export type DeployCreate = Schemas['DeployCreate'];

export type SiteCheck = Schemas['SiteCheck'];
export type SiteCheckLatest = Schemas['SiteCheckLatest'];
export type SiteCheckIssue = Schemas['SiteCheckIssue'];
export type SiteCrawl = Schemas['SiteCrawl'];
export type SiteCheckDetail = Schemas['SiteCheckDetail'];
export type SiteCheckList = Schemas['SiteCheckList'];
export type SiteCheckListQuery = Query<'SiteChecks_list'>;
export type SiteCrawlDetail = Schemas['SiteCrawlDetail'];
export type SiteCrawlDetailQuery = Query<'SiteCrawls_get'>;
export type SiteCrawlList = Schemas['SiteCrawlList'];
export type SiteCrawlListQuery = Query<'SiteCrawls_list'>;
export type SiteCrawlLatest = Schemas['SiteCrawlLatest'];
export type CrawlPageRecord = Schemas['CrawlPageRecord'];
export type CheckTrigger = Schemas['CheckTrigger'];
export type RunCreate = Schemas['RunCreate'];
export type RunState = Schemas['RunState'];
export type Severity = Schemas['Severity'];
export type Finding = Schemas['Finding'];
export type CheckFindingKind = Schemas['CheckFindingKind'];
export type DeployFinding = Schemas['DeployFinding'];
export type CrawlFinding = Schemas['CrawlFinding'];
export type DeployCrawlFinding = Schemas['DeployCrawlFinding'];
export type Cause = Schemas['Cause'];
export type PageRecord = Schemas['PageRecord'];
export type Impact = Schemas['Impact'];
export type Problem = Schemas['Problem'];
export type FieldError = Schemas['FieldError'];

export type SearchPerformanceResult = Schemas['SearchPerformanceResult'];
export type SearchPerformanceRow = Schemas['SearchPerformanceRow'];
export type SearchTotals = Schemas['SearchTotals'];
export type SearchDimension = Schemas['SearchDimension'];
export type SearchPerformanceQuery = Query<'SearchPerformance_get'>;
export type SearchConsoleConnection = Schemas['SearchConsoleConnection'];
export type SearchConsoleState = Schemas['SearchConsoleState'];
export type SearchConsoleConnect = Schemas['SearchConsoleConnect'];
export type SearchConsoleAuthorization = Schemas['SearchConsoleAuthorization'];
export type SearchConsoleCallbackResult = Schemas['SearchConsoleCallbackResult'];
export type SearchConsoleCallbackQuery = Query<'SearchConsoleCallback_complete'>;

export type LogList = Schemas['LogList'];
export type LogRow = Schemas['LogRow'];
export type LogListQuery = Query<'Logs_list'>;

export type ActivityList = Schemas['ActivityList'];
export type ActivityRow = Schemas['ActivityRow'];
export type ActivityListQuery = Query<'Activity_list'>;

export type Webhook = Schemas['Webhook'];
export type WebhookWithSecret = Schemas['WebhookWithSecret'];
export type WebhookList = Schemas['WebhookList'];
export type WebhookEvent = Schemas['WebhookEvent'];
export type WebhookListQuery = Query<'Webhooks_list'>;
/** `headers` is a map of custom delivery headers, name -> value. */
export type WebhookCreate = Schemas['WebhookCreate'];
/** `headers` replaces the whole set: a `null` value keeps that header's stored value; `headers: null` clears all. */
export type WebhookUpdate = Schemas['WebhookUpdate'];
export type Connection = Schemas['Connection'];
export type ConnectionWithSecret = Schemas['ConnectionWithSecret'];
export type ConnectionCreate = Schemas['ConnectionCreate'];
export type ConnectionUpdate = Schemas['ConnectionUpdate'];
export type ConnectionList = Schemas['ConnectionList'];
export type ApiKey = Schemas['ApiKey'];
export type ApiKeyWithSecret = Schemas['ApiKeyWithSecret'];
export type ApiKeyCreate = Schemas['ApiKeyCreate'];
/** `overlapSeconds` defaults to 0 (the old key is refused from the next request on); at most 604800. */
export type ApiKeyRotate = Schemas['ApiKeyRotate'];
export type ApiKeyList = Schemas['ApiKeyList'];
export type ApiKeyListQuery = Query<'ApiKeys_list'>;
export type Scope = Schemas['Scope'];
export type Role = Schemas['Role'];
export type Member = Schemas['Member'];
export type MemberList = Schemas['MemberList'];
export type Invitation = Schemas['Invitation'];
export type InvitationCreate = Schemas['InvitationCreate'];
export type InvitationList = Schemas['InvitationList'];
export type InvitationAccept = Schemas['InvitationAccept'];
export type InvitationAccepted = Schemas['InvitationAccepted'];
export type SignInRequest = Schemas['SignInRequest'];
export type SignedIn = Schemas['SignedIn'];
export type Me = Schemas['Me'];
export type Session = Schemas['Session'];
export type SessionList = Schemas['SessionList'];
export type SessionsRevoked = Schemas['SessionsRevoked'];
export type PasswordChange = Schemas['PasswordChange'];
export type Passkey = Schemas['Passkey'];
export type PasskeyList = Schemas['PasskeyList'];
export type PasskeyCreate = Schemas['PasskeyCreate'];
export type PasskeyRegistrationOptions = Schemas['PasskeyRegistrationOptions'];
export type PasskeyRegistrationResponse = Schemas['PasskeyRegistrationResponse'];
export type PasskeySignInOptions = Schemas['PasskeySignInOptions'];
export type PasskeySignInRequest = Schemas['PasskeySignInRequest'];
export type PasskeySignInResponse = Schemas['PasskeySignInResponse'];
export type SsoSettings = Schemas['SsoSettings'];
export type SsoSettingsUpdate = Schemas['SsoSettingsUpdate'];
export type SsoStart = Schemas['SsoStart'];
export type SsoAuthorization = Schemas['SsoAuthorization'];
export type SsoCallbackQuery = Query<'SsoSignIn_callback'>;
export type TwoStepRequired = Schemas['TwoStepRequired'];
export type TwoStepSignInRequest = Schemas['TwoStepSignInRequest'];
export type TwoStepSetup = Schemas['TwoStepSetup'];
export type TwoStepStatus = Schemas['TwoStepStatus'];
export type RecoveryCodes = Schemas['RecoveryCodes'];
export type RepositoryProvider = Schemas['RepositoryProvider'];
export type DeliveryEvent = Schemas['DeliveryEvent'];
export type DeliveryAttempt = Schemas['DeliveryAttempt'];
export type DeliveryAttemptDetail = Schemas['DeliveryAttemptDetail'];
export type DeliveryAttemptList = Schemas['DeliveryAttemptList'];
export type DeliveryListQuery = Query<'Webhooks_listDeliveries'>;

/** A delivery's body with `data` untyped; `verifyWebhook` returns the typed `SiteHealthEvent`. */
export type EventEnvelope = Schemas['EventEnvelope'];
export type DeployRecordedData = Schemas['DeployRecordedData'];
export type SiteCheckCompletedData = Schemas['SiteCheckCompletedData'];
export type SiteCheckRegressionData = Schemas['SiteCheckRegressionData'];
export type SiteCrawlCompletedData = Schemas['SiteCrawlCompletedData'];
export type SiteCrawlRegressionData = Schemas['SiteCrawlRegressionData'];
export type WebhookTestData = Schemas['WebhookTestData'];

export type DigestFrequency = Schemas['DigestFrequency'];
export type NotificationSettings = Schemas['NotificationSettings'];
export type NotificationSettingsUpdate = Schemas['NotificationSettingsUpdate'];
export type Report = Schemas['Report'];
export type ReportQuery = Query<'Reports_get'>;
export type ReportDeploy = Schemas['ReportDeploy'];
export type ReportFinding = Schemas['ReportFinding'];
export type ReportPage = Schemas['ReportPage'];
export type ReportSearch = Schemas['ReportSearch'];
export type Unsubscribed = Schemas['Unsubscribed'];
