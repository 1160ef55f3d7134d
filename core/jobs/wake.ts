import type { Knex } from 'knex';
import { afterCommit, isPostgres, poolOf, withConnection, type DbOrTrx } from '../db/index.ts';
import { JOBS_CHANNEL } from './channel.ts';

// Why not NOTIFY inside the transaction that enqueues: PostgreSQL serializes the commits of all
// notifying transactions behind one lock held across their WAL flush, so with a NOTIFY in every
// request's transaction the API could commit only one request per flush (measured: POST
// /v1/deploys spent its time in `Lock:object` and `WALSync` waits on COMMIT, 124 requests/s).
// Instead, once a transaction that queued a due job has committed, the process sends one
// NOTIFY of its own, in a transaction that does not wait for the flush (losing it in a crash
// loses nothing: workers also poll). While one is on its way, further wake-ups fold into a
// single follow-up, so under load a process notifies about once per round trip, not once per
// request.

interface WakeState {
  inFlight: boolean;
  again: boolean;
}

interface PgConnection {
  query(text: string): Promise<unknown>;
}

const states = new WeakMap<object, WakeState>();
const NOTIFY = `BEGIN; SET LOCAL synchronous_commit TO off; SELECT pg_notify('${JOBS_CHANNEL}', ''); COMMIT`;

function send(db: Knex, state: WakeState): void {
  state.inFlight = true;
  void (async () => {
    try {
      // A connection of the pool, sent the statements as one simple query. Never the
      // transaction's own connection: once it has ended, knex lends it to the pool's next user,
      // and the COMMIT here would end that user's transaction.
      await withConnection<PgConnection, unknown>(db, (conn) => conn.query(NOTIFY));
    } catch {
      // The pool is closing or the database is away: the workers' poll finds the job.
    } finally {
      state.inFlight = false;
      if (state.again) {
        state.again = false;
        send(db, state);
      }
    }
  })();
}

function wakeNow(db: Knex): void {
  let state = states.get(db);
  if (!state) states.set(db, (state = { inFlight: false, again: false }));
  if (state.inFlight) state.again = true;
  else send(db, state);
}

/**
 * Wakes listening workers (PostgreSQL) once `db`'s work is committed: at once for a plain
 * connection, after COMMIT for a transaction, never if it rolls back. SQLite workers poll.
 */
export function wakeWorkersAfterCommit(db: DbOrTrx): void {
  if (!isPostgres(db)) return;
  const pool = poolOf(db);
  const trx = db as Knex.Transaction;
  if (trx.isTransaction) afterCommit(trx, () => wakeNow(pool));
  else wakeNow(pool);
}
