import { pino, type Logger } from 'pino';

/**
 * JSON lines on stdout for every process. Keys, secrets and header values are never passed
 * to a logger; the redact list is a second fence in case one slips into an object.
 */
export function createLogger(proc: string, level = process.env.LOG_LEVEL || 'info'): Logger {
  return pino({
    level,
    base: { proc, pid: process.pid },
    redact: {
      paths: ['apiKey', '*.apiKey', 'secret', '*.secret', 'headers', '*.headers', 'req.headers', 'x-api-key', '*["x-api-key"]'],
      censor: '[REDACTED]',
    },
  });
}
