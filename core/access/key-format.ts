import { enumValues, type Schemas } from '../contract/index.ts';
import crypto from 'node:crypto';

/**
 * API key format: `sh_` + 32 base62 random characters + 6 base62 characters of the
 * CRC32 of the random part, e.g. `sh_3kTq...Zp9` (41 characters).
 *
 * The prefix makes a leaked key recognisable to secret scanners, and the checksum lets
 * them (and us) reject a mistyped or made-up key without a database lookup, as GitHub's
 * tokens do. The checksum is not a secret: the 32 random characters (~190 bits) are.
 */
export const KEY_PREFIX = 'sh_';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
export const KEY_LENGTH = KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

/** The scopes a key may carry, as the contract's `Scope` enum lists them. */
export const SCOPES = enumValues('Scope');
export type Scope = Schemas['Scope'];

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

// Our own CRC32 (IEEE, as zip/PNG) because zlib.crc32 only exists from Node 20.15 and
// the checksum must be identical wherever a key is checked.
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Base62 of the CRC32, left-padded to 6 characters (62^6 > 2^32, so it always fits). */
function checksumOf(randomPart: string): string {
  let n = crc32(randomPart);
  let out = '';
  while (n > 0) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out.padStart(CHECKSUM_LENGTH, '0');
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    // Rejection sampling: bytes >= 248 (= 4 * 62) are skipped so every character is
    // equally likely; a plain `byte % 62` would favour the first 8 characters.
    for (const byte of crypto.randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function generateKey(): string {
  const randomPart = randomBase62(RANDOM_LENGTH);
  return KEY_PREFIX + randomPart + checksumOf(randomPart);
}

/** The value stored in `api_keys.key_hash`: SHA-256 hex of the whole key. */
export function hashKey(key: string): string {
  return crypto.createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Format and checksum only; true does not mean the key exists. */
export function looksLikeKey(key: unknown): key is string {
  if (typeof key !== 'string' || key.length !== KEY_LENGTH || !KEY_PATTERN.test(key)) return false;
  const randomPart = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + RANDOM_LENGTH);
  return key.slice(KEY_PREFIX.length + RANDOM_LENGTH) === checksumOf(randomPart);
}

/** Safe to show and log: the prefix and 5 random characters (~30 bits, useless to an attacker). */
export function keyHint(key: string): string {
  return key.slice(0, 8);
}

/** The last 4 characters: checksum characters only, so they reveal nothing of the random part. */
export function keyLast4(key: string): string {
  return key.slice(-4);
}
