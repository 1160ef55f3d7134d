import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import type { DbOrTrx } from './connection.ts';
import { isRetryableConflict } from './unavailable.ts';

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
