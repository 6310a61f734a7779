import type { SelectQueryBuilder, StringReference } from 'kysely';

/**
 * One page (D16's limit and offset) of `query`'s rows, ordered by each of `columns` descending:
 * newest first, ties highest id first, as a project's paginated lists are.
 */
export function pageDescending<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  columns: readonly StringReference<DB, TB>[],
  page: { limit: number; offset: number },
): SelectQueryBuilder<DB, TB, O> {
  let ordered = query;
  for (const column of columns) ordered = ordered.orderBy(column, 'desc');
  return ordered.limit(page.limit).offset(page.offset);
}
