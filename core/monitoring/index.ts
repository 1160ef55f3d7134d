// Monitoring between deploys: each workspace's check and crawl schedule (spec/workspaces.tsp),
// its slots (DST-aware wall-clock times) and the claims that make each slot run once, which
// core/digests uses for each workspace's digests too.
export { runSchedules, SEARCH_SYNC_TIME, claimSlot, claimedSlots, type ScheduledRun, type RunKind, type SlotKind } from './schedule.ts';
export { latestSlot, instantOf, wallClock, type SlotSchedule } from './slots.ts';
