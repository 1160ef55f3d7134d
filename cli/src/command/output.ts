// Where the CLI writes: every byte goes through one redacting writer (the API key never reaches
// a CI log, whatever a server or a user echoes), and progress is a spinner on a terminal and
// plain lines everywhere else.

export interface CliIO {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
}

/** Replaces each secret (at least 6 characters) with `[redacted]`. */
export function redactor(secrets: ReadonlyArray<string | undefined>): (text: string) => string {
  const list = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 6).sort((a, b) => b.length - a.length);
  if (list.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const s of list) out = out.split(s).join('[redacted]');
    return out;
  };
}

export interface Out {
  /** A line on stdout (results). */
  out(line: string): void;
  /** A line on stderr (progress, warnings, errors). */
  err(line: string): void;
  /** Raw text on stdout (JSON). */
  raw(text: string): void;
  readonly redact: (text: string) => string;
  readonly interactive: boolean;
}

export function makeOut(io: CliIO, secrets: ReadonlyArray<string | undefined>): Out {
  const redact = redactor(secrets);
  return {
    out: (line) => io.stdout.write(`${redact(line)}\n`),
    err: (line) => io.stderr.write(`${redact(line)}\n`),
    raw: (text) => io.stdout.write(redact(text)),
    redact,
    interactive: Boolean(io.stderr.isTTY) && !io.env.CI && io.env.TERM !== 'dumb',
  };
}

/** `1h 2m 3s`, `2m 05s`, `7s`. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h) return `${h}h ${m}m ${String(s).padStart(2, '0')}s`;
  if (m) return `${m}m ${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * Progress of a wait. On a terminal: one spinner line, redrawn in place, with each state change
 * printed as a permanent line above it. Elsewhere (CI logs): a line per state change and a
 * "still waiting" line every `heartbeatMs`.
 */
export class Progress {
  private text = '';
  private since = Date.now();
  private frame = 0;
  private timer: NodeJS.Timeout | null = null;
  private lastLine = Date.now();

  constructor(
    private readonly io: CliIO,
    private readonly o: Out,
    private readonly heartbeatMs = 60_000,
  ) {}

  /** Starts (or updates) the waiting line; `since` is when the wait began. */
  start(text: string, since = Date.now()): void {
    this.text = text;
    this.since = since;
    if (this.timer) return;
    const tick = this.o.interactive ? 80 : 1000;
    this.timer = setInterval(() => this.tick(), tick);
    this.timer.unref();
    this.tick();
  }

  /** A permanent line (a state change, a warning). */
  line(text: string): void {
    this.clear();
    this.o.err(text);
    this.lastLine = Date.now();
    if (this.timer && this.o.interactive) this.draw();
  }

  update(text: string): void {
    this.text = text;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.clear();
  }

  private tick(): void {
    if (this.o.interactive) {
      this.frame = (this.frame + 1) % FRAMES.length;
      this.draw();
    } else if (Date.now() - this.lastLine >= this.heartbeatMs) {
      this.o.err(`still waiting: ${this.text} (${formatDuration(Date.now() - this.since)})`);
      this.lastLine = Date.now();
    }
  }

  private draw(): void {
    this.io.stderr.write(`\r\x1b[2K${FRAMES[this.frame]} ${this.o.redact(this.text)} (${formatDuration(Date.now() - this.since)})`);
  }

  private clear(): void {
    if (this.o.interactive && this.timer) this.io.stderr.write('\r\x1b[2K');
  }
}
