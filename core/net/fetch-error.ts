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

  constructor(
    readonly code: FetchErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FetchError';
  }
}
