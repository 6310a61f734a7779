import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * Issue 15 item 4: Kysely sends every statement unnamed, so PostgreSQL parses and plans it each time:
 * for the service's two statements of `GET /projects/{id}`, pgbench measured 8,022 and 4,373 a
 * second sent that way against 22,829 and 25,708 prepared, planning being about three quarters of
 * PostgreSQL's time. The hot reads (prepared-query.ts) register their text here and are sent as
 * named prepared statements: each connection parses them once and PostgreSQL may keep a generic plan.
 *
 * Only registered texts are named: node-postgres keeps a connection's named statements for its
 * lifetime, so naming every text (IN lists of every length, multi-row inserts) would grow each
 * connection without bound. The registered ones are a fixed few, compiled once per process.
 */
const names = new Map<string, string>();

/** From now on, `text` is sent as a named statement on PostgreSQL connections (`sendRegisteredAsNamed`). */
export function nameStatement(text: string): void {
  if (!names.has(text)) names.set(text, `scoreboard_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`);
}

/** The name `text` is sent under, or undefined when it is sent unnamed. */
export function statementName(text: string): string | undefined {
  return names.get(text);
}

/**
 * Makes `client` send registered texts as named statements. Kysely calls `query(text, values)`; a
 * text with a name is handed to node-postgres as `{ name, text }` with the same values.
 */
export function sendRegisteredAsNamed(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((config: unknown, ...rest: unknown[]) => {
    const name = typeof config === 'string' ? names.get(config) : undefined;
    return name === undefined ? query(config, ...rest) : query({ name, text: config }, ...rest);
  }) as typeof client.query;
}
