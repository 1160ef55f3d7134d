import crypto from 'node:crypto';
import { v7, validate } from 'uuid';

// uuid asks the system for 16 random bytes per id (crypto.getRandomValues); a request that
// records a deploy makes several ids, and those calls were 4% of its CPU. Random bytes are drawn
// 4 KiB at a time instead, and the monotonic millisecond/sequence state uuid keeps for its own
// default (RFC 9562 method 1: a counter seeded from the random bytes within a millisecond) is
// kept here, as ids passed their bytes skip it.
const POOL_SIZE = 16 * 256;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let used = POOL_SIZE;
const state = { msecs: -Infinity, seq: 0 };

/** Time-ordered UUID (v7): index-friendly primary keys and a stable tiebreak for "newest first". */
export function newId(): string {
  if (used === POOL_SIZE) {
    crypto.randomFillSync(pool);
    used = 0;
  }
  const random = pool.subarray(used, (used += 16));
  const now = Date.now();
  if (now > state.msecs) {
    state.msecs = now;
    state.seq = ((random[6] & 0x7f) << 24) | (random[7] << 16) | (random[8] << 8) | random[9];
  } else {
    state.seq = (state.seq + 1) | 0;
    if (state.seq === 0) state.msecs++;
  }
  return v7({ random, msecs: state.msecs, seq: state.seq });
}

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && validate(value);
}
