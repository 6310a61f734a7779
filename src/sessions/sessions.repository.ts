import type { Db } from '../db/database.js';
import { isPostgres } from '../db/dialect.js';
import { preparedQuery } from '../db/prepared-query.js';

/** What identifying a session needs, in one query: the session, its user and the user's subscription. */
export interface SessionAuthRow {
  id: number;
  user_id: number;
  email: string;
  last_seen_at: string;
  expires_at: string;
  current_team_id: number | null;
  plan: string | null;
  subscription_status: string | null;
  subscription_ends_at: string | null;
}

const selectAuthRow = (db: Db) =>
  db
    .selectFrom('sessions as x')
    .innerJoin('users as u', 'u.id', 'x.user_id')
    .leftJoin('subscriptions as s', 's.user_id', 'x.user_id')
    .select([
      'x.id',
      'x.user_id',
      'u.email',
      'x.last_seen_at',
      'x.expires_at',
      'u.current_team_id',
      's.plan',
      's.status as subscription_status',
      's.ends_at as subscription_ends_at',
    ]);

// Every request of the dashboard runs this lookup: compiled once (db/prepared-query.ts).
const findForAuth = preparedQuery((db: Db, tokenHash: string) => selectAuthRow(db).where('x.token_hash', '=', tokenHash));

/** E7: dashboard sessions, users' password hashes and the sign-in attempts that lock an email out. */
export function createSessionsRepository(db: Db) {
  return {
    async findForAuth(tokenHash: string): Promise<SessionAuthRow | undefined> {
      return (await findForAuth(db, tokenHash))[0];
    },

    /** D22 for sessions: the row again inside a write's transaction, share-locked on PostgreSQL (like tokens). */
    async findForAuthInTransaction(id: number): Promise<SessionAuthRow | undefined> {
      return selectAuthRow(db)
        .where('x.id', '=', id)
        .$if(isPostgres(db), (query) => query.forShare(['x']))
        .executeTakeFirst();
    },

    async insert(session: {
      user_id: number;
      token_hash: string;
      created_at: string;
      expires_at: string;
      ip: string | null;
      user_agent: string | null;
    }): Promise<number> {
      const row = await db
        .insertInto('sessions')
        .values({ ...session, last_seen_at: session.created_at })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async touch(id: number, at: string): Promise<void> {
      await db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
    },

    async delete(id: number): Promise<boolean> {
      const result = await db.deleteFrom('sessions').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** Ends every session of the user but `exceptId` (a password change keeps the one that made it). */
    async deleteForUser(userId: number, exceptId: number | null = null): Promise<number> {
      const result = await db
        .deleteFrom('sessions')
        .where('user_id', '=', userId)
        .$if(exceptId !== null, (query) => query.where('id', '!=', exceptId!))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Up to `limit` sessions past their absolute end or idle since `idleBefore`; how many went. */
    async deleteEnded(now: string, idleBefore: string, limit: number): Promise<number> {
      const ended = db
        .selectFrom('sessions')
        .select('id')
        .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', idleBefore)]))
        .limit(limit);
      const result = await db.deleteFrom('sessions').where('id', 'in', ended).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async findUserForSignIn(email: string) {
      return db.selectFrom('users').select(['id', 'email', 'name', 'password_hash']).where('email', '=', email).executeTakeFirst();
    },

    async findUser(id: number) {
      return db.selectFrom('users').select(['id', 'email', 'name', 'password_hash']).where('id', '=', id).executeTakeFirst();
    },

    async setPasswordHash(userId: number, hash: string): Promise<void> {
      await db.updateTable('users').set({ password_hash: hash }).where('id', '=', userId).execute();
    },

    // --- sign-in attempts (sign-in-lockout.ts) ---------------------------------------------------

    /**
     * The email's row, created when missing, and locked for the rest of the transaction: FOR UPDATE
     * on PostgreSQL; on SQLite every transaction is already the only writer (BEGIN IMMEDIATE).
     */
    async lockAttempts(email: string, now: string) {
      await db
        .insertInto('sign_in_attempts')
        .values({ email, attempts: '[]', updated_at: now, locked_until: null })
        .onConflict((oc) => oc.column('email').doNothing())
        .execute();
      return db
        .selectFrom('sign_in_attempts')
        .selectAll()
        .where('email', '=', email)
        .$if(isPostgres(db), (query) => query.forUpdate())
        .executeTakeFirstOrThrow();
    },

    async putAttempts(row: { email: string; attempts: string; updated_at: string; locked_until: string | null }): Promise<void> {
      await db.updateTable('sign_in_attempts').set(row).where('email', '=', row.email).execute();
    },

    async deleteAttempts(email: string): Promise<void> {
      await db.deleteFrom('sign_in_attempts').where('email', '=', email).execute();
    },

    /** Up to `limit` rows unchanged and unlocked before `before`; how many went. */
    async deleteStaleAttempts(before: string, limit: number): Promise<number> {
      const stale = db
        .selectFrom('sign_in_attempts')
        .select('email')
        .where('updated_at', '<=', before)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', before)]))
        .limit(limit);
      const result = await db.deleteFrom('sign_in_attempts').where('email', 'in', stale).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
