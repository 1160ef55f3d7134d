// The server's limits on a recorded deploy, which the SDK keeps to before sending.

/** The server accepts at most this many changes per deploy. */
export const MAX_CHANGES = 500;
/** The server's limit on `message`; longer messages are shortened. */
export const MAX_MESSAGE_LENGTH = 2000;
