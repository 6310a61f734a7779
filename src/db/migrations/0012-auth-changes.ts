import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../dialect.js';

/**
 * Issue 15: what tells each instance's cache of token lookups (auth/token-cache.ts) that something
 * it holds may have changed: a personal access token's hash, owner, abilities or expiry, or its
 * deletion; a user's email or current team, or the user's deletion; any change of a subscription.
 * Triggers, so that every write path (the API, the dashboard, the operator CLI, a future one, a
 * cascade) is covered without remembering to.
 * - SQLite: each such write adds one to `auth_changes.generation` in the writing transaction; every
 *   lookup reads that one row (several processes may share the file; a commit is seen at once).
 * - PostgreSQL: each such statement sends NOTIFY on `scoreboard_auth` with the table's schema, which
 *   PostgreSQL delivers when (and only if) the transaction commits; each instance used to LISTEN.
 *   Migration 0017 drops these triggers and their function: a notification reaches the other
 *   instances after the writer's commit has returned, too late for D9, so token lookups are no
 *   longer cached on PostgreSQL.
 * `last_used_at` is not among the columns: it is written once a minute per token and held apart.
 */
const TABLE_CHANGES = [
  { table: 'personal_access_tokens', update: ['user_id', 'token_hash', 'abilities', 'expires_at'], insert: false },
  { table: 'users', update: ['id', 'email', 'current_team_id'], insert: false },
  { table: 'subscriptions', update: null, insert: true },
] as const;

/** PostgreSQL: the function and the triggers that send the notifications (also migration 0017's `down`). */
export async function createPostgresNotifications(db: Kysely<any>): Promise<void> {
  await sql`
    create function scoreboard_auth_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('scoreboard_auth', tg_table_schema);
      return null;
    end $$`.execute(db);
  for (const { table, update, insert } of TABLE_CHANGES) {
    const events = [update ? `update of ${update.join(', ')}` : 'update', 'delete', ...(insert ? ['insert'] : [])].join(' or ');
    await sql
      .raw(`create trigger ${table}_auth_changed after ${events} on ${table} for each statement execute function scoreboard_auth_changed()`)
      .execute(db);
  }
}

/** PostgreSQL: drops what `createPostgresNotifications` created (also migration 0017's `up`). */
export async function dropPostgresNotifications(db: Kysely<any>): Promise<void> {
  for (const { table } of TABLE_CHANGES) await sql.raw(`drop trigger ${table}_auth_changed on ${table}`).execute(db);
  await sql`drop function scoreboard_auth_changed()`.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return createPostgresNotifications(db);
  await db.schema
    .createTable('auth_changes')
    .addColumn('id', 'integer', (col) => col.primaryKey())
    .addColumn('generation', 'integer', (col) => col.notNull())
    .execute();
  await db.insertInto('auth_changes').values({ id: 1, generation: 0 }).execute();
  const bump = 'update auth_changes set generation = generation + 1 where id = 1;';
  for (const { table, update, insert } of TABLE_CHANGES) {
    const events: [string, string][] = [
      ['update', update ? `update of ${update.join(', ')}` : 'update'],
      ['delete', 'delete'],
      ...(insert ? ([['insert', 'insert']] as [string, string][]) : []),
    ];
    for (const [name, event] of events) {
      await sql.raw(`create trigger ${table}_auth_${name} after ${event} on ${table} begin ${bump} end`).execute(db);
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return dropPostgresNotifications(db);
  for (const { table, insert } of TABLE_CHANGES) {
    for (const name of ['update', 'delete', ...(insert ? ['insert'] : [])]) await sql.raw(`drop trigger ${table}_auth_${name}`).execute(db);
  }
  await db.schema.dropTable('auth_changes').execute();
}
