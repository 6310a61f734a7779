import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
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

    /** Adds the member, or changes the role of an existing one. */
    async putMembership(membership: { team_id: number; user_id: number; role: TeamRole; created_at: string }): Promise<void> {
      const updated = await db
        .updateTable('team_members')
        .set({ role: membership.role })
        .where('team_id', '=', membership.team_id)
        .where('user_id', '=', membership.user_id)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) await db.insertInto('team_members').values(membership).execute();
    },

    /** One subscription row per user, changed in place. */
    async putSubscription(userId: number, plan: Plan, at: string): Promise<void> {
      const updated = await db
        .updateTable('subscriptions')
        .set({ plan, status: 'active', ends_at: null, updated_at: at })
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) {
        await db
          .insertInto('subscriptions')
          .values({ user_id: userId, plan, status: 'active', ends_at: null, created_at: at, updated_at: at })
          .execute();
      }
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
