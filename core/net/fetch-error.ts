/** One URL that answered with a redirect, in the order they were met. */
export interface RedirectHop {
  url: string;
  status: number;
}

export type FetchErrorCode =
  | 'invalid_url'
  | 'unsupported_scheme'
  | 'blocked_address'
  | 'dns'
  | 'connect_timeout'
  | 'timeout'
  | 'body_too_large'
  | 'too_many_redirects'
  | 'network'
  /** The peer answered with something that is not an HTTP response (a 101 protocol switch). */
  | 'protocol'
  | 'aborted';

/**
 * The only error guardedFetch rejects with. The message is written for people: a site check
 * stores it as its `error`, so it names the host and never carries stack-level jargon.
 */
export class FetchError extends Error {
  /**
   * Every redirect answer met before the failure, in order (filled in by guardedFetch on the
   * way out). For too_many_redirects it includes the answer past the limit, so a loop shows.
   */
  redirects: RedirectHop[] = [];

  /**
   * For blocked_address after a lookup: the non-public address the name resolved to. Never put
   * in a message a user reads (that would make the guard an internal DNS oracle); operator logs
   * at debug level only.
   */
  refusedAddress?: string;

  constructor(
    readonly code: FetchErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FetchError';
  }
}
