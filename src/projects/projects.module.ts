import type { Config } from '../config.js';
import { projectsRoutes } from './projects.routes.js';
import { createProjectsService, type ProjectsServiceDeps } from './projects.service.js';

/** D10, D14, D15: projects, their settings and their upload tokens. */
export function projectsModule(deps: ProjectsServiceDeps & { config: Config }) {
  const service = createProjectsService(deps);
  return {
    service,
    routes: (app: Parameters<typeof projectsRoutes>[0]) => projectsRoutes(app, { projectsService: service, config: deps.config }),
  };
}
