import type { FastifyRequest } from 'fastify';
import { bearerValue } from '../auth/identify-caller.js';
import { hashToken } from '../auth/token-hash.js';
import {
  isWellFormedProjectApiToken,
  projectTokenCredential,
  type ProjectsOn,
  type ProjectTokenCredential,
} from '../projects/project-api-token.js';
import type { ProjectsRepository, ProjectWithLatestReport } from '../projects/projects.repository.js';

/** The project a client-package request authenticates as, and the credential its writes recheck (D22). */
export interface IdentifiedProject {
  project: ProjectWithLatestReport;
  credential: ProjectTokenCredential;
}

/**
 * D10 for the client package: the project whose API token is the bearer value, compared through its
 * hash, so a regenerated-away token is refused at once on every instance. Never rejects: the caller
 * decides (rate limit first, then 401). A value without the token's shape (including the bare
 * `Bearer` the client sends when no token is configured) is dismissed without a database lookup.
 */
export function createProjectIdentifier(deps: { projects: Pick<ProjectsRepository, 'findByApiTokenHash'>; projectsOn: ProjectsOn }) {
  return async function identifyProject(request: FastifyRequest): Promise<IdentifiedProject | null> {
    const token = bearerValue(request.headers.authorization);
    if (token === null || !isWellFormedProjectApiToken(token)) return null;
    const tokenHash = hashToken(token);
    const project = await deps.projects.findByApiTokenHash(tokenHash);
    return project ? { project, credential: projectTokenCredential(tokenHash, deps.projectsOn) } : null;
  };
}
