import type { Db } from '../db/index.ts';
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
 */
export class RequestLogWriter {
  private buffer: RequestLogInput[] = [];
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
      else this.kick();
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    this.closed = true;
  }

  /** Starts writing the buffer unless a write is running (the next tick takes what waits). */
  private kick(): void {
    if (this.inFlight || this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    this.inFlight = this.write(batch).finally(() => {
      this.settled += batch.length;
      this.inFlight = null;
    });
  }

  private async write(batch: RequestLogInput[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await writeRequestLogs(this.db, batch);
        return;
      } catch (err) {
        if (attempt < 2) continue;
        this.dropped += batch.length;
        this.opts.log?.error({ err, entries: batch.length }, 'request log batch could not be written');
        return;
      }
    }
  }
}
