import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import { isPostgres } from '../db/dialect.js';
import type { Plan, TeamRole, UsersTable } from '../db/schema.js';

export type UserRow = Selectable<UsersTable>;

/** Users, teams, memberships and subscriptions (D15, D7, D20). */
export function createAccountsRepository(db: Db) {
  return {
    async findUserByEmail(email: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    },

    async insertUser(user: { email: string; name: string | null; created_at: string }): Promise<UserRow> {
      return db
        .insertInto('users')
        .values({ ...user, current_team_id: null })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    async setCurrentTeam(userId: number, teamId: number): Promise<void> {
      await db.updateTable('users').set({ current_team_id: teamId }).where('id', '=', userId).execute();
    },

    async insertTeam(team: { name: string; created_at: string }): Promise<number> {
      const row = await db.insertInto('teams').values(team).returning('id').executeTakeFirstOrThrow();
      return row.id;
    },

    async teamExists(teamId: number): Promise<boolean> {
      return (await db.selectFrom('teams').select('id').where('id', '=', teamId).executeTakeFirst()) !== undefined;
    },

    async findRole(teamId: number, userId: number): Promise<TeamRole | undefined> {
      const row = await db
        .selectFrom('team_members')
        .select('role')
        .where('team_id', '=', teamId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row?.role;
    },

    /**
     * D22: `findRole` inside a write's transaction; on PostgreSQL the membership is share-locked, so
     * a removal or role change either commits before this read or waits for the write.
     */
    async findRoleInTransaction(teamId: number, userId: number): Promise<TeamRole | undefined> {
      const row = await db
        .selectFrom('team_members')
        .select('role')
        .where('team_id', '=', teamId)
        .where('user_id', '=', userId)
        .$if(isPostgres(db), (query) => query.forShare())
        .executeTakeFirst();
      return row?.role;
    },

    /**
     * Adds the member, or changes the role of an existing one, in one statement: an update-else-insert
     * lets two concurrent calls both insert (D26).
     */
    async putMembership(membership: { team_id: number; user_id: number; role: TeamRole; created_at: string }): Promise<void> {
      await db
        .insertInto('team_members')
        .values(membership)
        .onConflict((conflict) => conflict.columns(['team_id', 'user_id']).doUpdateSet({ role: membership.role }))
        .execute();
    },

    /** One subscription row per user, changed in place (one statement, like `putMembership`). */
    async putSubscription(userId: number, plan: Plan, at: string): Promise<void> {
      await db
        .insertInto('subscriptions')
        .values({ user_id: userId, plan, status: 'active', ends_at: null, created_at: at, updated_at: at })
        .onConflict((conflict) =>
          conflict.column('user_id').doUpdateSet({ plan, status: 'active', ends_at: null, updated_at: at }),
        )
        .execute();
    },

    async cancelSubscription(userId: number, at: string): Promise<void> {
      await db
        .updateTable('subscriptions')
        .set({ status: 'canceled', ends_at: at, updated_at: at })
        .where('user_id', '=', userId)
        .execute();
    },
  };
}

export type AccountsRepository = ReturnType<typeof createAccountsRepository>;
