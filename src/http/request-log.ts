import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { redactUrl } from './logging.js';

/**
 * What one answered request is logged as, in place of Fastify's two lines ("incoming request",
 * "request completed") that carry neither the route nor who called: the method, the route pattern
 * (`/api/v1/projects/:project`, null for an unknown path), the URL as it may be logged (tokens
 * redacted), the status, the time to answer, and whom it was for — the user of a personal access
 * token, the project of a path or of a project token, the team of a path. Never a token: only ids.
 */
export interface RequestLogLine {
  method: string;
  route: string | null;
  url: string;
  status: number;
  duration_ms: number;
  user_id?: number;
  project_id?: string;
  team_id?: number;
}

export const REQUEST_LOG_MESSAGE = 'request completed';

export function requestLogLine(request: FastifyRequest, reply: FastifyReply): RequestLogLine {
  const line: RequestLogLine = {
    method: request.method,
    route: request.routeOptions.url ?? null,
    url: redactUrl(request.url),
    status: reply.statusCode,
    duration_ms: Math.round(reply.elapsedTime * 10) / 10,
  };
  // The decorations below belong to plugins that may not have seen this request (an unknown path, a
  // request refused before identification): each is read only when it was set.
  const userId = request.caller?.userId;
  if (userId !== undefined) line.user_id = userId;
  const projectId = request.project?.id ?? request.clientProject?.project.id;
  if (projectId !== undefined) line.project_id = projectId;
  const teamId = request.team?.id;
  if (teamId !== undefined) line.team_id = teamId;
  return line;
}

/** One info line per answered request (the app is built with Fastify's own request logging off). */
export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(requestLogLine(request, reply), REQUEST_LOG_MESSAGE);
  });
}
