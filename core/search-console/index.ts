// Search Console (spec/search-console.tsp): a workspace's OAuth 2.0 connection to a Search
// Console property and the daily sync that reads its search data into core/search-data.
export {
  startAuthorization,
  completeAuthorization,
  disconnectSearchConsole,
  getSearchConsole,
  findSearchConsole,
  searchConsoleToApi,
  searchConsoleSettings,
  syncNow,
  queueSync,
  canSync,
  syncableConnections,
  resealSearchConsole,
  type SearchConsoleSettings,
} from './connections.ts';
export { runSync, syncRange, TransientSyncError, REREAD_DAYS, type SyncResult } from './sync.ts';
export { SEARCH_CONSOLE_SCOPE, ROW_LIMIT } from './google.ts';
