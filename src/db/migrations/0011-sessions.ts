import type { Kysely } from 'kysely';
import { addIdColumn } from '../dialect.js';

/**
 * E7: dashboard sign-in. A user's password (a scrypt hash, sessions/password-hash.ts), their
 * sessions, server-side so that a sign-out or a password change ends them at once on every instance,
 * and the failed sign-ins of each email address that lock it out (sessions/sign-in-lockout.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Null until the operator sets one: such a user cannot sign in to the dashboard.
  await db.schema.alterTable('users').addColumn('password_hash', 'text').execute();

  await addIdColumn(db, db.schema.createTable('sessions'))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    // The SHA-256 of the cookie's value: the value itself is never stored (like tokens, D9).
    .addColumn('token_hash', 'text', (col) => col.notNull().unique())
    .addColumn('created_at', 'text', (col) => col.notNull())
    // Written at most once a minute; the session ends 12 hours after it (idle timeout).
    .addColumn('last_seen_at', 'text', (col) => col.notNull())
    // The absolute end: 7 days after sign-in, however active the session.
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();
  // The clean-up job's cut (sessions/session-retention.ts).
  await db.schema.createIndex('sessions_expires_idx').on('sessions').column('expires_at').execute();

  await db.schema
    .createTable('sign_in_failures')
    // Normalised like users.email; any address, known or not, so a lockout reveals nothing.
    .addColumn('email', 'text', (col) => col.primaryKey())
    .addColumn('failures', 'integer', (col) => col.notNull())
    // The first failure of the current 15-minute window.
    .addColumn('window_started_at', 'text', (col) => col.notNull())
    .addColumn('locked_until', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sign_in_failures').execute();
  await db.schema.dropTable('sessions').execute();
  await db.schema.alterTable('users').dropColumn('password_hash').execute();
}
