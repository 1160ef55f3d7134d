// Idempotent POSTs: the idempotency_keys table (claim a key, remember the answer sealed, release it).
export { claimKey, rememberAnswer, releaseKey, idempotentRequest, idempotencyRetention, IDEMPOTENCY_TTL_MS, IDEMPOTENCY_LOCK_MS, type Claim, type IdempotentRequest } from './keys.ts';
