import type { QueryBuilder, Model } from 'objection';

/**
 * Rows after a page's last row in a newest-first list ordered by (`column` desc, id desc): the
 * keyset a cursor carries (core/platform/cursor.ts).
 */
export function afterKeyset<M extends Model>(query: QueryBuilder<M, M[]>, column: string, k: { at: number; id: string }): QueryBuilder<M, M[]> {
  return query.where(column, '<=', k.at).where((w) => w.where(column, '<', k.at).orWhere('id', '<', k.id));
}
