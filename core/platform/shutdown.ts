import type { Logger } from 'pino';

/**
 * Stops a long-running process (API server, worker) gracefully on SIGTERM or SIGINT, and also
 * when its parent dies: a process started by `npm start` has an IPC channel to it, which closes
 * when the parent exits for any reason, SIGKILL included, so no child outlives its supervisor.
 * A second signal, or `hardTimeoutMs` without finishing, exits at once.
 */
export function stopGracefully(log: Logger, stop: (reason: string) => Promise<void>, opts: { hardTimeoutMs: number }): void {
  let stopping = false;
  const begin = (reason: string) => {
    if (stopping) {
      log.warn({ reason }, 'second stop request: exiting at once');
      process.exit(1);
    }
    stopping = true;
    log.info({ reason }, 'shutting down');
    setTimeout(() => {
      log.error({ reason, hardTimeoutMs: opts.hardTimeoutMs }, 'shutdown took too long: exiting');
      process.exit(1);
    }, opts.hardTimeoutMs).unref();
    stop(reason).then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => begin('SIGTERM'));
  process.on('SIGINT', () => begin('SIGINT'));
  if (process.send) process.on('disconnect', () => begin('parent exited'));
}
