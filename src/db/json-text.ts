import { sql, type Expression, type RawBuilder } from 'kysely';
import type { Db } from './database.js';
import { isPostgres } from './dialect.js';

/**
 * JSON text written by the database, for answers spliced together without building row objects
 * (projects.repository.ts). Each helper yields exactly what JSON.stringify writes for the value as
 * the driver would return it: SQLite's json_quote and PostgreSQL's to_json escape strings the same
 * way (\b \f \n \r \t, \u00xx for the other control characters, nothing else), and write integers
 * as digits. Not for floating-point values: SQLite writes 2.0 and 0.3 where JavaScript writes 2 and
 * 0.30000000000000004; those are formatted in JavaScript.
 */
export function jsonValue(db: Db, value: Expression<unknown>): RawBuilder<string> {
  return isPostgres(db) ? sql<string>`coalesce(to_json(${value})::text, 'null')` : sql<string>`json_quote(${value})`;
}

/**
 * The JSON text of `key` of a JSON object stored as text (`null` when absent), as it is stored:
 * our own JSON.stringify output, so already in JavaScript's spelling.
 */
export function jsonMember(db: Db, column: Expression<string>, key: string): RawBuilder<string> {
  return isPostgres(db)
    ? sql<string>`coalesce((${column}::json -> ${sql.lit(key)})::text, 'null')`
    : sql<string>`coalesce(${column} -> ${sql.lit(`$.${key}`)}, 'null')`;
}

/** Text pieces joined by the database (`||` on both). */
export function concatText(parts: Expression<string>[]): RawBuilder<string> {
  return sql<string>`(${sql.join(parts, sql` || `)})`;
}
