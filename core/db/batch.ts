import type { DbOrTrx } from './connection.ts';

// Why: on PostgreSQL a statement's round trip (the client's send, the server backend's wake-up,
// its reply, the client's wake-up) costs far more than a small indexed statement itself. On the
// 2-core machine bench:deploys runs on, leaving the key lookup out of POST /v1/deploys (an
// experiment, never a product: keys are not cached) raised throughput by about a third. Under
// load many requests need the same statement at once, so they share one execution, as
// PostgreSQL's own group commit shares one WAL flush: the first caller's statement goes at once
// (after the current I/O phase, so callers that arrived together go together), and whoever
// comes while `maxInFlight` executions are out joins the next one. Alone, a caller waits for
// nothing. Each caller still gets its own answer from the database's current state: nothing
// is remembered between executions.

export interface BatchOptions {
  /** Executions out at once; callers arriving past it wait and go together in the next. */
  maxInFlight: number;
  /** Most callers one execution takes. */
  maxBatch: number;
}

interface Pending<In, Out> {
  input: In;
  resolve(out: Out): void;
  reject(err: unknown): void;
}

interface Lane<In, Out> {
  queue: Array<Pending<In, Out>>;
  inFlight: number;
  scheduled: boolean;
}

/**
 * Runs `execute` over the inputs of concurrent callers on one database handle: one call of
 * `execute` for many `submit`s. `execute` returns one output per input, in order. When it
 * throws, every caller in that execution gets the error (as each would have alone).
 */
export class StatementBatcher<In, Out> {
  private readonly lanes = new WeakMap<object, Lane<In, Out>>();

  constructor(
    private readonly execute: (db: DbOrTrx, inputs: In[]) => Promise<Out[]>,
    private readonly opts: BatchOptions,
  ) {}

  submit(db: DbOrTrx, input: In): Promise<Out> {
    let lane = this.lanes.get(db);
    if (!lane) this.lanes.set(db, (lane = { queue: [], inFlight: 0, scheduled: false }));
    const l = lane;
    return new Promise<Out>((resolve, reject) => {
      l.queue.push({ input, resolve, reject });
      this.schedule(db, l);
    });
  }

  private schedule(db: DbOrTrx, lane: Lane<In, Out>): void {
    if (lane.scheduled || lane.inFlight >= this.opts.maxInFlight || lane.queue.length === 0) return;
    lane.scheduled = true;
    setImmediate(() => {
      lane.scheduled = false;
      this.flush(db, lane);
    });
  }

  private flush(db: DbOrTrx, lane: Lane<In, Out>): void {
    if (lane.inFlight >= this.opts.maxInFlight || lane.queue.length === 0) return;
    const batch = lane.queue.splice(0, this.opts.maxBatch);
    lane.inFlight++;
    this.execute(
      db,
      batch.map((p) => p.input),
    ).then(
      (outs) => {
        for (const [i, p] of batch.entries()) p.resolve(outs[i]);
      },
      (err: unknown) => {
        for (const p of batch) p.reject(err);
      },
    ).finally(() => {
      lane.inFlight--;
      this.schedule(db, lane);
    });
    // More waiting than one execution takes: the next may go while this one is out.
    this.schedule(db, lane);
  }
}
