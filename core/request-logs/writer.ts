import { v7 } from 'uuid';
import { isDatabaseUnavailable, isUniqueViolation, type Db } from '../db/index.ts';
import type { RequestLogInput } from './types.ts';
import { writeRequestLogs } from './store.ts';

export interface RequestLogWriterOptions {
  /** Longest time an entry waits in memory; default 1000 ms ("at least every second"). */
  flushIntervalMs?: number;
  /** A buffer this long is written at once instead of waiting for the timer; default 1000. */
  maxBatch?: number;
  /** Entries beyond this many waiting (database down) are dropped and counted; default 50,000. */
  maxBuffered?: number;
  /** Failed writes are reported here (pino's signature). */
  log?: { error(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
}

/**
 * Batches request log entries off the request path. `record` only appends to an array; a
 * timer (and a full buffer) writes the batch in one transaction with its rollups. Writes are
 * serialised, so rows and rollups of one batch never interleave with another's. `flush`
 * resolves once everything recorded before the call is written; `close` stops the timer
 * and flushes (the server calls it on shutdown, after in-flight requests finished).
 *
 * While the database cannot take a batch (restarting, unreachable, busy past the bounded wait)
 * the batch goes back to the front of the buffer and is written with the next tick's, up to
 * `maxBuffered` entries in all. Each entry gets its row id before its first try and keeps it, so
 * an entry whose commit landed although the connection broke before the answer is found by its
 * id and not written twice. Other errors drop the batch after one more try, and so does any
 * failure once `close` began, so that shutdown stays bounded.
 */
export class RequestLogWriter {
  private buffer: RequestLogInput[] = [];
  /** The last write put its batch back (the database could not take it): flush waits a little. */
  private waiting = false;
  private closing = false;
  private inFlight: Promise<void> | null = null;
  private readonly pending = new Set<Promise<void>>();
  private readonly timer: NodeJS.Timeout;
  private readonly maxBatch: number;
  private readonly maxBuffered: number;
  private closed = false;
  /** Entries recorded so far (accepted into the buffer). */
  private recorded = 0;
  /** Entries taken out of the buffer and written or given up on. */
  private settled = 0;
  /** Entries lost to a full buffer or a failed write; for operators and tests. */
  dropped = 0;

  constructor(
    private readonly db: Db,
    private readonly opts: RequestLogWriterOptions = {},
  ) {
    this.maxBatch = opts.maxBatch ?? 1000;
    this.maxBuffered = opts.maxBuffered ?? 50_000;
    this.timer = setInterval(() => this.kick(), opts.flushIntervalMs ?? 1000);
    this.timer.unref();
  }

  record(entry: RequestLogInput): void {
    if (this.closed) return;
    if (this.buffer.length >= this.maxBuffered) {
      this.dropped += 1;
      return;
    }
    this.buffer.push(entry);
    this.recorded += 1;
    if (this.buffer.length >= this.maxBatch) this.kick();
  }

  /**
   * An entry that needs a lookup before it is known (the HTTP layer checks that the workspace
   * a request named is visible); null means it is not logged. `flush` waits for these too.
   */
  recordLater(entry: Promise<RequestLogInput | null>): void {
    const done: Promise<void> = entry.then(
      (e) => {
        if (e) this.record(e);
      },
      () => {},
    );
    this.pending.add(done);
    void done.finally(() => this.pending.delete(done));
  }

  /** Resolves when every entry recorded (or pending) before the call has been written or given up on. */
  async flush(): Promise<void> {
    if (this.pending.size > 0) await Promise.all([...this.pending]);
    const target = this.recorded;
    while (this.settled < target) {
      if (!this.inFlight && this.buffer.length === 0) break; // nothing left that could count
      if (this.inFlight) await this.inFlight;
      else if (this.waiting && !this.closing) await new Promise((r) => setTimeout(r, 200));
      if (!this.inFlight) this.kick();
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.closing = true;
    await this.flush();
    this.closed = true;
  }

  /** Starts writing the buffer unless a write is running (the next tick takes what waits). */
  private kick(): void {
    if (this.inFlight || this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    this.inFlight = this.write(batch).then((settled) => {
      this.settled += settled;
      this.inFlight = null;
    });
  }

  /** Writes a batch; returns how many of its entries are settled (written or dropped). */
  private async write(batch: RequestLogInput[]): Promise<number> {
    for (const e of batch) e.id ??= v7({ msecs: Math.trunc(e.createdAt) });
    let todo = batch;
    for (let attempt = 1; ; attempt++) {
      try {
        await writeRequestLogs(this.db, todo);
        if (this.waiting) {
          this.waiting = false;
          this.opts.log?.warn({ entries: batch.length }, 'request log written: the database is back');
        }
        return batch.length;
      } catch (err) {
        if (isDatabaseUnavailable(err) && !this.closing) return batch.length - this.putBack(todo, err);
        if (isUniqueViolation(err) && attempt < 3) {
          // Entries of a batch put back whose commit had landed after all: keep the others.
          const stored = new Set(((await this.db('request_logs').whereIn('id', todo.map((e) => e.id!)).select('id').catch(() => [])) as Array<{ id: string }>).map((r) => r.id));
          if (stored.size) {
            todo = todo.filter((e) => !stored.has(e.id!));
            if (!todo.length) return batch.length;
            continue;
          }
        }
        if (attempt < 2) continue;
        this.dropped += todo.length;
        this.opts.log?.error({ err, entries: todo.length }, 'request log batch could not be written');
        return batch.length;
      }
    }
  }

  /** Puts entries back in front of the buffer, as many as fit in maxBuffered; returns how many. */
  private putBack(entries: RequestLogInput[], err: unknown): number {
    if (!this.waiting) {
      this.waiting = true;
      this.opts.log?.warn({ err, entries: entries.length }, 'request log waits for the database');
    }
    const kept = entries.slice(0, Math.max(0, this.maxBuffered - this.buffer.length));
    this.buffer = [...kept, ...this.buffer];
    this.dropped += entries.length - kept.length;
    return kept.length;
  }
}
