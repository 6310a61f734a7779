import { Kysely, PostgresAdapter, sql, type ColumnDefinitionBuilder, type CreateTableBuilder } from 'kysely';

/**
 * The one place where SQLite and PostgreSQL differ in our DDL: auto-incrementing integer keys
 * (`integer ... autoincrement` on SQLite, `serial` on PostgreSQL). Queries themselves stay neutral.
 */
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
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
