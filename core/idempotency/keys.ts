import { HOUR_MS, type DbOrTrx, type RetentionRule } from '../db/index.ts';
import { CredentialSeal } from '../secrets/index.ts';

// Idempotent POSTs (spec/common/errors.tsp `IdempotencyKey`, docs/api.md#idempotent-requests):
// the first request with a key claims it, runs, and leaves its answer for the repeats. An answer
// may hold a secret shown once (a webhook's or a connection's secret), so nothing in the table is
// readable without the API key that sent the request: the answer is sealed and the request's
// fingerprint is a keyed digest, both under keys derived from that API key (CredentialSeal),
// which the service itself stores only as a digest.

/** How long a key and its answer are kept. */
export const IDEMPOTENCY_TTL_MS = 24 * HOUR_MS;
/** How long a running request holds its key before a repeat may take it over (its process died). */
export const IDEMPOTENCY_LOCK_MS = 60_000;

export interface IdempotentRequest {
  apiKeyId: string;
  key: string;
  /** Keyed digest of what makes the request this request: operation, path, body. */
  fingerprint: string;
  now: number;
  /** Seals and opens the answer; derived from the API key as sent, never stored. */
  seal: CredentialSeal;
}

/** Describes a request sent with an Idempotency-Key by the API key `credential` (its plaintext, as sent). */
export function idempotentRequest(i: { apiKeyId: string; credential: string; key: string; operationId: string; path: string; body: string; now: number }): IdempotentRequest {
  const seal = new CredentialSeal(i.credential, 'idempotency');
  return { apiKeyId: i.apiKeyId, key: i.key, fingerprint: seal.digest(`${i.operationId}\n${i.path}\n${i.body}`), now: i.now, seal };
}

/** The sealed answer names its row, so an answer copied to another row does not open. */
const answerContext = (r: IdempotentRequest) => `idempotency\n${r.apiKeyId}\n${r.key}\n${r.fingerprint}`;

export type Claim =
  /** Run the request; then `rememberAnswer` or `releaseKey`. */
  | { kind: 'run' }
  /** The first request's answer. */
  | { kind: 'replay'; status: number; response: string }
  /** The key was used for another request. */
  | { kind: 'reused' }
  /** The first request is still running. */
  | { kind: 'in_use' };

interface Row {
  fingerprint: string;
  state: 'running' | 'done';
  locked_until: number | string | null;
  status: number | null;
  response: string | null;
  created_at: number | string;
}

const table = (db: DbOrTrx) => db('idempotency_keys');
const keyOf = (r: IdempotentRequest) => ({ api_key_id: r.apiKeyId, idempotency_key: r.key });

/** Claims the key for this request, or says what the request gets instead. */
export async function claimKey(db: DbOrTrx, r: IdempotentRequest): Promise<Claim> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const running = { fingerprint: r.fingerprint, state: 'running', locked_until: r.now + IDEMPOTENCY_LOCK_MS, status: null, response: null, created_at: r.now };
    const inserted = (await table(db).insert({ ...keyOf(r), ...running }).onConflict(['api_key_id', 'idempotency_key']).ignore().returning(['api_key_id'])) as unknown[];
    if (inserted.length > 0) return { kind: 'run' };
    const row = (await table(db).where(keyOf(r)).first()) as Row | undefined;
    if (!row) continue; // released meanwhile: claim it again
    const createdAt = Number(row.created_at);
    const lockedUntil = row.locked_until === null ? null : Number(row.locked_until);
    const expired = createdAt <= r.now - IDEMPOTENCY_TTL_MS;
    if (!expired && row.fingerprint !== r.fingerprint) return { kind: 'reused' };
    if (!expired && row.state === 'done') return { kind: 'replay', status: Number(row.status), response: row.response === null ? '' : r.seal.open(row.response, answerContext(r)) };
    if (!expired && lockedUntil !== null && lockedUntil > r.now) return { kind: 'in_use' };
    // An expired key starts over; a running one whose holder died is taken over. Only one of
    // several takers wins: the row must still be as read.
    const taken = await table(db).where({ ...keyOf(r), created_at: createdAt, state: row.state }).update(running);
    if (taken === 1) return { kind: 'run' };
  }
  return { kind: 'in_use' };
}

/** The request succeeded: its answer, sealed, is what repeats get. */
export async function rememberAnswer(db: DbOrTrx, r: IdempotentRequest, status: number, response: string): Promise<void> {
  const sealed = r.seal.seal(response, answerContext(r));
  await table(db).where({ ...keyOf(r), fingerprint: r.fingerprint, state: 'running' }).update({ state: 'done', status, response: sealed, locked_until: null });
}

/** The request failed: the key is free for a retry to run it again. */
export async function releaseKey(db: DbOrTrx, r: IdempotentRequest): Promise<void> {
  await table(db).where({ ...keyOf(r), fingerprint: r.fingerprint, state: 'running' }).delete();
}

export const idempotencyRetention: RetentionRule[] = [
  { name: 'idempotency_keys', table: 'idempotency_keys', column: 'created_at', maxAgeMs: IDEMPOTENCY_TTL_MS, key: ['api_key_id', 'idempotency_key'] },
];
