/** A unique-constraint violation on either engine, optionally on a given column or constraint. */
export function isUniqueViolation(err: unknown, hint?: string): boolean {
  // Objection wraps driver errors (UniqueViolationError, DBError) and keeps the original.
  const e = ((err as { nativeError?: unknown } | null)?.nativeError ?? err) as { code?: string; constraint?: string; message?: string } | null;
  if (!e) return false;
  const unique = e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
  if (!unique || !hint) return unique;
  // PostgreSQL names the constraint (`workspaces_slug_unique`); SQLite names the column
  // in its message (`UNIQUE constraint failed: workspaces.slug`).
  return `${e.constraint ?? ''} ${e.message ?? ''}`.includes(hint);
}

/** A foreign-key violation on either engine: the row referred to is gone (deleted meanwhile). */
export function isForeignKeyViolation(err: unknown): boolean {
  const e = ((err as { nativeError?: unknown } | null)?.nativeError ?? err) as { code?: string } | null;
  return e?.code === '23503' || e?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
