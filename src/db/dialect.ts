import { type Kysely, PostgresAdapter, type SelectQueryBuilder, sql, type ColumnDefinitionBuilder, type CreateTableBuilder } from 'kysely';

/**
 * The small adapter for where SQLite and PostgreSQL differ: auto-incrementing keys in the DDL
 * (`integer ... autoincrement` on SQLite, `serial` on PostgreSQL), the type of `count(*)`, and row
 * locks. Queries themselves stay neutral.
 */
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * The largest id a row can have: ids are PostgreSQL `serial` (32-bit). A larger number names no row,
 * and must not reach a query, where PostgreSQL refuses it as out of range (a 500, not a 404).
 */
export const MAX_ROW_ID = 2_147_483_647;

/** Whether `id` can name a row (see MAX_ROW_ID). */
export function isRowId(id: number): boolean {
  return Number.isInteger(id) && id >= 1 && id <= MAX_ROW_ID;
}

export function addIdColumn<T extends string, C extends string>(
  db: Kysely<any>,
  table: CreateTableBuilder<T, C>,
): CreateTableBuilder<T, C | 'id'> {
  return isPostgres(db)
    ? table.addColumn('id', 'serial', (col: ColumnDefinitionBuilder) => col.primaryKey())
    : table.addColumn('id', 'integer', (col: ColumnDefinitionBuilder) => col.primaryKey().autoIncrement());
}

/** `count(*)` is a bigint (a string through `pg`) on PostgreSQL and a number on SQLite. */
export const countAll = sql<string | number>`count(*)`;

/** How many rows `query` selects, as a number on both databases (`select count(*) as "count" ...`). */
export async function countRows<DB, TB extends keyof DB>(query: SelectQueryBuilder<DB, TB, object>): Promise<number> {
  // The row's type is lost to the generic table; it is the one column selected here.
  const row = await query.select(countAll.as('count')).$castTo<{ count: string | number }>().executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Serialises the writers that read-then-write what hangs off one row (a user's 10-token limit, a
 * project's latest-report pointer) for the rest of the transaction. SQLite's write transactions
 * are already serial (BEGIN IMMEDIATE); PostgreSQL's READ COMMITTED is not, so the row is locked
 * there, and the statements after the lock see what the previous holder committed.
 */
export async function lockForUpdate(trx: Kysely<any>, table: 'users' | 'projects' | 'reports', id: number | string): Promise<void> {
  if (!isPostgres(trx)) return;
  await trx.selectFrom(table).select('id').where('id', '=', id).forUpdate().execute();
}
