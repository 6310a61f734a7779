import type { FastifyRequest } from 'fastify';
import { credentialOf } from '../auth/write-credential.js';
import type { Config } from '../config.js';
import type { App } from '../http/app-types.js';
import { SUBSCRIBED } from '../http/route-kind.js';
import { callerOf } from '../auth/caller.js';
import { MessageResponse } from '../wire/schemas.js';
import { OWNER_ONLY, OWNER_OR_ADMIN, pathId, requireDeletable, requireRole, requireTransferable } from './team-rules.js';
import type { TeamView } from './teams.repository.js';
import {
  CreateTeamResponse,
  CurrentTeamBody,
  InvitationListResponse,
  InvitationParams,
  InvitationResponse,
  InviteBody,
  MemberParams,
  MemberResponse,
  MemberRoleBody,
  ProfileResponse,
  TeamBody,
  TeamInvitationParams,
  TeamListResponse,
  TeamParams,
  TeamResponse,
  TeamWithMembersResponse,
  TransferBody,
  UpdateProfileBody,
} from './teams.schemas.js';
import type { TeamsService } from './teams.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The `{team}` of the URL as the caller sees it, resolved before the body is validated (D4 step 7). */
    team: TeamView | null;
  }
}

const MESSAGES = {
  teamCreated: 'Team created successfully.',
  teamDeleted: 'Team deleted successfully.',
  invited: 'Invitation created successfully.',
  invitationCancelled: 'Invitation cancelled successfully.',
  invitationDeclined: 'Invitation declined successfully.',
  memberRemoved: 'Member removed successfully.',
  left: 'You have left the team.',
};

// E4 / D7: /teams* needs an active subscription; /user* and /invitations* do not, so a lapsed user
// can still see who they are and accept an invitation.
const { read: teamRead, write: teamWrite, admin: teamAdmin } = SUBSCRIBED;

const ROLE_403 = 'the caller is a member without the role this needs (the message names it)';

