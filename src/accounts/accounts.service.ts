import { OPERATOR } from '../audit/audit-actor.js';
import { changedFields, recordAudit, type AuditEntry } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import { inTransaction, type Db } from '../db/database.js';
import type { Plan, TeamRole } from '../db/schema.js';
import type { Ability } from '../auth/abilities.js';
import type { TeamsRepository } from '../teams/teams.repository.js';
import type { TokensService } from '../tokens/tokens.service.js';
import { createAccountsRepository } from './accounts.repository.js';
import type { UserRow } from './accounts.repository.js';
import { refused } from '../wire/api-error.js';
import { normalizeEmail } from '../wire/email.js';

/** An operator mistake (unknown user, duplicate email...): the CLI prints the message and exits 1. */
export const PLANS = ['solo', 'business', 'enterprise'] as const satisfies readonly Plan[];
export const ROLES = ['owner', 'admin', 'member', 'readonly'] as const satisfies readonly TeamRole[];

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** What `users:delete` removed with the user. */
export interface DeletedUser {
  user: { id: number; email: string };
  personal_team_id: number | null;
  projects_deleted: number;
  tokens_deleted: number;
  memberships_removed: number[];
}

/**
 * D20: accounts are managed by the operator command, through these functions. Each change runs in
 * one transaction with its audit event (E5), whose actor is `operator`.
 */
/** What the operator's account changes need of teams/ and tokens/ (given by src/operator-features.ts). */
export interface AccountsServiceDeps {
  db: Db;
  clock: Clock;
  teamsOn: (db: Db) => TeamsRepository;
  tokensOn: (db: Db) => Pick<TokensService, 'createToken' | 'revokeTokenAsOperator'>;
}

