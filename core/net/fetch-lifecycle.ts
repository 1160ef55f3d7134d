import { FetchError } from './fetch-error.ts';

type Cancel = (err: FetchError) => void;

/**
 * The one deadline and the caller's AbortSignal of a guardedFetch, shared by every hop.
 * Exactly one step runs at a time (DNS, request, body), and it registers how to interrupt
 * it; stop() records why and interrupts it, so a stalled server or resolver can never keep
 * the caller waiting past the total timeout.
 */
export class FetchLifecycle {
  reason: FetchError | null = null;
  /** The host being talked to, for the timeout message. */
  host = '';
  private cancel: Cancel | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly signal: AbortSignal | undefined;
  private readonly onAbort = (): void => this.stop(new FetchError('aborted', 'the request was aborted'));

  constructor(private readonly timeoutMs: number, signal: AbortSignal | undefined) {
    this.timer = setTimeout(this.onTimeout, timeoutMs);
    this.signal = signal;
    if (signal?.aborted) this.onAbort();
    else signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onTimeout = (): void => {
    this.stop(new FetchError('timeout', `no complete response from ${this.host} within ${this.timeoutMs} ms`));
  };

  stop(err: FetchError): void {
    if (this.reason) return;
    this.reason = err;
    const cancel = this.cancel;
    this.cancel = null;
    cancel?.(err);
  }

  /** Registers how to interrupt the current step; runs it at once if already stopped. */
  onStop(cancel: Cancel): void {
    if (this.reason) cancel(this.reason);
    else this.cancel = cancel;
  }

  clear(): void {
    this.cancel = null;
  }

  /** Waits for a step that cannot be interrupted itself (a DNS lookup). */
  race<T>(step: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.onStop(reject);
      step.then(
        (value) => {
          this.clear();
          resolve(value);
        },
        (err: unknown) => {
          this.clear();
          reject(err);
        },
      );
    });
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.cancel = null;
    this.signal?.removeEventListener('abort', this.onAbort);
  }
}
