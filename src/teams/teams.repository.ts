import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import { countAll, isPostgres } from '../db/dialect.js';
import type { TeamInvitationsTable, TeamRole } from '../db/schema.js';

/** A team as one member sees it (E4's shape, before serialisation): `role` is that member's. */
export interface TeamView {
  id: number;
  name: string;
  personal_team: boolean;
  owner_id: number | null;
  role: TeamRole;
  member_count: number;
  project_count: number;
  created_at: string;
}

export interface MemberRow {
  id: number;
  name: string | null;
  email: string;
  role: TeamRole;
  joined_at: string;
}

export type InvitationRow = Selectable<TeamInvitationsTable>;

export interface InvitationView extends InvitationRow {
  team_name: string;
  inviter_name: string | null;
}

/** Teams, their members and their invitations (E4). */
export function createTeamsRepository(db: Db) {
  /** The teams of `userId` with E4's counts; one query whatever their number. */
  const teamsOf = (userId: number) =>
    db
      .selectFrom('team_members as me')
      .innerJoin('teams as t', 't.id', 'me.team_id')
      .select(['t.id', 't.name', 't.personal_team', 'me.role', 't.projects_count as project_count', 't.created_at'])
      .select((eb) => [
        eb.selectFrom('team_members as m').select(countAll.as('n')).whereRef('m.team_id', '=', 't.id').as('member_count'),
        // A team has one owner (E4: the role moves only by transfer); the longest-standing one if ever several.
        eb
          .selectFrom('team_members as o')
          .select('o.user_id')
          .whereRef('o.team_id', '=', 't.id')
          .where('o.role', '=', 'owner')
          .orderBy('o.created_at')
          .orderBy('o.user_id')
          .limit(1)
          .as('owner_id'),
      ])
      .where('me.user_id', '=', userId);

  const toView = (row: {
    id: number;
    name: string;
    personal_team: number | boolean;
    role: TeamRole;
    project_count: number | string;
    member_count: number | string | null;
    owner_id: number | null;
    created_at: string;
  }): TeamView => ({
    id: row.id,
    name: row.name,
    personal_team: Boolean(row.personal_team),
    owner_id: row.owner_id ?? null,
    role: row.role,
    member_count: Number(row.member_count ?? 0),
    project_count: Number(row.project_count),
    created_at: row.created_at,
  });

  const invitations = () =>
    db
      .selectFrom('team_invitations as i')
      .innerJoin('teams as t', 't.id', 'i.team_id')
      .leftJoin('users as u', 'u.id', 'i.invited_by')
      .selectAll('i')
      .select(['t.name as team_name', 'u.name as inviter_name']);

  return {
    /** E4's profile shape. */
    async findUser(
      userId: number,
    ): Promise<{ id: number; name: string | null; email: string; current_team_id: number | null; created_at: string } | undefined> {
      return db
        .selectFrom('users')
        .select(['id', 'name', 'email', 'current_team_id', 'created_at'])
        .where('id', '=', userId)
        .executeTakeFirst();
    },

    async updateUser(userId: number, changes: { name?: string | null; email?: string }): Promise<void> {
      await db.updateTable('users').set(changes).where('id', '=', userId).execute();
    },

    async listForUser(userId: number): Promise<TeamView[]> {
      return (await teamsOf(userId).orderBy('t.id').execute()).map(toView);
    },

    /** The team as `userId` sees it, or undefined when they are not a member (E4: 404). */
    async findForMember(teamId: number, userId: number): Promise<TeamView | undefined> {
      const row = await teamsOf(userId).where('t.id', '=', teamId).executeTakeFirst();
      return row && toView(row);
    },

    /**
     * Serialises every change to one team's membership for the rest of the transaction: on
     * PostgreSQL the team row is locked (SQLite's write transactions are serial already). Two admins
     * removing each other, or an acceptance racing the team's deletion, run one after the other, and
     * the second sees what the first committed. False when the team no longer exists.
     */
    async lock(teamId: number): Promise<boolean> {
      const row = await db
        .selectFrom('teams')
        .select('id')
        .where('id', '=', teamId)
        .$if(isPostgres(db), (query) => query.forUpdate())
        .executeTakeFirst();
      return row !== undefined;
    },

    async insert(team: { name: string; personal_team: boolean; created_at: string }): Promise<number> {
      const row = await db
        .insertInto('teams')
        .values({ name: team.name, personal_team: team.personal_team ? 1 : 0, created_at: team.created_at })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async rename(teamId: number, name: string): Promise<void> {
      await db.updateTable('teams').set({ name }).where('id', '=', teamId).execute();
    },

    /** Deletes the team; its projects, their reports and failed runs, its members and invitations go with it (cascades). */
    async delete(teamId: number): Promise<void> {
      await db.deleteFrom('teams').where('id', '=', teamId).execute();
    },

    async findMember(teamId: number, userId: number): Promise<MemberRow | undefined> {
      return db
        .selectFrom('team_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select(['u.id', 'u.name', 'u.email', 'm.role', 'm.created_at as joined_at'])
        .where('m.team_id', '=', teamId)
        .where('m.user_id', '=', userId)
        .executeTakeFirst();
    },

    /** E4's member list, in the order they joined. */
    async listMembers(teamId: number): Promise<MemberRow[]> {
      return db
        .selectFrom('team_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select(['u.id', 'u.name', 'u.email', 'm.role', 'm.created_at as joined_at'])
        .where('m.team_id', '=', teamId)
        .orderBy('m.created_at')
        .orderBy('u.id')
        .execute();
    },

    async isMemberByEmail(teamId: number, email: string): Promise<boolean> {
      const row = await db
        .selectFrom('team_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select('u.id')
        .where('m.team_id', '=', teamId)
        .where('u.email', '=', email)
        .executeTakeFirst();
      return row !== undefined;
    },

    async addMember(member: { team_id: number; user_id: number; role: TeamRole; created_at: string }): Promise<void> {
      await db.insertInto('team_members').values(member).execute();
    },

    async setRole(teamId: number, userId: number, role: TeamRole): Promise<void> {
      await db.updateTable('team_members').set({ role }).where('team_id', '=', teamId).where('user_id', '=', userId).execute();
    },

    async removeMember(teamId: number, userId: number): Promise<boolean> {
      const result = await db.deleteFrom('team_members').where('team_id', '=', teamId).where('user_id', '=', userId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** The teams `userId` owns, by id. */
    async teamsOwnedBy(userId: number): Promise<Array<{ id: number; name: string }>> {
      return db
        .selectFrom('team_members as m')
        .innerJoin('teams as t', 't.id', 'm.team_id')
        .select(['t.id', 't.name'])
        .where('m.user_id', '=', userId)
        .where('m.role', '=', 'owner')
        .orderBy('t.id')
        .execute();
    },

    /**
     * The user's own personal team, or null: a personal team they own and no other member joined
     * before them. That leaves out one an earlier release let be handed to them (D34), whose user
     * joined first; should there still be several, the first.
     */
    async personalTeamOf(userId: number): Promise<number | null> {
      const row = await db
        .selectFrom('team_members as m')
        .innerJoin('teams as t', 't.id', 'm.team_id')
        .select('t.id')
        .where('m.user_id', '=', userId)
        .where('m.role', '=', 'owner')
        .where('t.personal_team', '=', 1)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('team_members as e')
                .select('e.user_id')
                .whereRef('e.team_id', '=', 't.id')
                .where('e.created_at', '<', (eb) => eb.ref('m.created_at')),
            ),
          ),
        )
        .orderBy('t.id')
        .limit(1)
        .executeTakeFirst();
      return row?.id ?? null;
    },

    /** Whether the team is a personal one (E4), false when there is no such team. */
    async isPersonal(teamId: number): Promise<boolean> {
      const row = await db.selectFrom('teams').select('personal_team').where('id', '=', teamId).executeTakeFirst();
      return Boolean(row?.personal_team);
    },

    /**
     * E4: users whose current team is `lostTeamId` and who are no longer its members (removed, left,
     * or the team deleted) get their personal team as current team, or none. One statement.
     */
    async moveOffLostTeam(lostTeamId: number): Promise<void> {
      await db
        .updateTable('users')
        .set({
          current_team_id: sql<number | null>`(
            select t.id from team_members m join teams t on t.id = m.team_id
            where m.user_id = users.id and m.role = 'owner' and t.personal_team = 1 and t.id <> ${lostTeamId}
            order by t.id limit 1
          )`,
        })
        .where('current_team_id', '=', lostTeamId)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('team_members as k')
                .select('k.user_id')
                .whereRef('k.user_id', '=', 'users.id')
                .where('k.team_id', '=', lostTeamId),
            ),
          ),
        )
        .execute();
    },

    async setCurrentTeam(userId: number, teamId: number | null): Promise<void> {
      await db.updateTable('users').set({ current_team_id: teamId }).where('id', '=', userId).execute();
    },

    // Invitations (E4): pending ones only are stored; `now` tells which have expired.

    /** Replaces any invitation of this email to this team (E4) with a new one; returns its id. */
    async replaceInvitation(invitation: Omit<InvitationRow, 'id'>): Promise<number> {
      await db.deleteFrom('team_invitations').where('team_id', '=', invitation.team_id).where('email', '=', invitation.email).execute();
      const row = await db.insertInto('team_invitations').values(invitation).returning('id').executeTakeFirstOrThrow();
      return row.id;
    },

    async findInvitation(id: number): Promise<InvitationView | undefined> {
      return invitations().where('i.id', '=', id).executeTakeFirst();
    },

    async listPendingForTeam(teamId: number, now: string): Promise<InvitationView[]> {
      return invitations().where('i.team_id', '=', teamId).where('i.expires_at', '>', now).orderBy('i.id', 'desc').execute();
    },

    async listPendingForEmail(email: string, now: string): Promise<InvitationView[]> {
      return invitations().where('i.email', '=', email).where('i.expires_at', '>', now).orderBy('i.id', 'desc').execute();
    },

    /**
     * Deletes the invitation and says whether this call did: of two transactions accepting (or
     * declining, or cancelling) the same invitation at once, exactly one gets true.
     */
    async deleteInvitation(id: number): Promise<boolean> {
      const result = await db.deleteFrom('team_invitations').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    // Since issue 28 the operator command's team reads and writes are here too (accounts/ uses them).

    async teamExists(teamId: number): Promise<boolean> {
      return (await db.selectFrom('teams').select('id').where('id', '=', teamId).executeTakeFirst()) !== undefined;
    },
    /**
     * The user's role in the team, if a member. `forShare` (D22, inside a write's transaction): on
     * PostgreSQL the membership is share-locked, so a removal or role change either commits before
     * this read or waits for the write.
     */
    async findRole(teamId: number, userId: number, { forShare = false } = {}): Promise<TeamRole | undefined> {
      const row = await db
        .selectFrom('team_members')
        .select('role')
        .where('team_id', '=', teamId)
        .where('user_id', '=', userId)
        .$if(forShare && isPostgres(db), (query) => query.forShare())
        .executeTakeFirst();
      return row?.role;
    },
    /**
     * Adds the member, or changes the role of an existing one, in one statement: an update-else-insert
     * lets two concurrent calls both insert (D26).
     */
    async putMember(membership: { team_id: number; user_id: number; role: TeamRole; created_at: string }): Promise<void> {
      await db
        .insertInto('team_members')
        .values(membership)
        .onConflict((conflict) => conflict.columns(['team_id', 'user_id']).doUpdateSet({ role: membership.role }))
        .execute();
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
  };
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

export type TeamsRepository = ReturnType<typeof createTeamsRepository>;
