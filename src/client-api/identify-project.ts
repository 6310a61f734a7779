import type { FastifyRequest } from 'fastify';
import { bearerValue } from '../auth/identify-caller.js';
import { hashToken } from '../auth/token-hash.js';
import { isWellFormedProjectApiToken } from '../projects/project-api-token.js';
import type { ProjectsRepository, ProjectWithLatestReport } from '../projects/projects.repository.js';

/**
 * D10 for the client package: the project whose API token is the bearer value, compared through its
 * hash, so a regenerated-away token is refused at once on every instance. Never rejects: the caller
 * decides (rate limit first, then 401). A value without the token's shape (including the bare
 * `Bearer` the client sends when no token is configured) is dismissed without a database lookup.
 */
export function createProjectIdentifier(projects: Pick<ProjectsRepository, 'findByApiTokenHash'>) {
  return async function identifyProject(request: FastifyRequest): Promise<ProjectWithLatestReport | null> {
    const token = bearerValue(request.headers.authorization);
    if (token === null || !isWellFormedProjectApiToken(token)) return null;
    return (await projects.findByApiTokenHash(hashToken(token))) ?? null;
  };
}
