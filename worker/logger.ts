import { pino, type Logger } from 'pino';

/** JSON lines on stdout. Job logs carry kind, jobId, attempt, durationMs, outcome; never payloads. */
export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  return pino({ level, base: { proc: 'worker', pid: process.pid, ...base } });
}
