import { v7, validate } from 'uuid';

/** Time-ordered UUID (v7): index-friendly primary keys and a stable tiebreak for "newest first". */
export function newId(): string {
  return v7();
}

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && validate(value);
}
