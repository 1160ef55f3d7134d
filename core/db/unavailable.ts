import { isSqliteBusy } from './sqlite-client.ts';
import { isPoolWaitTimeout } from './knex-adapter.ts';

// Which database errors mean "the database cannot serve this now" rather than "this request is
// wrong" or "we have a bug": the HTTP layer answers them 503 with Retry-After (nothing was
// changed: the transaction rolled back or never began), the worker retries the job, the CLI
// prints one line.

// PostgreSQL SQLSTATE classes and codes: 08 connection exception, 53 insufficient resources,
// 55P03 lock_not_available (a row lock held past lock_timeout), 57P01-57P03 shutdown / cannot
// connect now, 40001 / 40P01 after our retries ran out.
const PG_UNAVAILABLE = /^(08|53|55P03|57P0[123]|40001|40P01)/;
const NODE_NET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const PG_CLIENT_MESSAGES = /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Client was closed/i;

export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  // Objection wraps driver errors (DBError and its kin) and keeps the original.
  const native = (err as { nativeError?: unknown }).nativeError;
  if (native && native !== err) return isDatabaseUnavailable(native);
  const e = err as { code?: unknown; name?: string; message?: string; errors?: unknown[] };
  if (isSqliteBusy(err)) return true;
  // No pooled connection within the bounded wait (createDb).
  if (isPoolWaitTimeout(e)) return true;
  if (typeof e.code === 'string' && (NODE_NET.has(e.code) || PG_UNAVAILABLE.test(e.code))) return true;
  if (typeof e.message === 'string' && PG_CLIENT_MESSAGES.test(e.message)) return true;
  // Node's AggregateError for a host with several addresses (::1 and 127.0.0.1).
  if (Array.isArray(e.errors) && e.errors.some(isDatabaseUnavailable)) return true;
  return false;
}

/** Serialization failure or deadlock: the whole transaction may be run again. */
export function isRetryableConflict(err: unknown): boolean {
  const e = err as { code?: unknown; nativeError?: { code?: unknown } } | null;
  const code = e?.nativeError?.code ?? e?.code;
  return code === '40001' || code === '40P01';
}
