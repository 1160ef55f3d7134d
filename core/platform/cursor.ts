import { ValidationFailed } from './errors.ts';
import { isUuid } from './ids.ts';

// The one cursor of every list (docs/api.md#pagination): the sort key of the page's last row,
// a time in epoch milliseconds and the row's id, opaque to callers (base64url of `<ms>.<id>`).
// Paging is keyset: rows written between two pages never make a row repeat or go missing.

export interface Keyset {
  /** The row's time in the list's order (epoch milliseconds). */
  at: number;
  id: string;
}

export function encodeCursor(k: Keyset): string {
  return Buffer.from(`${k.at}.${k.id}`, 'utf8').toString('base64url');
}

/** The cursor's keyset, or a 400 naming the `cursor` parameter. */
export function decodeCursor(raw: string, list: string): Keyset {
  const m = /^[A-Za-z0-9_-]+$/.test(raw) ? /^(\d{1,16})\.([0-9a-f-]{36})$/.exec(Buffer.from(raw, 'base64url').toString('utf8')) : null;
  if (!m || !isUuid(m[2])) {
    throw new ValidationFailed(`cursor is not a meta.next_cursor of ${list}.`, [{ in: 'query', path: '/cursor', message: 'is not a valid cursor: pass meta.next_cursor of the previous page as it is' }]);
  }
  return { at: Number(m[1]), id: m[2] };
}