export function createAccountsService(deps: AccountsServiceDeps) {
  const { db, clock } = deps;
  const tokensService = deps.tokensOn(db);
  const now = () => clock.now().toISOString();
  const audit = (trx: Db, entry: AuditEntry) => recordAudit(trx, clock, OPERATOR, entry);

  async function requireUser(email: string, on: Db = db): Promise<UserRow> {
    const user = await createAccountsRepository(on).findUserByEmail(normalizeEmail(email));
    if (!user) throw refused(`No user with email ${email}.`);
    return user;
  }

  /** The team, locked for the rest of the transaction like the API's team writes (teams.repository `lock`). */
  async function requireLockedTeam(trx: Db, teamId: number): Promise<void> {
    if (!(await deps.teamsOn(trx).lock(teamId))) throw refused(`No team with id ${teamId}.`);
  }

  /** A team with `ownerId` as its owner, made their current team, and its `team.created` event (E5). */
  async function insertOwnedTeam(
    trx: Db,
    team: { name: string; personal_team: boolean },
    ownerId: number,
    details: AuditEntry['details'],
  ): Promise<number> {
    const teams = deps.teamsOn(trx);
    const teamId = await teams.insert({ name: team.name, created_at: now(), personal_team: team.personal_team });
    await teams.putMember({ team_id: teamId, user_id: ownerId, role: 'owner', created_at: now() });
    await teams.setCurrentTeam(ownerId, teamId);
    await audit(trx, { action: 'team.created', target: { type: 'team', id: teamId }, teamId, userId: ownerId, details });
    return teamId;
  }

  function requireEmail(input: string): string {
    const email = normalizeEmail(input);
    if (!EMAIL.test(email) || email.length > 255) throw refused(`"${input}" is not an email address.`);
    return email;
  }

  return {
    /** A user, their personal team (unless `withTeam` is false), a subscription and a first token. */
    async createUser(input: {
      email: string;
      name: string | null;
      plan: Plan | null;
      withTeam: boolean;
      abilities: Ability[];
      /** E7: a dashboard password, already hashed (sessions/password-hash.ts); none by default. */
      passwordHash?: string | null;
    }): Promise<{ user: { id: number; email: string }; team: { id: number } | null; token: string }> {
      const email = requireEmail(input.email);
      // One transaction: a user never exists without the team, subscription and token they were promised.
      return inTransaction(db, async (trx) => {
        const accounts = createAccountsRepository(trx);
        if (await accounts.findUserByEmail(email)) throw refused(`A user with email ${email} already exists.`);
        const user = await accounts.insertUser({ email, name: input.name, created_at: now(), password_hash: input.passwordHash ?? null });
        await audit(trx, {
          action: 'user.created',
          target: { type: 'user', id: user.id },
          teamId: null,
          userId: user.id,
          details: { email, name: input.name, plan: input.plan },
        });
        let teamId: number | null = null;
        if (input.withTeam) {
          const name = `${input.name ?? email}'s team`;
          teamId = await insertOwnedTeam(trx, { name, personal_team: true }, user.id, { name, personal_team: true });
        }
        if (input.plan) await accounts.putSubscription(user.id, input.plan, now());
        const { plainText } = await deps
          .tokensOn(trx)
          .createToken(user.id, { name: 'CLI token', abilities: input.abilities, expiresAt: null }, { enforceLimit: false });
        return { user: { id: user.id, email: user.email }, team: teamId === null ? null : { id: teamId }, token: plainText };
      });
    },

    async createToken(input: { email: string; name: string; abilities: Ability[]; expiresAt: Date | null }) {
      const user = await requireUser(input.email);
      const { token, plainText } = await tokensService.createToken(
        user.id,
        { name: input.name, abilities: input.abilities, expiresAt: input.expiresAt },
        { enforceLimit: false },
      );
      return { id: token.id, token: plainText };
    },

    /** Any user's token (`tokens:revoke`); its owner's email for the message. */
    async revokeToken(id: number): Promise<{ id: number; userId: number }> {
      const revoked = await tokensService.revokeTokenAsOperator(id);
      if (!revoked) throw refused(`No token with id ${id}.`);
      return { id, userId: revoked.userId };
    },

    /** `null` ends the subscription: the user keeps their data but loses the project API (D7). */
    async setPlan(email: string, plan: Plan | null): Promise<void> {
      await inTransaction(db, async (trx) => {
        const user = await requireUser(email, trx);
        const accounts = createAccountsRepository(trx);
        const [before] = await accounts.listUsersWithCounts(user.id);
        const old = before?.plan && before.status === 'active' ? before.plan : null;
        if (plan) await accounts.putSubscription(user.id, plan, now());
        else await accounts.cancelSubscription(user.id, now());
        if (old !== plan) {
          await audit(trx, {
            action: 'user.plan_changed',
            target: { type: 'user', id: user.id },
            teamId: null,
            userId: user.id,
            details: { plan: { old, new: plan } },
          });
        }
      });
    },

    /** `users:update`: a new name and/or email (stored trimmed and lower-cased, unique). */
    async updateUser(
      email: string,
      changes: { name?: string; newEmail?: string },
    ): Promise<{ id: number; email: string; name: string | null }> {
      if (changes.name === undefined && changes.newEmail === undefined) throw refused('Nothing to change: give --name and/or --new-email.');
      if (changes.name !== undefined && (changes.name.trim() === '' || changes.name.length > 255)) {
        throw refused('The name must be 1 to 255 characters.');
      }
      const newEmail = changes.newEmail === undefined ? undefined : requireEmail(changes.newEmail);
      return inTransaction(db, async (trx) => {
        const user = await requireUser(email, trx);
        if (newEmail !== undefined && newEmail !== user.email && (await createAccountsRepository(trx).findUserByEmail(newEmail))) {
          throw refused(`A user with email ${newEmail} already exists.`);
        }
        const after = { name: changes.name ?? user.name, email: newEmail ?? user.email };
        const details = changedFields({ name: user.name, email: user.email }, after);
        if (Object.keys(details).length > 0) {
          await deps.teamsOn(trx).updateUser(user.id, after);
          await audit(trx, { action: 'user.updated', target: { type: 'user', id: user.id }, teamId: null, userId: user.id, details });
        }
        return { id: user.id, ...after };
      });
    },

    /**
     * `users:delete`: the user, their tokens and memberships (cascades), and their personal team with
     * its projects and reports. Refused while they own any other team: it would be left without an
     * owner (D34; transfer it first: `teams:add-member --role owner`), even one with no other member,
     * whose projects the confirmation did not promise to delete.
     */
    async deleteUser(email: string): Promise<DeletedUser> {
      return inTransaction(db, async (trx) => {
        const user = await requireUser(email, trx);
        const teams = deps.teamsOn(trx);
        const personalTeamId = await teams.personalTeamOf(user.id);
        const owned = (await teams.teamsOwnedBy(user.id)).filter((team) => team.id !== personalTeamId);
        if (owned.length > 0) {
          const named = owned.map((team) => `${team.id} "${team.name}"`).join(', ');
          throw refused(
            `${user.email} owns the team${owned.length > 1 ? 's' : ''} ${named}: transfer ${owned.length > 1 ? 'them' : 'it'} first (scoreboard teams:add-member --team ID --email NEW_OWNER --role owner).`,
          );
        }
        const [overview] = await createAccountsRepository(trx).listUsersWithCounts(user.id);
        let projectsDeleted = 0;
        if (personalTeamId !== null) {
          await requireLockedTeam(trx, personalTeamId);
          const personal = await teams.findForMember(personalTeamId, user.id);
          projectsDeleted = personal?.project_count ?? 0;
          await teams.delete(personalTeamId);
          await teams.moveOffLostTeam(personalTeamId);
          await audit(trx, {
            action: 'team.deleted',
            target: { type: 'team', id: personalTeamId },
            teamId: personalTeamId,
            userId: user.id,
            details: { name: personal?.name ?? null, project_count: projectsDeleted, member_count: personal?.member_count ?? 0 },
          });
        }
        // Every other team they belonged to shows them removed, in its own audit list.
        const memberships = (await teams.listTeamsOfUser(user.id)).filter((team) => team.id !== personalTeamId);
        for (const team of memberships) {
          await requireLockedTeam(trx, team.id);
          await teams.removeMember(team.id, user.id);
          await teams.moveOffLostTeam(team.id);
          await audit(trx, {
            action: 'member.removed',
            target: { type: 'member', id: user.id },
            teamId: team.id,
            details: { email: user.email, role: team.role },
          });
        }
        await createAccountsRepository(trx).deleteUser(user.id);
        await audit(trx, {
          action: 'user.deleted',
          target: { type: 'user', id: user.id },
          teamId: null,
          userId: user.id,
          details: { email: user.email, name: user.name, token_count: overview?.token_count ?? 0, personal_team_id: personalTeamId },
        });
        return {
          user: { id: user.id, email: user.email },
          personal_team_id: personalTeamId,
          projects_deleted: projectsDeleted,
          tokens_deleted: overview?.token_count ?? 0,
          memberships_removed: memberships.map((team) => team.id),
        };
      });
    },

    async createTeam(ownerEmail: string, name: string): Promise<{ id: number }> {
      const id = await inTransaction(db, async (trx) => {
        const owner = await requireUser(ownerEmail, trx);
        return insertOwnedTeam(trx, { name, personal_team: false }, owner.id, { name, owner: owner.email });
      });
      return { id };
    },

    /**
     * Adds the user to the team with `role`, or changes their role. `owner` transfers the team (E4:
     * one owner; the previous owner stays on as admin); the owner's own role changes only that way,
     * and never on a personal team (D34).
     */
    async addMember(teamId: number, email: string, role: TeamRole): Promise<void> {
      await inTransaction(db, async (trx) => {
        const user = await requireUser(email, trx);
        await requireLockedTeam(trx, teamId);
        const teams = deps.teamsOn(trx);
        const members = await teams.listMembers(teamId);
        const current = members.find((member) => member.id === user.id);
        const owner = members.find((member) => member.role === 'owner');
        if (current?.role === role) return;
        if (current?.role === 'owner') {
          throw refused(`${user.email} is the owner of team ${teamId}: make another member owner first (--role owner).`);
        }
        if (role === 'owner' && (await teams.isPersonal(teamId)))
          throw refused(`Team ${teamId} is a personal team: it cannot be transferred.`);
        await teams.putMember({ team_id: teamId, user_id: user.id, role, created_at: now() });
        if (current) {
          await audit(trx, {
            action: 'member.role_changed',
            target: { type: 'member', id: user.id },
            teamId,
            details: { email: user.email, role: { old: current.role, new: role } },
          });
        } else {
          await audit(trx, {
            action: 'member.added',
            target: { type: 'member', id: user.id },
            teamId,
            details: { email: user.email, role },
          });
        }
        if (role === 'owner' && owner) {
          await teams.setRole(teamId, owner.id, 'admin');
          await audit(trx, {
            action: 'team.transferred',
            target: { type: 'team', id: teamId },
            teamId,
            details: { owner_id: { old: owner.id, new: user.id } },
          });
        }
      });
    },

    /** `teams:remove-member`: never the owner (E4: transfer the team first). */
    async removeMember(teamId: number, email: string): Promise<void> {
      await inTransaction(db, async (trx) => {
        const user = await requireUser(email, trx);
        await requireLockedTeam(trx, teamId);
        const teams = deps.teamsOn(trx);
        const member = await teams.findMember(teamId, user.id);
        if (!member) throw refused(`${user.email} is not a member of team ${teamId}.`);
        if (member.role === 'owner') {
          throw refused(`${user.email} is the owner of team ${teamId}: make another member owner first (teams:add-member --role owner).`);
        }
        await teams.removeMember(teamId, user.id);
        await teams.moveOffLostTeam(teamId);
        await audit(trx, {
          action: 'member.removed',
          target: { type: 'member', id: user.id },
          teamId,
          details: { email: user.email, role: member.role },
        });
      });
    },

    async switchTeam(email: string, teamId: number): Promise<void> {
      await inTransaction(db, async (trx) => {
        const user = await requireUser(email, trx);
        await requireLockedTeam(trx, teamId);
        if (!(await deps.teamsOn(trx).findRole(teamId, user.id))) {
          throw refused(`${user.email} is not a member of team ${teamId}.`);
        }
        const details = changedFields({ current_team_id: user.current_team_id }, { current_team_id: teamId });
        if (Object.keys(details).length === 0) return;
        await deps.teamsOn(trx).setCurrentTeam(user.id, teamId);
        await audit(trx, { action: 'user.updated', target: { type: 'user', id: user.id }, teamId: null, userId: user.id, details });
      });
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