export async function teamsRoutes(app: App, { teamsService: teams }: { teamsService: TeamsService; config: Config }) {
  app.decorateRequest('team', null);
  const teamOf = (request: FastifyRequest): TeamView => {
    if (request.team === null) throw new Error('route has no team resolution step');
    return request.team;
  };
  const params = (request: FastifyRequest) => request.params as Record<string, string>;
  /** D4 step 7: `{team}` names a team the caller belongs to (404 otherwise). */
  const resolveTeam = async (request: FastifyRequest) => {
    request.team = await teams.resolveTeam(callerOf(request), pathId(params(request).team!));
  };
  /** Steps 7 then 8: the team, then the caller's role in it. */
  const resolveTeamFor = (allowed: typeof OWNER_ONLY) => async (request: FastifyRequest) => {
    await resolveTeam(request);
    requireRole(teamOf(request), allowed);
  };

  // --- the caller --------------------------------------------------------------------------
  const userTags = ['user'];

  app.get('/user', {
    config: { ability: 'read' },
    schema: { tags: userTags, summary: "The caller's profile", response: { 200: ProfileResponse } },
    handler: async (request) => ({ data: await teams.profile(callerOf(request)) }),
  });

  app.put('/user', {
    config: { ability: 'write' },
    schema: { tags: userTags, summary: "Change the caller's name", body: UpdateProfileBody, response: { 200: ProfileResponse } },
    handler: async (request) => ({ data: await teams.updateProfile(credentialOf(request), request.body.name) }),
  });

  app.put('/user/current-team', {
    config: { ability: 'write', notFoundWhen: 'The caller is not a member of the team `team_id` names.' },
    schema: { tags: userTags, summary: "Change the caller's current team", body: CurrentTeamBody, response: { 200: ProfileResponse } },
    handler: async (request) => ({ data: await teams.switchCurrentTeam(credentialOf(request), request.body.team_id) }),
  });

  // --- teams -------------------------------------------------------------------------------
  const tags = ['teams'];

  app.get('/teams', {
    config: teamRead,
    schema: { tags, summary: "The caller's teams, with their role in each", response: { 200: TeamListResponse } },
    handler: async (request) => ({ data: await teams.listTeams(callerOf(request)) }),
  });

  app.post('/teams', {
    config: { ...teamWrite, forbiddenWhen: ["the user's plan is not Business or Enterprise"] },
    schema: {
      tags,
      summary: 'Create a team; the caller becomes its owner and it becomes their current team',
      body: TeamBody,
      response: { 201: CreateTeamResponse },
    },
    preValidation: async (request) => teams.requireTeamPlan(callerOf(request)),
    handler: async (request, reply) => {
      const team = await teams.createTeam(credentialOf(request), request.body.name);
      return reply.code(201).send({ team, message: MESSAGES.teamCreated });
    },
  });

  app.get('/teams/:team', {
    config: teamRead,
    schema: { tags, summary: 'A team and its members', params: TeamParams, response: { 200: TeamWithMembersResponse } },
    preValidation: resolveTeam,
    handler: async (request) => teams.showTeam(teamOf(request)),
  });

  app.put('/teams/:team', {
    config: { ...teamWrite, forbiddenWhen: [ROLE_403] },
    schema: { tags, summary: 'Rename a team (owner or admin)', params: TeamParams, body: TeamBody, response: { 200: TeamResponse } },
    preValidation: resolveTeamFor(OWNER_OR_ADMIN),
    handler: async (request) => ({ data: await teams.renameTeam(credentialOf(request), teamOf(request).id, request.body.name) }),
  });

  app.delete('/teams/:team', {
    config: { ...teamWrite, forbiddenWhen: [ROLE_403, 'a personal team cannot be deleted'] },
    schema: {
      tags,
      summary: 'Delete a team with its projects and their reports (owner)',
      params: TeamParams,
      response: { 200: MessageResponse },
    },
    preValidation: async (request) => {
      await resolveTeamFor(OWNER_ONLY)(request);
      requireDeletable(teamOf(request));
    },
    handler: async (request) => {
      await teams.deleteTeam(credentialOf(request), teamOf(request).id);
      return { message: MESSAGES.teamDeleted };
    },
  });

  app.post('/teams/:team/transfer', {
    config: { ...teamAdmin, forbiddenWhen: [ROLE_403, 'a personal team cannot be transferred (D34)'] },
    schema: {
      tags,
      summary: 'Hand a shared team to another member (owner); the previous owner becomes admin',
      params: TeamParams,
      body: TransferBody,
      response: { 200: TeamResponse },
    },
    preValidation: async (request) => {
      await resolveTeamFor(OWNER_ONLY)(request);
      requireTransferable(teamOf(request));
    },
    handler: async (request) => ({ data: await teams.transferTeam(credentialOf(request), teamOf(request).id, request.body.user_id) }),
  });

  // --- members -----------------------------------------------------------------------------
  const memberForbidden = [
    ROLE_403,
    'an admin may not change or remove the owner or another admin; the owner cannot leave, be removed or change their own role',
  ];

  app.put('/teams/:team/members/:user', {
    config: { ...teamAdmin, forbiddenWhen: memberForbidden },
    schema: {
      tags,
      summary: "Change a member's role (owner or admin)",
      params: MemberParams,
      body: MemberRoleBody,
      response: { 200: MemberResponse },
    },
    preValidation: async (request) => {
      await resolveTeam(request);
      await teams.checkRoleChange(callerOf(request), teamOf(request), pathId(params(request).user!));
    },
    handler: async (request) => ({
      data: await teams.changeRole(credentialOf(request), teamOf(request).id, pathId(params(request).user!), request.body.role),
    }),
  });

  app.delete('/teams/:team/members/:user', {
    // E4: `write` to leave; removing someone else takes `admin` (checked with the path, below).
    config: {
      ...teamWrite,
      abilityFor: (request) => (params(request).user === String(request.caller?.userId) ? 'write' : 'admin'),
      forbiddenWhen: [...memberForbidden, "removing another member needs the token's 'admin' ability"],
    },
    schema: {
      tags,
      summary: 'Remove a member (owner or admin), or leave the team (yourself)',
      params: MemberParams,
      response: { 200: MessageResponse },
    },
    preValidation: async (request) => {
      await resolveTeam(request);
      await teams.checkRemoval(callerOf(request), teamOf(request), pathId(params(request).user!));
    },
    handler: async (request) => {
      const { left } = await teams.removeMember(credentialOf(request), teamOf(request).id, pathId(params(request).user!));
      return { message: left ? MESSAGES.left : MESSAGES.memberRemoved };
    },
  });

  // --- a team's invitations ----------------------------------------------------------------

  app.post('/teams/:team/invitations', {
    config: { ...teamAdmin, forbiddenWhen: [ROLE_403] },
    schema: {
      tags,
      summary: 'Invite someone by email (owner or admin); replaces a pending invitation of that email',
      params: TeamParams,
      body: InviteBody,
      response: { 201: InvitationResponse },
    },
    preValidation: resolveTeamFor(OWNER_OR_ADMIN),
    handler: async (request, reply) => {
      const invitation = await teams.invite(credentialOf(request), teamOf(request).id, request.body);
      return reply.code(201).send({ invitation, message: MESSAGES.invited });
    },
  });

  app.get('/teams/:team/invitations', {
    config: { ...teamRead, forbiddenWhen: [ROLE_403] },
    schema: {
      tags,
      summary: "The team's pending invitations (owner or admin)",
      params: TeamParams,
      response: { 200: InvitationListResponse },
    },
    preValidation: resolveTeamFor(OWNER_OR_ADMIN),
    handler: async (request) => ({ data: await teams.listTeamInvitations(teamOf(request)) }),
  });

  app.delete('/teams/:team/invitations/:id', {
    config: { ...teamAdmin, forbiddenWhen: [ROLE_403] },
    schema: {
      tags,
      summary: 'Cancel a pending invitation (owner or admin)',
      params: TeamInvitationParams,
      response: { 200: MessageResponse },
    },
    preValidation: async (request) => {
      await resolveTeam(request);
      await teams.checkTeamInvitation(teamOf(request), pathId(params(request).id!));
      requireRole(teamOf(request), OWNER_OR_ADMIN);
    },
    handler: async (request) => {
      await teams.cancelInvitation(credentialOf(request), teamOf(request).id, pathId(params(request).id!));
      return { message: MESSAGES.invitationCancelled };
    },
  });

  // --- the caller's invitations --------------------------------------------------------------
  const invitationTags = ['invitations'];

  app.get('/invitations', {
    config: { ability: 'read' },
    schema: { tags: invitationTags, summary: "Pending invitations for the caller's email", response: { 200: InvitationListResponse } },
    handler: async (request) => ({ data: await teams.listMyInvitations(callerOf(request)) }),
  });

  app.post('/invitations/:id/accept', {
    config: { ability: 'write' },
    schema: {
      tags: invitationTags,
      summary: 'Accept an invitation: join the team with the invited role',
      params: InvitationParams,
      response: { 200: TeamResponse },
    },
    handler: async (request) => ({ data: await teams.acceptInvitation(credentialOf(request), pathId(params(request).id!)) }),
  });

  app.post('/invitations/:id/decline', {
    config: { ability: 'write' },
    schema: { tags: invitationTags, summary: 'Decline an invitation', params: InvitationParams, response: { 200: MessageResponse } },
    handler: async (request) => {
      await teams.declineInvitation(credentialOf(request), pathId(params(request).id!));
      return { message: MESSAGES.invitationDeclined };
    },
  });
}
