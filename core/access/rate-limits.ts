import { isDatabaseUnavailable, runSql, type Db, type RetentionRule } from '../db/index.ts';
import { HOUR_MS } from '../db/index.ts';
import { nowMs } from '../platform/index.ts';

/** The window every limit is counted over: fixed minutes, aligned to the epoch. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** Requests one process may take from the shared count with a single claim, at most. */
const MAX_CHUNK = 1000;

/** What a request learns from the limiter, and what its RateLimit-* headers say. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the window, as far as this process knows (see RateLimiter). */
  remaining: number;
  /** Seconds until the window ends and the count starts again (at least 1). */
  resetSeconds: number;
}

interface KeyWindow {
  window: number;
  /** Requests claimed from the shared count and not used yet by this process. */
  tokens: number;
  /** The shared count after this process's last claim (its own unused tokens included). */
  counted: number;
  /** The shared count has no room left in this window, not even for one request. */
  spent: boolean;
  /** The database could not count (busy or unreachable): requests go uncounted until then. */
  uncountedUntil: number;
  claim: Promise<void> | null;
}

/** How long a claim waits for SQLite's write lock before the request goes ahead uncounted. */
const CLAIM_WAIT_MS = 200;
/** After a failed claim, how long requests go ahead without trying again. */
const UNCOUNTED_MS = 1000;

const CLAIM = `INSERT INTO rate_limit_windows (key_id, window_start, count) VALUES (?, ?, ?)
  ON CONFLICT (key_id, window_start) DO UPDATE SET count = rate_limit_windows.count + excluded.count
  WHERE rate_limit_windows.count + excluded.count <= ?
  RETURNING count`;

/**
 * Per-key request limits that hold across every API process on one database.
 *
 * The count lives in the database (rate_limit_windows), but a request does not write it: a
 * process claims a chunk of the key's remaining requests with one conditional upsert, which
 * never lets the shared count pass the limit, and spends the chunk from memory. A chunk is an
 * eighth of what is left (at most 1,000), so near the limit chunks shrink to one request and the
 * last requests of a window are counted exactly; a process claims the next chunk before its
 * current one runs out, so requests seldom wait for the database. Requests never exceed the
 * limit across processes. What a process holds unused when the window ends is lost to the others
 * (bounded by the eighth), so a key spread over several processes may be refused a little before
 * the limit; `RateLimit-Remaining` is this process's view: exact with one process, an
 * underestimate by what other processes hold with several.
 *
 * When the database cannot count (SQLite's write lock held past a short wait, PostgreSQL
 * unreachable), requests are not refused for that: they go ahead uncounted for a second, and
 * then stand or fall by their own use of the database. A limit protects the service; it must
 * not be the reason reads fail while a long write holds the lock.
 */
export class RateLimiter {
  private readonly windows = new Map<string, KeyWindow>();
  private sweptWindow = 0;

  constructor(
    private readonly db: Db,
    readonly limit: number,
  ) {}

  /** Counts one request of `keyId` and says whether it may go ahead. */
  async take(keyId: string): Promise<RateLimitDecision> {
    const now = nowMs();
    const window = now - (now % RATE_LIMIT_WINDOW_MS);
    const w = this.windowOf(keyId, window);
    for (;;) {
      if (w.tokens > 0) {
        w.tokens--;
        // Half a chunk ahead: under load a claim waits its turn for the database (on SQLite behind
        // other writes), and requests that run out of tokens would all wait for it.
        if (w.tokens <= this.chunkFor(w) / 2) this.claimAhead(keyId, w);
        return this.decision(true, w, now);
      }
      if (w.spent) return this.decision(false, w, now);
      if (w.uncountedUntil > now) return this.decision(true, w, now);
      await (w.claim ??= this.claim(keyId, w));
    }
  }

  private windowOf(keyId: string, window: number): KeyWindow {
    if (window !== this.sweptWindow) {
      // Once a window: forget the keys of earlier ones, so the map holds the keys seen lately.
      for (const [k, w] of this.windows) if (w.window < window) this.windows.delete(k);
      this.sweptWindow = window;
    }
    let w = this.windows.get(keyId);
    if (!w || w.window !== window) {
      w = { window, tokens: 0, counted: 0, spent: false, uncountedUntil: 0, claim: null };
      this.windows.set(keyId, w);
    }
    return w;
  }

  private chunkFor(w: KeyWindow): number {
    return Math.max(1, Math.min(MAX_CHUNK, Math.floor((this.limit - w.counted) / 8)));
  }

  private claimAhead(keyId: string, w: KeyWindow): void {
    if (w.claim || w.spent) return;
    // A failure here surfaces to the request that waits on this claim, if any.
    (w.claim = this.claim(keyId, w)).catch(() => {});
  }

  private async claim(keyId: string, w: KeyWindow): Promise<void> {
    try {
      let chunk = this.chunkFor(w);
      let count = await this.add(keyId, w.window, chunk);
      // Less room than the chunk: take what single requests still fit, one at a time.
      if (count === null && chunk > 1) count = await this.add(keyId, w.window, (chunk = 1));
      if (count === null) {
        w.spent = true;
        w.counted = this.limit;
        return;
      }
      w.tokens += chunk;
      w.counted = count;
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      w.uncountedUntil = nowMs() + UNCOUNTED_MS;
    } finally {
      w.claim = null;
    }
  }

  /** Adds `n` to the key's shared count if it stays within the limit: the new count, else null. */
  private async add(keyId: string, window: number, n: number): Promise<number | null> {
    const values = [keyId, window, n, this.limit];
    // Prepared on PostgreSQL: a claim is on the request path of every key's first request of a
    // chunk (bench:api).
    const rows = await runSql<{ count: number }>(this.db, CLAIM, values, { prepared: 'rate_limit_claim', busyWaitMs: CLAIM_WAIT_MS });
    return rows.length > 0 ? Number(rows[0].count) : null;
  }

  private decision(allowed: boolean, w: KeyWindow, now: number): RateLimitDecision {
    const used = w.counted - w.tokens;
    return {
      allowed,
      limit: this.limit,
      remaining: Math.max(0, this.limit - used),
      resetSeconds: Math.max(1, Math.ceil((w.window + RATE_LIMIT_WINDOW_MS - now) / 1000)),
    };
  }
}

/** Windows are needed for a minute; an hour leaves room for clocks and late claims. */
export const rateLimitRetention: RetentionRule[] = [
  { name: 'rate_limit_windows', table: 'rate_limit_windows', column: 'window_start', key: ['key_id', 'window_start'], maxAgeMs: HOUR_MS },
];
