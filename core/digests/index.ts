// Digests and reports (spec/digests.tsp): each member's choice per workspace, the digests due at
// 09:00 in the workspace's zone (on core/monitoring's slots), their content as a report for any
// period, sending them once per member and period, and single-use unsubscribe links.
export { notificationSettings, setDigest, digestRecipients, DEFAULT_DIGEST, type DigestFrequency, type Recipient } from './preferences.ts';
export { queueDueDigests, digestPeriod, DIGEST_TIME, type QueuedDigest, type DigestSchedule } from './schedule.ts';
export { buildReport, isEmptyReport, periodDays, type Report } from './report.ts';
export { reportText, reportHtml, escapeHtml, localTime, reportTitle } from './render.ts';
export { sendDigests, digestMail, DigestsInFlight, STALE_SEND_MS, type DigestRun } from './send.ts';
export { unsubscribe, previewUnsubscribe, newUnsubscribeToken, hashUnsubscribeToken } from './unsubscribe.ts';
export { digestRetention } from './retention.ts';
