import type { Config } from '../config.js';
import type { App } from '../http/app-types.js';
import { callerOf } from '../auth/caller.js';
import { publicUrl } from '../http/public-url.js';
import type { Caller } from '../auth/caller.js';
import { AuditEventListResponse, AuditQuery, TeamAuditParams } from './audit.schemas.js';
import type { AuditService } from './audit.service.js';

/** E5: the audit lists. Events are append-only: there is no route that changes or deletes one. */
/** What the team audit list needs of teams/: the `{team}` id, and the caller's owner or admin role there (else 404, 403). */
export interface TeamManagerCheck {
  teamIdOf(param: string): number;
  requireManager(caller: Caller, teamId: number): Promise<unknown>;
}

export async function auditRoutes(app: App, deps: { auditService: AuditService; teams: TeamManagerCheck; config: Config }) {
  const { auditService: audit, teams, config } = deps;
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
      await teams.requireManager(callerOf(request), teams.teamIdOf(team));
    },
    handler: async (request) => {
      const teamId = teams.teamIdOf(request.params.team);
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
