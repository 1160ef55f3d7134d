import type { Duplex } from 'node:stream';

// `COPY ... FROM STDIN` on a node-postgres client: a minimal submittable (the interface
// `client.query(obj)` accepts) that speaks the copy-in sub-protocol, so an import streams rows
// into PostgreSQL without another dependency. Protocol: the client sends the COPY statement; the
// server answers CopyInResponse; the client sends CopyData messages ('d', int32 length, bytes)
// and ends with CopyDone ('c') or CopyFail ('f', message); the server answers CommandComplete
// ("COPY n") and ReadyForQuery, or an ErrorResponse (then the COPY is void, and so is the
// transaction it ran in). See "COPY Operations" in the PostgreSQL protocol documentation.

interface PgConnection {
  stream: Duplex;
  query(text: string): void;
  sendCopyFail(message: string): void;
}

const COPY_DONE = Buffer.from([0x63, 0, 0, 0, 4]);

/** One COPY FROM STDIN. Use through `copyIn(client, sql)`. */
export class CopyIn {
  private connection: PgConnection | null = null;
  private ready: Promise<void>;
  private markReady!: () => void;
  private settled: Promise<number>;
  private settle!: (rows: number) => void;
  private fail!: (err: Error) => void;
  private rows = 0;
  /** Set when the server refused the COPY (or the data): nothing more is sent. */
  error: Error | null = null;

  constructor(readonly text: string) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    this.settled = new Promise<number>((resolve, reject) => {
      this.settle = resolve;
      this.fail = reject;
    });
    // Observed here so a failure nobody awaits yet is not an unhandled rejection.
    this.settled.catch(() => {});
  }

  // ---- the submittable interface node-postgres drives ----

  submit(connection: PgConnection): void {
    this.connection = connection;
    connection.query(this.text);
  }

  /** node-postgres replaces this with its query_timeout handler when one is configured. */
  callback(): void {}

  handleCopyInResponse(): void {
    this.markReady();
  }

  handleCommandComplete(msg: { text?: string }): void {
    const m = /COPY (\d+)/.exec(msg?.text ?? '');
    if (m) this.rows = Number(m[1]);
  }

  handleReadyForQuery(): void {
    this.callback();
    this.settle(this.rows);
  }

  handleError(err: Error): void {
    this.callback();
    this.error = err;
    this.fail(err);
    // A COPY refused before it began never sends CopyInResponse: release any writer waiting.
    this.markReady();
  }

  // Not used by COPY FROM, but node-postgres may call them on a confused connection.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}

  // ---- the writer side ----

  /**
   * Sends one CopyData message. Resolves at once while the socket takes more, after it drains
   * otherwise; rejects when the server has refused the COPY.
   */
  async write(chunk: Buffer): Promise<void> {
    await this.ready;
    if (this.error) throw this.error;
    const socket = this.connection!.stream;
    const head = Buffer.allocUnsafe(5);
    head[0] = 0x64;
    head.writeUInt32BE(chunk.length + 4, 1);
    socket.write(head);
    if (!socket.write(chunk)) await new Promise<void>((resolve) => socket.once('drain', resolve));
    if (this.error) throw this.error;
  }

  /** Ends the COPY; resolves with the rows PostgreSQL took, rejects with its error. */
  async end(): Promise<number> {
    await this.ready;
    if (!this.error) this.connection!.stream.write(COPY_DONE);
    return this.settled;
  }

  /** Abandons the COPY (the server discards it and reports an error); resolves once the connection is usable again. */
  async abort(reason: string): Promise<void> {
    await this.ready;
    if (!this.error) this.connection!.sendCopyFail(reason);
    await this.settled.catch(() => {});
  }
}

interface PgClientLike {
  query(submittable: CopyIn): unknown;
}

/** Starts `COPY ... FROM STDIN` on a pg client (for a knex transaction: its connection). */
export function copyIn(client: unknown, sql: string): CopyIn {
  const copy = new CopyIn(sql);
  (client as PgClientLike).query(copy);
  return copy;
}
