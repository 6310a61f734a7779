import type { Db } from '../db/database.js';
import { countRows, isPostgres } from '../db/dialect.js';
import { preparedQuery } from '../db/prepared-query.js';
import type { TokenAuthRow } from '../auth/identify-caller.js';

export interface TokenRow {
  id: number;
  name: string;
  abilities: string;
  last_used_at: string | null;
  expires_at: string | null;
  created_at: string;
}

// The hash is used in WHERE clauses only and never selected (D9).
const displayColumns = ['id', 'name', 'abilities', 'last_used_at', 'expires_at', 'created_at'] as const;

/** The token, its user and the user's subscription, in one query. */
const selectAuthRow = (db: Db) =>
  db
    .selectFrom('personal_access_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .leftJoin('subscriptions as s', 's.user_id', 't.user_id')
    .select([
      't.id',
      't.user_id',
      'u.email',
      't.abilities',
      't.expires_at',
      't.last_used_at',
      'u.current_team_id',
      's.plan',
      's.status as subscription_status',
      's.ends_at as subscription_ends_at',
    ]);

// Every /api/v1 request runs this lookup: compiled once (db/prepared-query.ts).
const findForAuth = preparedQuery((db: Db, tokenHash: string) => selectAuthRow(db).where('t.token_hash', '=', tokenHash));
// GET /tokens, D9's newest first: compiled once as well.
const listForUser = preparedQuery((db: Db, userId: number) =>
  db
    .selectFrom('personal_access_tokens')
    .select(displayColumns)
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc'),
);

export function createTokensRepository(db: Db) {
  return {
    async findForAuth(tokenHash: string): Promise<TokenAuthRow | undefined> {
      return (await findForAuth(db, tokenHash))[0];
    },

    /**
     * D22: the token's auth row again, inside a write's transaction. On PostgreSQL the token row is
     * share-locked until the transaction ends, so a revocation either commits before this read (and
     * the write is refused) or waits for the write. SQLite's write transactions are serial already.
     */
    async findForAuthInTransaction(id: number): Promise<TokenAuthRow | undefined> {
      return selectAuthRow(db)
        .where('t.id', '=', id)
        .$if(isPostgres(db), (query) => query.forShare(['t']))
        .executeTakeFirst();
    },

    /**
     * D9: writes `at` unless another instance wrote a time after `staleBefore` (instances know only
     * their own writes since they cached the token: the database keeps it once a minute for all).
     */
    async touchLastUsed(id: number, at: string, staleBefore: string): Promise<void> {
      await db
        .updateTable('personal_access_tokens')
        .set({ last_used_at: at })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', staleBefore)]))
        .execute();
    },

    async listForUser(userId: number): Promise<TokenRow[]> {
      return listForUser(db, userId);
    },

    /** D9: every token that was not revoked counts, expired ones included. */
    async countForUser(userId: number): Promise<number> {
      return countRows(db.selectFrom('personal_access_tokens').where('user_id', '=', userId));
    },

    async insert(token: {
      user_id: number;
      name: string;
      token_hash: string;
      abilities: string;
      expires_at: string | null;
      created_at: string;
    }): Promise<TokenRow> {
      return db
        .insertInto('personal_access_tokens')
        .values({ ...token, last_used_at: null })
        .returning(displayColumns)
        .executeTakeFirstOrThrow();
    },

    /** Ownership is part of the WHERE: another user's token is simply not found. */
    async findForUser(userId: number, id: number): Promise<TokenRow | undefined> {
      return db
        .selectFrom('personal_access_tokens')
        .select(displayColumns)
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
    },

    /** Any user's token, with its owner: for the operator command only. */
    async findById(id: number): Promise<(TokenRow & { user_id: number }) | undefined> {
      return db
        .selectFrom('personal_access_tokens')
        .select([...displayColumns, 'user_id'])
        .where('id', '=', id)
        .executeTakeFirst();
    },

    async deleteForUser(userId: number, id: number): Promise<boolean> {
      const result = await db.deleteFrom('personal_access_tokens').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

export type TokensRepository = ReturnType<typeof createTokensRepository>;
