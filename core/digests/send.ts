// Sending one slot's digests of a workspace (the `digest` job): one row per member and period,
// inserted once (the unique key digests_once), taken by one worker at a time, marked sent or
// skipped, so a retried or repeated job sends nobody a second digest.
import { Workspace, runSql, type Db } from '../db/index.ts';
import { digestEvent, SYSTEM_ACTOR } from '../activity/index.ts';
import type { Mailer } from '../mail/index.ts';
import { newId, nowMs } from '../platform/index.ts';
import { digestRecipients } from './preferences.ts';
import { buildReport, isEmptyReport, type Report } from './report.ts';
import { escapeHtml, localTime, reportHtml, reportText } from './render.ts';
import { digestPeriod, type DigestSchedule } from './schedule.ts';
import { newUnsubscribeToken } from './unsubscribe.ts';

/**
 * A row another worker took to send and never finished (it died between taking it and recording
 * the result) may be taken again after this long: past the job's own timeout (core/jobs/kinds.ts),
 * so a live worker's send is never taken from it, and within the job's retries (about 35 minutes).
 */
export const STALE_SEND_MS = 11 * 60_000;

/** Members whose digest another worker is sending: the job is retried until it is sent or stale. */
export class DigestsInFlight extends Error {
  constructor(n: number) {
    super(`${n} digest(s) of this slot are being sent by another worker (or one that died); retrying`);
    this.name = 'DigestsInFlight';
  }
}

export interface DigestRun {
  sent: number;
  skipped: number;
}

/** The message a member gets. */
export function digestMail(r: Report, o: { frequency: DigestSchedule; to: string; unsubscribeUrl: string; manageUrl: string; digestId: string; host: string }) {
  const title = o.frequency === 'weekly' ? 'Weekly digest' : 'Daily digest';
  const footerText = ['--', `You get this ${o.frequency} digest as a member of ${r.workspaceName}.`, `Unsubscribe (no sign-in needed): ${o.unsubscribeUrl}`, `Or change it: PUT ${o.manageUrl}`];
  const footerHtml = `You get this ${o.frequency} digest as a member of ${escapeHtml(r.workspaceName)}. <a href="${escapeHtml(o.unsubscribeUrl)}">Unsubscribe</a> (no sign-in needed), or change it with <code>PUT ${escapeHtml(o.manageUrl)}</code>.`;
  return {
    to: o.to,
    // A workspace name may hold control characters (spec/main.tsp, Text): none reaches a header.
    subject: `${title}: ${r.workspaceName.replace(/\p{Cc}+/gu, ' ')}, ${localTime(r.from, r.timezone)} to ${localTime(r.to, r.timezone)}`,
    text: reportText(r, footerText),
    html: reportHtml(r, footerHtml),
    // RFC 2369 and RFC 8058: mail clients show an unsubscribe button that POSTs to the link.
    headers: { 'List-Unsubscribe': `<${o.unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    // The same digest sent again (see STALE_SEND_MS) keeps its Message-ID.
    messageId: `<digest-${o.digestId}@${o.host}>`,
  };
}

/**
 * Sends a workspace's `frequency` digests due at `slotAt` to the members who want them. A member
 * whose digest was sent or skipped already is passed over; a failed send puts the member's row
 * back and throws, so the job's retry sends it (and only it) again; a row another worker holds
 * makes the job throw at the end (DigestsInFlight), to look again later.
 */
export async function sendDigests(db: Db, mail: Mailer, o: { publicUrl: string }, job: { workspaceId: string; frequency: DigestSchedule; slotAt: number }): Promise<DigestRun> {
  const out: DigestRun = { sent: 0, skipped: 0 };
  let inFlight = 0;
  const ws = await Workspace.query(db).findById(job.workspaceId).select('id', 'name', 'timezone');
  if (!ws) return out; // deleted since
  const period = digestPeriod(job.frequency, ws.timezone, job.slotAt);
  const recipients = await digestRecipients(db, ws.id, job.frequency, job.slotAt);
  let report: Report | null = null;
  const host = new URL(o.publicUrl).hostname || 'sitehealth';
  for (const r of recipients) {
    await runSql(
      db,
      `INSERT INTO digests (id, workspace_id, user_id, frequency, period_start, period_end, state, created_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)
       ON CONFLICT (workspace_id, user_id, frequency, period_end) DO NOTHING`,
      [newId(), ws.id, r.userId, job.frequency, period.from, period.to, nowMs()],
    );
    const now = nowMs();
    // Taken by this worker alone: pending, or sending but abandoned.
    const [row] = await runSql<{ id: string }>(
      db,
      `UPDATE digests SET state = 'sending', attempt_at = ?
        WHERE workspace_id = ? AND user_id = ? AND frequency = ? AND period_end = ?
          AND (state = 'pending' OR (state = 'sending' AND attempt_at < ?))
        RETURNING id`,
      [now, ws.id, r.userId, job.frequency, period.to, now - STALE_SEND_MS],
    );
    if (!row) {
      const [held] = await runSql<{ state: string }>(db, 'SELECT state FROM digests WHERE workspace_id = ? AND user_id = ? AND frequency = ? AND period_end = ?', [ws.id, r.userId, job.frequency, period.to]);
      if (held?.state === 'sending') inFlight++;
      continue;
    }
    report ??= await buildReport(db, ws, period.from, period.to, o.publicUrl);
    if (isEmptyReport(report)) {
      await runSql(db, `UPDATE digests SET state = 'skipped' WHERE id = ?`, [row.id]);
      out.skipped++;
      continue;
    }
    const { token, hash } = newUnsubscribeToken(row.id);
    await runSql(db, 'UPDATE digests SET token_hash = ? WHERE id = ?', [hash, row.id]);
    const message = digestMail(report, {
      frequency: job.frequency,
      to: r.email,
      unsubscribeUrl: `${o.publicUrl}/v1/unsubscribe?token=${encodeURIComponent(token)}`,
      manageUrl: `${o.publicUrl}/v1/workspaces/${ws.id}/notifications`,
      digestId: row.id,
      host,
    });
    try {
      const sent = await mail.send(message);
      await runSql(db, `UPDATE digests SET state = 'sent', sent_at = ?, message_id = ? WHERE id = ?`, [nowMs(), sent.messageId.slice(0, 255), row.id]);
    } catch (err) {
      await runSql(db, `UPDATE digests SET state = 'pending', attempt_at = NULL WHERE id = ?`, [row.id]);
      throw err;
    }
    await digestEvent(db, 'digest.sent', { workspaceId: ws.id, userId: r.userId, actor: SYSTEM_ACTOR, details: { digest_id: row.id, frequency: job.frequency, from: report.from, to: report.to } });
    out.sent++;
  }
  // A worker that died mid-send left its member's row taken: this job is not done until that
  // digest is sent (or the row is stale and this job's retry takes it).
  if (inFlight > 0) throw new DigestsInFlight(inFlight);
  return out;
}
