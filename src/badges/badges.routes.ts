import type { FastifyRequest } from 'fastify';
import { credentialOf } from '../auth/write-credential.js';
import type { Config } from '../config.js';
import type { App } from '../http/app-types.js';
import { SUBSCRIBED } from '../http/route-kind.js';
import { publicUrl } from '../http/public-url.js';
import { projectOf, resolveProjectParam } from '../projects/project-param.js';
import { ProjectParams } from '../projects/projects.schemas.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { BadgeUrlsResponse, type BadgeUrls } from './badges.schemas.js';
import type { BadgesService } from './badges.service.js';

/**
 * E2.2 under /api/v1: a project's badge URLs, and a new badge key.
 * Badge routes are project routes: an active subscription (D7), and the project's permissions (D15).
 */
export async function badgesRoutes(
  app: App,
  deps: { badgesService: BadgesService; projectsService: Pick<ProjectsService, 'resolveProject'>; config: Config },
) {
  const { badgesService: badges, projectsService: projects, config } = deps;
  const tags = ['badges'];

  // Absolute, like D16's links: PUBLIC_URL, else the request's scheme and host.
  const urlsOf = (request: FastifyRequest, key: string): BadgeUrls => ({
    score_svg: publicUrl(config, request, `/badges/${key}/score.svg`),
    gate_svg: publicUrl(config, request, `/badges/${key}/gate.svg`),
    score_json: publicUrl(config, request, `/badges/${key}/score.json`),
  });

  app.get('/projects/:project/badges', {
    config: SUBSCRIBED.read,
    schema: { tags, summary: "The project's public badge URLs", params: ProjectParams, response: { 200: BadgeUrlsResponse } },
    preValidation: resolveProjectParam(projects, 'view'),
    handler: async (request) => ({ data: urlsOf(request, await badges.keyOf(projectOf(request).id)) }),
  });

  // Like regenerate-token: D15's update permission.
  app.post('/projects/:project/badges/regenerate', {
    config: SUBSCRIBED.write,
    schema: {
      tags,
      summary: 'Issue a new badge key; the old badge URLs answer 404 at once',
      params: ProjectParams,
      response: { 200: BadgeUrlsResponse },
    },
    preValidation: resolveProjectParam(projects, 'update'),
    handler: async (request) => ({ data: urlsOf(request, await badges.regenerateKey(credentialOf(request), projectOf(request).id)) }),
  });
}
