import type { AuditActor } from '../audit/audit-actor.js';
import { changedFields, recordAudit } from '../audit/audit-log.js';
import type { Caller } from '../auth/caller.js';
import { recheckActor } from '../audit/audit-actor.js';
import type { WriteCredential } from '../auth/write-credential.js';
import type { Clock } from '../clock.js';
import { inTransaction, type Db } from '../db/database.js';
import { isRowId } from '../db/dialect.js';
import { notFound } from '../wire/api-error.js';
import { normalizeEmail } from '../wire/email.js';
import {
  alreadyMember,
  OWNER_ONLY,
  OWNER_OR_ADMIN,
  requireDeletable,
  requireMember,
  requireRemovalAllowed,
  requireRole,
  requireRoleChangeAllowed,
  requireTeamPlan,
  requireTransferable,
  requireTransferTarget,
} from './team-rules.js';
import type { InvitationView, TeamsRepository, TeamView } from './teams.repository.js';
import type { AssignableRole, Invitation, Profile } from './teams.schemas.js';
import { createTeamsRepository } from './teams.repository.js';

/** E4: invitations expire after seven days. */
export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

interface InTeam {
  trx: Db;
  teams: TeamsRepository;
  caller: Caller;
  actor: AuditActor;
  team: TeamView;
}

/** E11.3: told, in the invitation's transaction, that an address was invited (notifications/ emails it; features.ts wires it). */
export type MemberInvited = (trx: Db, invitation: { id: number; teamId: number; email: string }) => Promise<void>;

/**
 * E4: the caller's profile, their teams, members and invitations. Reads take the caller as
 * identified; every write runs in one transaction that checks the credential again (D22), locks
 * the team (teams.repository.ts `lock`), checks E4's rules again on what is stored then, makes the
 * change and writes its audit event (E5), so two changes to one team's members never interleave.
 */
