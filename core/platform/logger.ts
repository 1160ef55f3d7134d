import { pino, type Logger } from 'pino';
import { redactSecrets } from './redact.ts';
import { safeErrorText } from './error-text.ts';

/**
 * JSON lines on stdout for every process. Keys, secrets and header values are never passed to a
 * logger on purpose; three fences catch what slips through: pino's path redaction for fields
 * with secret names, an `err` serializer that keeps an error's shape and code but never the SQL
 * values a database error inlines, and the shared secret redaction over every finished line.
 *
 * Lines go out asynchronously: under load the lines written while one write is in flight leave
 * together in the next (one system call for many requests instead of one each); pino flushes
 * what is left synchronously when the process exits.
 */
export function createLogger(proc: string, level = process.env.LOG_LEVEL || 'info'): Logger {
  return pino({
    level,
    base: { proc, pid: process.pid },
    redact: {
      paths: ['apiKey', '*.apiKey', 'secret', '*.secret', 'headers', '*.headers', 'req.headers', 'x-api-key', '*["x-api-key"]'],
      censor: '[REDACTED]',
    },
    serializers: { err: (err: unknown) => safeErrorText(err) },
    hooks: {
      streamWrite: (line: string) => redactSecrets(line),
    },
  }, pino.destination({ dest: 1, sync: false }));
}
