// The queue's own PostgreSQL session; every setting is read by core/platform/config.ts.

/**
 * The PostgreSQL URL for the queue's own pool (claim, complete, fail, heartbeat, recovery,
 * release), with session settings for those statements only:
 *
 * - `enable_sort=off`: the claim must walk jobs_claim_idx in order and stop after N rows. With
 *   stale statistics (a burst of jobs before autovacuum analyzes the table) the planner may
 *   otherwise pick a bitmap scan of every due job plus a sort: a scan of the whole backlog for
 *   every claim. The claim's few sorts (its fair-share ranking of a few dozen candidates)
 *   stay, as nothing else can compute them, but their cost estimate becomes huge.
 * - `jit=off`: that estimate would otherwise pass jit_above_cost, and compiling the claim took
 *   about 350 ms per execution against 0.7 ms without (EXPLAIN ANALYZE, PostgreSQL 15). No
 *   queue statement runs long enough for JIT to pay.
 * - `synchronous_commit=off` (JOB_ASYNC_COMMIT, default on): commits return without waiting for
 *   the WAL flush, which on a slow disk is most of their cost. Consistency is unchanged; a
 *   PostgreSQL crash can lose the last fraction of a second of claims and completions, so those
 *   jobs run again (at-least-once, as after a worker crash). WAL is flushed in order, so a
 *   handler's own synchronous writes are never lost while its job's completion survives.
 *   Enqueue runs in the caller's transaction, synchronous.
 */
export function queueSessionUrl(url: string, o: { asyncCommit: boolean }): string {
  const u = new URL(url);
  const settings = [u.searchParams.get('options'), '-c enable_sort=off -c jit=off'];
  if (o.asyncCommit) settings.push('-c synchronous_commit=off');
  u.searchParams.set('options', settings.filter(Boolean).join(' '));
  return u.toString();
}
