import { createQueryId, type Compilable, type CompiledQuery } from 'kysely';
import type { Db } from './database.js';
import { isPostgres } from './dialect.js';
import { nameStatement } from './named-statements.js';

/**
 * A query that Kysely builds and compiles once per dialect and then runs with new parameter values.
 * Building and compiling a query (immutable builder objects, a visitor over its tree) cost more than
 * running it on SQLite in the benchmark's profile; for the queries every request runs (the token
 * lookup, the project lookup, the list) that work is done once.
 *
 * `build` is called once with placeholder values standing for the parameters, so it must use them
 * only as values (where/limit/offset), never to decide the shape of the query.
 */
export function preparedQuery<P extends unknown[], Row>(build: (db: Db, ...params: P) => Compilable<Row>) {
  const compiled = new Map<string, { template: CompiledQuery<Row>; slots: (number | { constant: unknown })[] }>();

  return async function run(db: Db, ...params: P): Promise<Row[]> {
    const dialect = isPostgres(db) ? 'postgres' : 'sqlite';
    let entry = compiled.get(dialect);
    if (!entry) {
      const placeholders = params.map((_, i) => `\u0000param-${i}\u0000`);
      const template = build(db, ...(placeholders as unknown as P)).compile();
      if (placeholders.some((placeholder) => template.sql.includes(placeholder))) {
        throw new Error('preparedQuery: a parameter ended up in the SQL text; use it as a value only');
      }
      const slots = template.parameters.map((value) => {
        const index = placeholders.indexOf(value as string);
        return index >= 0 ? index : { constant: value };
      });
      entry = { template, slots };
      compiled.set(dialect, entry);
      // PostgreSQL: parsed and planned once per connection, not at every run (named-statements.ts).
      if (dialect === 'postgres') nameStatement(template.sql);
    }
    const parameters = entry.slots.map((slot) => (typeof slot === 'number' ? params[slot] : slot.constant));
    const result = await db.executeQuery<Row>({ ...entry.template, parameters, queryId: createQueryId() });
    return result.rows;
  };
}
