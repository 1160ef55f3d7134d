import crypto from 'node:crypto';
import anyAscii from 'any-ascii';

export const SLUG_MAX_LENGTH = 64;

// Scripts without letter case whose transliteration runs syllables together ("日本語" ->
// "RiBenYu"): each character is transliterated on its own so syllables stay apart ("ri-ben-yu").
const SYLLABIC = /[\p{Script=Han}\p{Script=Hangul}]/gu;

/**
 * The slug of a workspace name: transliterated to ASCII with any-ascii (`Ünïcødé Café` ->
 * `unicode-cafe`, `Привет` -> `privet`, `日本語` -> `ri-ben-yu`, emoji by their names), lower
 * case, runs of anything else as one '-', no '-' at either end, at most 64 characters. When
 * nothing usable is left (a name of punctuation only), `workspace-` and six random characters,
 * so such names never collide across the service.
 */
export function slugify(name: string): string {
  const spaced = name.replace(SYLLABIC, (c) => ` ${anyAscii(c)} `);
  const slug = anyAscii(spaced)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/-+$/, '');
  return slug || `workspace-${crypto.randomInt(36 ** 6).toString(36).padStart(6, '0')}`;
}
