import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { isPostgres, type DbOrTrx } from './connection.ts';
import { isRetryableConflict } from './unavailable.ts';
import { poolKey } from './knex-adapter.ts';

const MAX_ATTEMPTS = 4;

/**
 * Runs `fn` in a transaction: the one way domain code opens one. On PostgreSQL a serialization
 * failure or deadlock runs the whole function again (a few times, with jittered pauses), so
 * `fn` must do nothing but database work. On SQLite the transaction begins IMMEDIATE
 * (see sqlite-client.ts). Given a transaction already, `fn` joins it: the outermost call owns
 * the retry.
 */
export async function withTransaction<T>(db: DbOrTrx, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  if ((db as Knex.Transaction).isTransaction) return fn(db as Knex.Transaction);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(fn);
    } catch (err) {
      if (!isRetryableConflict(err) || attempt >= MAX_ATTEMPTS) throw err;
      await sleep(5 * attempt * (0.5 + Math.random()));
    }
  }
}

interface Pending {
  fn: (trx: Knex.Transaction) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

interface Batcher {
  running: boolean;
  queue: Pending[];
}

const batchers = new WeakMap<object, Batcher>();

/**
 * `withTransaction` for a hot write on SQLite, with group commit: while one transaction of
 * these is running, the calls that arrive wait and then run together in the next one, each in
 * its own savepoint (a call that fails rolls back its own writes only and gets its error; the
 * others commit). SQLite runs one writer at a time anyway, and a commit (its WAL frames) cost
 * more than the statements of a recorded deploy; one commit for the group pays it once. Nothing
 * waits when there is no queue. On PostgreSQL, which commits concurrent transactions in
 * parallel, and inside a transaction already, this is `withTransaction`.
 */
export function withGroupedTransaction<T>(db: DbOrTrx, fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  if (isPostgres(db) || (db as Knex.Transaction).isTransaction) return withTransaction(db, fn);
  let b = batchers.get(poolKey(db));
  if (!b) batchers.set(poolKey(db), (b = { running: false, queue: [] }));
  const batcher = b;
  return new Promise<T>((resolve, reject) => {
    batcher.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
    if (!batcher.running) {
      // Started after this turn of the event loop's I/O: requests read from other sockets in
      // the same turn join the group. (A transaction here never waits on I/O, so without this
      // it would finish before any other request could queue behind it.)
      batcher.running = true;
      setImmediate(() => void drain(db, batcher));
    }
  });
}

async function drain(db: DbOrTrx, b: Batcher): Promise<void> {
  b.running = true;
  while (b.queue.length) {
    const group = b.queue.splice(0, 100);
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; err: unknown }> = [];
    try {
      await withTransaction(db, async (trx) => {
        outcomes.length = 0; // a retried transaction starts over
        for (const p of group) {
          try {
            // A single call needs no savepoint: its failure fails the transaction it alone is in.
            outcomes.push({ ok: true, value: group.length === 1 ? await p.fn(trx) : await trx.transaction((sp) => p.fn(sp)) });
          } catch (err) {
            if (group.length === 1) throw err;
            outcomes.push({ ok: false, err });
          }
        }
      });
    } catch (err) {
      for (const p of group) p.reject(err);
      continue;
    }
    group.forEach((p, i) => {
      const o = outcomes[i];
      if (o.ok) p.resolve(o.value);
      else p.reject(o.err);
    });
  }
  b.running = false;
}
