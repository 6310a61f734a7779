import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import { countAll } from '../db/dialect.js';
import type { Plan, UsersTable } from '../db/schema.js';

/** A user as the operator's commands see them: never the password hash (E7). */
export type UserRow = Omit<Selectable<UsersTable>, 'password_hash'>;
const USER_COLUMNS = ['id', 'email', 'name', 'current_team_id', 'created_at'] as const;

/** Users, teams, memberships and subscriptions (D15, D7, D20). */
export function createAccountsRepository(db: Db) {
  return {
    async findUserByEmail(email: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').select(USER_COLUMNS).where('email', '=', email).executeTakeFirst();
    },

    async insertUser(user: { email: string; name: string | null; created_at: string; password_hash?: string | null }): Promise<UserRow> {
      return db
        .insertInto('users')
        .values({ ...user, current_team_id: null })
        .returning(USER_COLUMNS)
        .executeTakeFirstOrThrow();
    },

    /** Their tokens, memberships and subscription go with them (cascades); invitations they sent keep no inviter. */
    async deleteUser(userId: number): Promise<void> {
      await db.deleteFrom('users').where('id', '=', userId).execute();
    },

    /** One subscription row per user, changed in place (one statement, like `putMembership`). */
    async putSubscription(userId: number, plan: Plan, at: string): Promise<void> {
      await db
        .insertInto('subscriptions')
        .values({ user_id: userId, plan, status: 'active', ends_at: null, created_at: at, updated_at: at })
        .onConflict((conflict) => conflict.column('user_id').doUpdateSet({ plan, status: 'active', ends_at: null, updated_at: at }))
        .execute();
    },

    async cancelSubscription(userId: number, at: string): Promise<void> {
      await db
        .updateTable('subscriptions')
        .set({ status: 'canceled', ends_at: at, updated_at: at })
        .where('user_id', '=', userId)
        .execute();
    },

    // Reads for the operator command (accounts.overview.ts), each one query whatever the row count.

    /** Every user (or the one with `userId`), by id, with their subscription and token count. */
    async listUsersWithCounts(userId?: number): Promise<UserOverviewRow[]> {
      const rows = await db
        .selectFrom('users as u')
        .leftJoin('subscriptions as s', 's.user_id', 'u.id')
        .select(['u.id', 'u.email', 'u.name', 'u.current_team_id', 'u.created_at', 's.plan', 's.status', 's.ends_at'])
        .select((eb) =>
          eb.selectFrom('personal_access_tokens as p').select(countAll.as('n')).whereRef('p.user_id', '=', 'u.id').as('token_count'),
        )
        .$if(userId !== undefined, (query) => query.where('u.id', '=', userId!))
        .orderBy('u.id')
        .execute();
      return rows.map((row) => ({ ...row, token_count: Number(row.token_count ?? 0) }));
    },
  };
}

export interface UserOverviewRow {
  id: number;
  email: string;
  name: string | null;
  current_team_id: number | null;
  created_at: string;
  plan: Plan | null;
  status: 'active' | 'canceled' | null;
  ends_at: string | null;
  token_count: number;
}

export type AccountsRepository = ReturnType<typeof createAccountsRepository>;
