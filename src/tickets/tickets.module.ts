import type { ProviderHttp } from '../connections/provider-http.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { IssuesService } from '../issues/issues.service.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { ticketsRoutes } from './tickets.routes.js';
import { createTicketsService } from './tickets.service.js';

/** E9.3, E9.4: a project's tracker, and its issues turned into tickets there. */
export function ticketsModule(deps: {
  db: Db;
  clock: Clock;
  config: Config;
  secrets: SecretBox;
  projects: Pick<ProjectsService, 'resolveProject' | 'lockForWrite' | 'linkTracker'>;
  issues: Pick<IssuesService, 'assertHeld' | 'heldIssues' | 'recordTicketed'>;
  /** The client every provider call goes through (connections/provider-http.ts), closed by its owner. */
  http: ProviderHttp;
}) {
  const service = createTicketsService(deps);
  return {
    service,
    routes: async (app: Parameters<typeof ticketsRoutes>[0]) => {
      await ticketsRoutes(app, {
        ticketsService: service,
        projectsService: deps.projects,
        issuesService: deps.issues,
        config: deps.config,
      });
    },
  };
}
