import { sql, type Expression, type RawBuilder } from 'kysely';
import type { Db } from './database.js';
import { isPostgres } from './dialect.js';

/**
 * JSON text written by the database, for answers spliced together without building row objects
 * (projects.repository.ts). What the database writes is exactly what JSON.stringify writes for the
 * value as the driver would return it: SQLite's json_object / json_quote and PostgreSQL's to_json
 * escape strings the same way (\b \f \n \r \t, \u00xx for the other control characters, nothing
 * else), and write integers as digits. Not for floating-point values: SQLite writes 2.0 and 0.3 where
 * JavaScript writes 2 and 0.30000000000000004; those are formatted in JavaScript.
 */

/** A member: a column's value, or JSON already (`json`: another object of these, a stored member). */
export type JsonMember = readonly [key: string, value: Expression<unknown>, kind?: 'json'];

/**
 * The JSON text of an object of `members`, with `before` written in place of its opening brace and
 * `after` in place of its closing one when given (for an object cut around a value written
 * elsewhere). SQLite: one json_object, its brace trimmed (so, with `after`, the last member's value
 * must not be an object); a third of the cost of quoting each value and joining the text.
 * PostgreSQL: json_build_object spaces its members (`"a" : 1`), so each value is written with to_json
 * and the text joined.
 */
export function jsonObjectText(
  db: Db,
  members: readonly JsonMember[],
  frame: { before?: string; after?: string } = {},
): RawBuilder<string> {
  if (isPostgres(db)) {
    const parts = members.flatMap(([key, value, kind], i) => [
      sql.lit(`${i === 0 ? (frame.before ?? '{') : ','}${JSON.stringify(key)}:`),
      kind === 'json' ? value : sql`coalesce(to_json(${value})::text, 'null')`,
    ]);
    return sql<string>`(${sql.join([...parts, sql.lit(frame.after ?? '}')], sql` || `)})`;
  }
  let text = sql<string>`json_object(${sql.join(members.flatMap(([key, value]) => [sql.lit(key), value]))})`;
  if (frame.before !== undefined) text = sql<string>`(${sql.lit(frame.before)} || ltrim(${text}, '{'))`;
  if (frame.after !== undefined) text = sql<string>`(rtrim(${text}, '}') || ${sql.lit(frame.after)})`;
  return text;
}

/**
 * Member `key` of a JSON object stored as text, as a JsonMember value (null when absent): the
 * stored text is our own JSON.stringify output, so already in JavaScript's spelling.
 */
export function jsonMember(db: Db, column: Expression<string>, key: string): Expression<unknown> {
  return isPostgres(db)
    ? sql<string>`coalesce((${column}::json -> ${sql.lit(key)})::text, 'null')`
    : sql`${column} -> ${sql.lit(`$.${key}`)}`;
}
