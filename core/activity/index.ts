// The activity feed: the writers every domain calls, the reader behind GET /v1/activity, retention.
export {
  SYSTEM_ACTOR,
  operatorActor,
  keyActor,
  memberJoined,
  memberLeft,
  memberRoleChanged,
  apiKeyCreated,
  apiKeyRevoked,
  workspaceLimitChanged,
  workspaceLimitReached,
  webhookDeliverySucceeded,
  webhookDeliveryFailed,
  webhookPaused,
  webhookEnabled,
  connectionCreated,
  connectionUpdated,
  connectionRemoved,
  connectionVerified,
  connectionBroken,
  type ConnectionFields,
  type Actor,
  type ActivityKind,
  type DeliveryFields,
} from './writers.ts';
export { listActivity, activityToApi, type ActivityScope, type ActivityQuery } from './feed.ts';
export { activityRetention } from './retention.ts';
