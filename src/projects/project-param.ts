import type { FastifyRequest } from 'fastify';
import { callerOf } from '../auth/caller.js';
import type { ProjectAction } from './permissions.js';
import type { ProjectsService, ResolvedProject } from './projects.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The `{project}` of the URL, resolved for the caller before the body is validated (D4 step 7). */
    project: ResolvedProject | null;
  }
}

/**
 * A preValidation step for routes under `/projects/{project}`: answers 404 (D4 step 7) before any
 * 422 when the project does not exist or the caller may not perform `action` on it (D15).
 */
export const resolveProjectParam =
  (projects: Pick<ProjectsService, 'resolveProject'>, action: ProjectAction) => async (request: FastifyRequest) => {
    const { project } = request.params as { project: string };
    request.project = await projects.resolveProject(callerOf(request), project, action);
  };

/** The project resolved by `resolveProjectParam`. */
export function projectOf(request: FastifyRequest): ResolvedProject {
  if (request.project === null) throw new Error('route has no resolveProjectParam step');
  return request.project;
}
