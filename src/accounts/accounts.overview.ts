import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import type { Plan, TeamRole } from '../db/schema.js';
import type { TeamsRepository } from '../teams/teams.repository.js';
import type { TokensService } from '../tokens/tokens.service.js';
import type { TokenMetadata } from '../tokens/tokens.schemas.js';
import type { OwnerRow, TeamOverviewRow } from '../teams/teams.repository.js';
import { createAccountsRepository, type UserOverviewRow } from './accounts.repository.js';
import { refused } from '../wire/api-error.js';
import { normalizeEmail } from '../wire/email.js';

export interface UserOverview {
  id: number;
  email: string;
  name: string | null;
  /** The plan in force now (D7), null without an active subscription. */
  plan: Plan | null;
  current_team_id: number | null;
  token_count: number;
  created_at: string;
}

export interface UserDetail extends UserOverview {
  teams: Array<{ id: number; name: string; role: TeamRole }>;
}

export interface TeamOverview {
  id: number;
  name: string;
  owner_id: number | null;
  owner_email: string | null;
  member_count: number;
  project_count: number;
  created_at: string;
}

/** E4's member shape. */
export interface TeamMember {
  id: number;
  name: string | null;
  email: string;
  role: TeamRole;
  joined_at: string;
}

/** What the operator's read commands show (D20); reads only. */
export function createAccountsOverview(deps: {
  db: Db;
  clock: Clock;
  teamsOn: (db: Db) => Pick<TeamsRepository, 'listOwners' | 'listTeamsOfUser' | 'listTeamsWithCounts' | 'listMembers'>;
  tokensOn: (db: Db) => Pick<TokensService, 'listTokens'>;
}) {
  const { db, clock } = deps;
  const accounts = createAccountsRepository(db);
  const teamStore = deps.teamsOn(db);

  async function requireUser(email: string): Promise<UserOverviewRow> {
    const found = await accounts.findUserByEmail(normalizeEmail(email));
    const row = found && (await accounts.listUsersWithCounts(found.id))[0];
    if (!row) throw refused(`No user with email ${email}.`);
    return row;
  }

  const toUser = (row: UserOverviewRow): UserOverview => ({
    id: row.id,
    email: row.email,
    name: row.name,
    plan: activePlan(row, clock.now()),
    current_team_id: row.current_team_id,
    token_count: row.token_count,
    created_at: row.created_at,
  });

  async function withOwners(teams: TeamOverviewRow[], teamIds?: number[]): Promise<TeamOverview[]> {
    const owners = firstOwnerByTeam(await teamStore.listOwners(teamIds));
    return teams.map((team) => {
      const owner = owners.get(team.id) ?? null;
      return {
        id: team.id,
        name: team.name,
        owner_id: owner?.id ?? null,
        owner_email: owner?.email ?? null,
        member_count: team.member_count,
        project_count: team.project_count,
        created_at: team.created_at,
      };
    });
  }

  return {
    async listUsers(): Promise<UserOverview[]> {
      return (await accounts.listUsersWithCounts()).map(toUser);
    },

    async showUser(email: string): Promise<UserDetail> {
      const user = await requireUser(email);
      const teams = await teamStore.listTeamsOfUser(user.id);
      return { ...toUser(user), teams: teams.map((team) => ({ id: team.id, name: team.name, role: team.role })) };
    },

    async listTeams(): Promise<TeamOverview[]> {
      return withOwners(await teamStore.listTeamsWithCounts());
    },

    async showTeam(teamId: number): Promise<{ team: TeamOverview; members: TeamMember[] }> {
      const [team] = await withOwners(await teamStore.listTeamsWithCounts(teamId), [teamId]);
      if (!team) throw refused(`No team with id ${teamId}.`);
      return { team, members: await teamStore.listMembers(teamId) };
    },

    /** The API's token metadata (D9): the hash is never selected. */
    async listTokens(email: string): Promise<TokenMetadata[]> {
      const user = await requireUser(email);
      return deps.tokensOn(db).listTokens(user.id);
    },
  };
}

export type AccountsOverview = ReturnType<typeof createAccountsOverview>;

/** D7: a subscription is in force while active and before its end date, if any. */
function activePlan(row: Pick<UserOverviewRow, 'plan' | 'status' | 'ends_at'>, now: Date): Plan | null {
  if (row.plan === null || row.status !== 'active') return null;
  return row.ends_at === null || Date.parse(row.ends_at) > now.getTime() ? row.plan : null;
}

/** A team may have several owners (teams:add-member --role owner): its owner is the first of them. */
function firstOwnerByTeam(owners: OwnerRow[]): Map<number, OwnerRow> {
  const byTeam = new Map<number, OwnerRow>();
  for (const owner of owners) if (!byTeam.has(owner.team_id)) byTeam.set(owner.team_id, owner);
  return byTeam;
}
