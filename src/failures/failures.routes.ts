import type { Config } from '../config.js';
import type { App } from '../http/app-types.js';
import { SUBSCRIBED } from '../http/route-kind.js';
import { publicUrl } from '../http/public-url.js';
import { PageQuery, Paginated } from '../wire/pagination.js';
import { projectOf, resolveProjectParam } from '../projects/project-param.js';
import { ProjectParams } from '../projects/projects.schemas.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { RunFailure } from './failures.schemas.js';
import type { FailuresService } from './failures.service.js';

export async function failuresRoutes(
  app: App,
  deps: { failuresService: FailuresService; projectsService: Pick<ProjectsService, 'resolveProject'>; config: Config },
) {
  const { failuresService: failures, projectsService: projects, config } = deps;

  app.get('/projects/:project/failures', {
    config: SUBSCRIBED.read,
    schema: {
      tags: ['reports'],
      summary: "List a project's failed analysis runs, newest first",
      params: ProjectParams,
      querystring: PageQuery,
      response: { 200: Paginated(RunFailure) },
    },
    preValidation: resolveProjectParam(projects, 'view'),
    handler: async (request) => {
      const project = projectOf(request);
      const path = publicUrl(config, request, `/api/v1/projects/${project.id}/failures`);
      return failures.listFailures(project.id, request.query.page ?? 1, path);
    },
  });
}
