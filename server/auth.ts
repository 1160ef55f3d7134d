import type { Db } from '../core/db/connection.ts';
import { authenticateKey, looksLikeKey, type AuthenticatedKey } from '../core/api-keys.ts';
import { hashKey } from '../core/keys.ts';

export type Auth = AuthenticatedKey;

interface Cached {
  auth: Auth;
  expiresAt: number;
}

/**
 * Resolves X-API-Key to its key record. A per-process cache keeps lookups cheap; its entries
 * live 5 seconds at most, so a key revoked on any process stops working everywhere within 5 s.
 * Only successful lookups are cached, so random keys cannot grow it.
 */
export class KeyAuthenticator {
  private cache = new Map<string, Cached>();

  constructor(
    private db: Db,
    private ttlMs = 5000,
    private maxEntries = 10000,
  ) {}

  async authenticate(raw: string | undefined): Promise<Auth | null> {
    if (!raw || !looksLikeKey(raw)) return null;
    const digest = hashKey(raw);
    const hit = this.cache.get(digest);
    const now = Date.now();
    if (hit && hit.expiresAt > now) return hit.auth;
    const auth = await authenticateKey(this.db, raw);
    if (!auth) {
      this.cache.delete(digest);
      return null;
    }
    if (this.cache.size >= this.maxEntries) this.cache.clear();
    this.cache.set(digest, { auth, expiresAt: now + this.ttlMs });
    return auth;
  }
}
