// Connected repositories (spec/connections.tsp): GitHub and GitLab repositories whose pushes or
// deployments record deploys without a CI step, with changes read from the host's compare API
// and the site check's verdict posted back as a commit status.
export {
  createConnection,
  updateConnection,
  removeConnection,
  listConnections,
  getConnection,
  findConnection,
  connectionToApi,
  openSecrets,
  resealConnections,
  webhookUrlOf,
  connectionSettings,
  type ConnectionSettings,
  type OpenedSecrets,
} from './connections.ts';
export { hostClient, HostError, DEFAULT_BASE_URL, GITHUB_COMPARE_MAX_FILES, GITHUB_COMPARE_MAX_COMMITS, type HostClient, type Provider } from './hosts.ts';
export { hostFetch, retryDelayMs } from './host-fetch.ts';
export { verifyDelivery, acceptDelivery, type SignedDelivery, type DeliveryPayload } from './hooks.ts';
export { recordFromDelivery, type RecordOptions } from './record.ts';
export { postCheckStatus, statusOfCheck, MAX_DESCRIPTION } from './statuses.ts';
