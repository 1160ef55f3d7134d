import crypto from 'node:crypto';
import { promisify } from 'node:util';

// Passwords as memory-hard digests: scrypt from node:crypto (spec/sign-in.tsp `password`). The
// digest names its parameters, so they can be raised later and old digests still verify.

const scrypt = promisify(crypto.scrypt) as (password: string, salt: Buffer, keylen: number, options: crypto.ScryptOptions) => Promise<Buffer>;

const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
// scrypt needs 128 * N * r bytes; node's default ceiling (32 MiB) is exactly that, with no room.
const MAX_MEMORY = 256 * N * R;

/** `scrypt$<N>$<r>$<p>$<salt>$<digest>`, base64url parts. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const digest = await scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { N, r: R, p: P, maxmem: MAX_MEMORY });
  return ['scrypt', N, R, P, salt.toString('base64url'), digest.toString('base64url')].join('$');
}

// A digest of nothing anyone knows: an unknown email costs the same one hash as a wrong password.
const UNMATCHABLE = `scrypt$${N}$${R}$${P}$${crypto.randomBytes(16).toString('base64url')}$${crypto.randomBytes(KEY_LENGTH).toString('base64url')}`;

/**
 * Whether `password` matches `stored`. With no stored digest (an unknown email, a user without a
 * password) it still computes one hash and answers false, so the time taken tells nothing.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const [scheme, n, r, p, salt, digest] = (stored ?? UNMATCHABLE).split('$');
  const parsed = [Number(n), Number(r), Number(p)];
  if (scheme !== 'scrypt' || parsed.some((v) => !Number.isInteger(v) || v < 1) || !salt || !digest) return verifyPassword(password, null);
  const expected = Buffer.from(digest, 'base64url');
  const actual = await scrypt(password.normalize('NFC'), Buffer.from(salt, 'base64url'), expected.length, { N: parsed[0], r: parsed[1], p: parsed[2], maxmem: 256 * parsed[0] * parsed[1] });
  return stored !== null && crypto.timingSafeEqual(actual, expected);
}
