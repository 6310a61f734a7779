import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { failuresRoutes } from './failures.routes.js';
import { createFailuresService } from './failures.service.js';

/** CLIENT-WIRE.md: the client's failed runs, and their list per project. */
export function failuresModule(deps: { db: Db; clock: Clock; config: Config; projects: Pick<ProjectsService, 'resolveProject'> }) {
  const service = createFailuresService(deps);
  return {
    service,
    routes: (app: Parameters<typeof failuresRoutes>[0]) =>
      failuresRoutes(app, { failuresService: service, projectsService: deps.projects, config: deps.config }),
  };
}
