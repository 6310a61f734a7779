import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import { countAll, isPostgres } from '../db/dialect.js';
import type { Plan, TeamRole, UsersTable } from '../db/schema.js';

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

    async setCurrentTeam(userId: number, teamId: number): Promise<void> {
      await db.updateTable('users').set({ current_team_id: teamId }).where('id', '=', userId).execute();
    },

    /** `personal_team`: the team users:create makes with a user (E4). */
    async insertTeam(team: { name: string; created_at: string; personal_team?: boolean }): Promise<number> {
      const row = await db
        .insertInto('teams')
        .values({ name: team.name, created_at: team.created_at, personal_team: team.personal_team ? 1 : 0 })
        .returning('id')
        .executeTakeFirstOrThrow();
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

    /** Every team (or the one with `teamId`), by id, with its member and project counts. */
    async listTeamsWithCounts(teamId?: number): Promise<TeamOverviewRow[]> {
      const rows = await db
        .selectFrom('teams as t')
        .select(['t.id', 't.name', 't.projects_count as project_count', 't.created_at'])
        .select((eb) => eb.selectFrom('team_members as m').select(countAll.as('n')).whereRef('m.team_id', '=', 't.id').as('member_count'))
        .$if(teamId !== undefined, (query) => query.where('t.id', '=', teamId!))
        .orderBy('t.id')
        .execute();
      return rows.map((row) => ({ ...row, project_count: Number(row.project_count), member_count: Number(row.member_count ?? 0) }));
    },

    /** The owners of the given teams (all teams when omitted), longest-standing first in each team. */
    async listOwners(teamIds?: number[]): Promise<OwnerRow[]> {
      if (teamIds !== undefined && teamIds.length === 0) return [];
      return db
        .selectFrom('team_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select(['m.team_id', 'u.id', 'u.email'])
        .where('m.role', '=', 'owner')
        .$if(teamIds !== undefined, (query) => query.where('m.team_id', 'in', teamIds!))
        .orderBy('m.team_id')
        .orderBy('m.created_at')
        .orderBy('u.id')
        .execute();
    },

    /** The teams a user belongs to, by id, with their role in each. */
    async listTeamsOfUser(userId: number): Promise<Array<{ id: number; name: string; role: TeamRole }>> {
      return db
        .selectFrom('team_members as m')
        .innerJoin('teams as t', 't.id', 'm.team_id')
        .select(['t.id', 't.name', 'm.role'])
        .where('m.user_id', '=', userId)
        .orderBy('t.id')
        .execute();
    },

    /** E4's member shape, in the order they joined. */
    async listMembers(
      teamId: number,
    ): Promise<Array<{ id: number; name: string | null; email: string; role: TeamRole; joined_at: string }>> {
      return db
        .selectFrom('team_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select(['u.id', 'u.name', 'u.email', 'm.role', 'm.created_at as joined_at'])
        .where('m.team_id', '=', teamId)
        .orderBy('m.created_at')
        .orderBy('u.id')
        .execute();
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

export interface TeamOverviewRow {
  id: number;
  name: string;
  project_count: number;
  member_count: number;
  created_at: string;
}

export interface OwnerRow {
  team_id: number;
  id: number;
  email: string;
}

export type AccountsRepository = ReturnType<typeof createAccountsRepository>;
