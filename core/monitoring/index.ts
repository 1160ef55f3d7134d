// Monitoring between deploys: each workspace's check and crawl schedule (spec/workspaces.tsp),
// its slots (DST-aware wall-clock times) and the claims that make each slot run once.
export { runSchedules, SEARCH_SYNC_TIME, type ScheduledRun, type RunKind } from './schedule.ts';
export { latestSlot, instantOf, wallClock, type SlotSchedule } from './slots.ts';
