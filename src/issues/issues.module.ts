import type { ProjectContentsDeps } from '../projects/projects.service.js';
import { issuesRoutes } from './issues.routes.js';
import { createIssuesService, type IssuesAssigned, type RecordEvents } from './issues.service.js';

/** E8.2, E8.8: deciding about a project's issues, and the issues assigned to a user. */
export function issuesModule(deps: ProjectContentsDeps & { recordEvents: RecordEvents; issuesAssigned?: IssuesAssigned }) {
  const service = createIssuesService({ ...deps, projectForWrite: deps.projects.lockForWrite });
  return {
    service,
    routes: (app: Parameters<typeof issuesRoutes>[0]) =>
      issuesRoutes(app, { issuesService: service, projectsService: deps.projects, config: deps.config }),
  };
}