export function createTeamsService(deps: { db: Db; clock: Clock; memberInvited?: MemberInvited }) {
  const { db, clock } = deps;
  const teams = createTeamsRepository(db);
  const now = () => clock.now().toISOString();
  const audit = (trx: Db, actor: AuditActor, entry: Parameters<typeof recordAudit>[3]) => recordAudit(trx, clock, actor, entry);

  /** The team as the caller sees it, or 404 (D4 step 7). */
  async function memberTeam(repository: TeamsRepository, teamId: number, userId: number): Promise<TeamView> {
    const team = await repository.findForMember(teamId, userId);
    if (!team) throw notFound();
    return team;
  }

  /** A write on one team, serialised with every other write on it (see the service's comment). */
  function inLockedTeam<T>(credential: WriteCredential, teamId: number, work: (context: InTeam) => Promise<T>): Promise<T> {
    return inTransaction(db, async (trx) => {
      const { caller, actor } = await recheckActor(credential, trx);
      const repository = createTeamsRepository(trx);
      if (!(await repository.lock(teamId))) throw notFound();
      const team = await memberTeam(repository, teamId, caller.userId);
      return work({ trx, teams: repository, caller, actor, team });
    });
  }

  async function profileOf(repository: TeamsRepository, userId: number): Promise<Profile> {
    const user = await repository.findUser(userId);
    if (!user) throw notFound();
    return user;
  }

  /** E5: `user.updated` for the caller's change to their own profile, when it changed a field. */
  async function auditProfileChange(trx: Db, actor: AuditActor, userId: number, before: Profile, after: Partial<Profile>) {
    const details = changedFields(before, after);
    if (Object.keys(details).length === 0) return;
    await audit(trx, actor, { action: 'user.updated', target: { type: 'user', id: userId }, teamId: null, userId, details });
  }

  /** A pending invitation addressed to `email`, or 404: expired ones and other people's do not exist for the caller. */
  function requireOwnInvitation(invitation: InvitationView | undefined, email: string): InvitationView {
    if (!invitation || invitation.email !== normalizeEmail(email) || invitation.expires_at <= now()) throw notFound();
    return invitation;
  }

  return {
    // --- the caller's profile -------------------------------------------------------------

    async profile(caller: Caller): Promise<Profile> {
      return profileOf(teams, caller.userId);
    },

    async updateProfile(credential: WriteCredential, name: string): Promise<Profile> {
      return inTransaction(db, async (trx) => {
        const { caller, actor } = await recheckActor(credential, trx);
        const repository = createTeamsRepository(trx);
        const before = await profileOf(repository, caller.userId);
        await repository.updateUser(caller.userId, { name });
        await auditProfileChange(trx, actor, caller.userId, before, { name });
        return { ...before, name };
      });
    },

    /** E4: only a team the caller belongs to (404 otherwise: the body names something they cannot see). */
    async switchCurrentTeam(credential: WriteCredential, teamId: number): Promise<Profile> {
      return inTransaction(db, async (trx) => {
        const { caller, actor } = await recheckActor(credential, trx);
        const repository = createTeamsRepository(trx);
        // Locked like a removal locks it: a removal committing meanwhile cannot leave the caller in a team they left.
        if (!isRowId(teamId) || !(await repository.lock(teamId))) throw notFound();
        await memberTeam(repository, teamId, caller.userId);
        const before = await profileOf(repository, caller.userId);
        await repository.setCurrentTeam(caller.userId, teamId);
        await auditProfileChange(trx, actor, caller.userId, before, { current_team_id: teamId });
        return { ...before, current_team_id: teamId };
      });
    },

    // --- teams ----------------------------------------------------------------------------

    async listTeams(caller: Caller): Promise<TeamView[]> {
      return teams.listForUser(caller.userId);
    },

    /** For the routes' preValidation: the team and E4's role rule for what the route does, before the body (D4). */
    async resolveTeam(caller: Caller, teamId: number, allowed?: readonly ('owner' | 'admin' | 'member' | 'readonly')[]): Promise<TeamView> {
      const team = await memberTeam(teams, teamId, caller.userId);
      if (allowed) requireRole(team, allowed);
      return team;
    },

    async showTeam(team: TeamView) {
      return { data: team, members: await teams.listMembers(team.id) };
    },

    /** D4 step 8, before the body: E4's plan rule. */
    requireTeamPlan(caller: Caller): void {
      requireTeamPlan(caller.activePlan);
    },

    /** E4: the caller becomes its owner and it becomes their current team. */
    async createTeam(credential: WriteCredential, name: string): Promise<TeamView> {
      return inTransaction(db, async (trx) => {
        const { caller, actor } = await recheckActor(credential, trx);
        requireTeamPlan(caller.activePlan);
        const repository = createTeamsRepository(trx);
        const at = now();
        const teamId = await repository.insert({ name, personal_team: false, created_at: at });
        await repository.addMember({ team_id: teamId, user_id: caller.userId, role: 'owner', created_at: at });
        await repository.setCurrentTeam(caller.userId, teamId);
        await audit(trx, actor, { action: 'team.created', target: { type: 'team', id: teamId }, teamId, details: { name } });
        return memberTeam(repository, teamId, caller.userId);
      });
    },

    async renameTeam(credential: WriteCredential, teamId: number, name: string): Promise<TeamView> {
      return inLockedTeam(credential, teamId, async ({ trx, teams: repository, actor, team }) => {
        requireRole(team, OWNER_OR_ADMIN);
        await repository.rename(teamId, name);
        const details = changedFields({ name: team.name }, { name });
        if (Object.keys(details).length > 0)
          await audit(trx, actor, { action: 'team.updated', target: { type: 'team', id: teamId }, teamId, details });
        return { ...team, name };
      });
    },

    /** E4: its projects and their reports go with it; members who had it as current team fall back. */
    async deleteTeam(credential: WriteCredential, teamId: number): Promise<void> {
      await inLockedTeam(credential, teamId, async ({ trx, teams: repository, actor, team }) => {
        requireRole(team, OWNER_ONLY);
        requireDeletable(team);
        await repository.delete(teamId);
        await repository.moveOffLostTeam(teamId);
        await audit(trx, actor, {
          action: 'team.deleted',
          target: { type: 'team', id: teamId },
          teamId,
          details: { name: team.name, project_count: team.project_count, member_count: team.member_count },
        });
      });
    },

    /** E4: to another member, who becomes owner; the previous owner stays on as admin. Never a personal team (D34). */
    async transferTeam(credential: WriteCredential, teamId: number, newOwnerId: number): Promise<TeamView> {
      return inLockedTeam(credential, teamId, async ({ trx, teams: repository, caller, actor, team }) => {
        requireRole(team, OWNER_ONLY);
        requireTransferable(team);
        const target = requireTransferTarget(
          caller.userId,
          isRowId(newOwnerId) ? await repository.findMember(teamId, newOwnerId) : undefined,
        );
        await repository.setRole(teamId, target.id, 'owner');
        await repository.setRole(teamId, caller.userId, 'admin');
        await audit(trx, actor, {
          action: 'team.transferred',
          target: { type: 'team', id: teamId },
          teamId,
          details: { owner_id: { old: caller.userId, new: target.id } },
        });
        return memberTeam(repository, teamId, caller.userId);
      });
    },

    // --- members --------------------------------------------------------------------------

    /** For preValidation: 404 for a member not in the team, then E4's 403s (D4 steps 7, 8). */
    async checkRoleChange(caller: Caller, team: TeamView, userId: number): Promise<void> {
      requireRoleChangeAllowed(team, caller.userId, requireMember(await teams.findMember(team.id, userId)));
    },

    async changeRole(credential: WriteCredential, teamId: number, userId: number, role: AssignableRole) {
      return inLockedTeam(credential, teamId, async ({ trx, teams: repository, caller, actor, team }) => {
        const member = requireMember(await repository.findMember(teamId, userId));
        requireRoleChangeAllowed(team, caller.userId, member);
        if (member.role !== role) {
          await repository.setRole(teamId, userId, role);
          await audit(trx, actor, {
            action: 'member.role_changed',
            target: { type: 'member', id: userId },
            teamId,
            details: { email: member.email, role: { old: member.role, new: role } },
          });
        }
        return { ...member, role };
      });
    },

    async checkRemoval(caller: Caller, team: TeamView, userId: number): Promise<void> {
      requireRemovalAllowed(team, caller.userId, requireMember(await teams.findMember(team.id, userId)));
    },

    /** Returns whether the caller left (rather than removed someone). */
    async removeMember(credential: WriteCredential, teamId: number, userId: number): Promise<{ left: boolean }> {
      return inLockedTeam(credential, teamId, async ({ trx, teams: repository, caller, actor, team }) => {
        // Removing someone else took `admin`: the credential's recheck asked for it (route's abilityFor).
        const left = userId === caller.userId;
        const member = requireMember(await repository.findMember(teamId, userId));
        requireRemovalAllowed(team, caller.userId, member);
        await repository.removeMember(teamId, userId);
        await repository.moveOffLostTeam(teamId);
        await audit(trx, actor, {
          action: left ? 'member.left' : 'member.removed',
          target: { type: 'member', id: userId },
          teamId,
          details: { email: member.email, role: member.role },
        });
        return { left };
      });
    },

    // --- invitations ----------------------------------------------------------------------

    /** E4: inviting again replaces a pending invitation; inviting a member is a 422. */
    async invite(credential: WriteCredential, teamId: number, input: { email: string; role: AssignableRole }): Promise<Invitation> {
      return inLockedTeam(credential, teamId, async ({ trx, teams: repository, caller, actor, team }) => {
        requireRole(team, OWNER_OR_ADMIN);
        const email = normalizeEmail(input.email);
        if (await repository.isMemberByEmail(teamId, email)) throw alreadyMember();
        const createdAt = clock.now();
        const id = await repository.replaceInvitation({
          team_id: teamId,
          email,
          role: input.role,
          invited_by: caller.userId,
          created_at: createdAt.toISOString(),
          expires_at: new Date(createdAt.getTime() + INVITATION_LIFETIME_MS).toISOString(),
        });
        await audit(trx, actor, {
          action: 'member.invited',
          target: { type: 'invitation', id },
          teamId,
          details: { email, role: input.role },
        });
        await deps.memberInvited?.(trx, { id, teamId, email });
        return toInvitation((await repository.findInvitation(id))!);
      });
    },

    async listTeamInvitations(team: TeamView): Promise<Invitation[]> {
      return (await teams.listPendingForTeam(team.id, now())).map(toInvitation);
    },

    /** For preValidation: the invitation must be one of the team's pending ones (404). */
    async checkTeamInvitation(team: TeamView, invitationId: number): Promise<void> {
      const invitation = await teams.findInvitation(invitationId);
      if (!invitation || invitation.team_id !== team.id || invitation.expires_at <= now()) throw notFound();
    },

    async cancelInvitation(credential: WriteCredential, teamId: number, invitationId: number): Promise<void> {
      await inLockedTeam(credential, teamId, async ({ trx, teams: repository, actor, team }) => {
        const invitation = await repository.findInvitation(invitationId);
        if (!invitation || invitation.team_id !== teamId || invitation.expires_at <= now()) throw notFound();
        requireRole(team, OWNER_OR_ADMIN);
        if (!(await repository.deleteInvitation(invitationId))) throw notFound();
        await audit(trx, actor, {
          action: 'invitation.cancelled',
          target: { type: 'invitation', id: invitationId },
          teamId,
          details: { email: invitation.email, role: invitation.role },
        });
      });
    },

    async listMyInvitations(caller: Caller): Promise<Invitation[]> {
      return (await teams.listPendingForEmail(normalizeEmail(caller.email), now())).map(toInvitation);
    },

    /**
     * E4: joins with the invited role. The team is locked before the invitation is claimed, so an
     * acceptance and the team's deletion, or two acceptances, run one after the other: the second
     * finds the invitation gone (404).
     */
    async acceptInvitation(credential: WriteCredential, invitationId: number): Promise<TeamView> {
      return inTransaction(db, async (trx) => {
        const { caller, actor } = await recheckActor(credential, trx);
        const repository = createTeamsRepository(trx);
        const invitation = requireOwnInvitation(await repository.findInvitation(invitationId), caller.email);
        if (!(await repository.lock(invitation.team_id)) || !(await repository.deleteInvitation(invitationId))) throw notFound();
        // Already a member (the operator added them meanwhile): their role stays as it is.
        if (!(await repository.findMember(invitation.team_id, caller.userId))) {
          await repository.addMember({ team_id: invitation.team_id, user_id: caller.userId, role: invitation.role, created_at: now() });
          await audit(trx, actor, {
            action: 'member.joined',
            target: { type: 'member', id: caller.userId },
            teamId: invitation.team_id,
            details: { role: invitation.role, invitation_id: invitation.id },
          });
        }
        if (caller.currentTeamId === null) await repository.setCurrentTeam(caller.userId, invitation.team_id);
        return memberTeam(repository, invitation.team_id, caller.userId);
      });
    },

    async declineInvitation(credential: WriteCredential, invitationId: number): Promise<void> {
      await inTransaction(db, async (trx) => {
        const { caller, actor } = await recheckActor(credential, trx);
        const repository = createTeamsRepository(trx);
        const invitation = requireOwnInvitation(await repository.findInvitation(invitationId), caller.email);
        if (!(await repository.deleteInvitation(invitationId))) throw notFound();
        await audit(trx, actor, {
          action: 'invitation.declined',
          target: { type: 'invitation', id: invitationId },
          teamId: invitation.team_id,
          details: { email: invitation.email, role: invitation.role },
        });
      });
    },
  };
}

export type TeamsService = ReturnType<typeof createTeamsService>;

function toInvitation(row: InvitationView): Invitation {
  return {
    id: row.id,
    team: { id: row.team_id, name: row.team_name },
    email: row.email,
    role: row.role,
    invited_by: row.invited_by === null ? null : { id: row.invited_by, name: row.inviter_name },
    created_at: row.created_at,
    expires_at: row.expires_at,
  };
}
