import type { Config } from '../config.js';
import type { App } from '../http/app-types.js';
import { callerOf } from '../auth/caller.js';
import { publicUrl } from '../http/public-url.js';
import { OWNER_OR_ADMIN, pathId } from '../teams/team-rules.js';
import type { TeamsService } from '../teams/teams.service.js';
import { AuditEventListResponse, AuditQuery, TeamAuditParams } from './audit.schemas.js';
import type { AuditService } from './audit.service.js';

/** E5: the audit lists. Events are append-only: there is no route that changes or deletes one. */
export async function auditRoutes(app: App, deps: { auditService: AuditService; teamsService: TeamsService; config: Config }) {
  const { auditService: audit, teamsService: teams, config } = deps;
  const tags = ['audit'];

  app.get('/teams/:team/audit-events', {
    // D7 applies to /teams*; owner or admin, else 403 (after the 404 of a team the caller is not in).
    config: { ability: 'read', subscription: true, forbiddenWhen: ['the caller is a member without the owner or admin role'] },
    schema: {
      tags,
      summary: "The team's audit events, newest first (owner or admin)",
      params: TeamAuditParams,
      querystring: AuditQuery,
      response: { 200: AuditEventListResponse },
    },
    preValidation: async (request) => {
      const { team } = request.params as { team: string };
      await teams.resolveTeam(callerOf(request), pathId(team), OWNER_OR_ADMIN);
    },
    handler: async (request) => {
      const teamId = pathId(request.params.team);
      const query = { page: request.query.page ?? 1, action: request.query.action };
      return audit.teamEvents(teamId, query, publicUrl(config, request, `/api/v1/teams/${teamId}/audit-events`));
    },
  });

  app.get('/user/audit-events', {
    // No subscription (E4/E5: /user* stays open to a lapsed user, like their tokens).
    config: { ability: 'read' },
    schema: {
      tags,
      summary: "The caller's own actions and the events about their tokens, newest first",
      querystring: AuditQuery,
      response: { 200: AuditEventListResponse },
    },
    handler: async (request) => {
      const query = { page: request.query.page ?? 1, action: request.query.action };
      return audit.userEvents(callerOf(request), query, publicUrl(config, request, '/api/v1/user/audit-events'));
    },
  });
}
