import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { ProviderHttp } from '../connections/provider-http.js';
import type { Db } from '../db/database.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { createCodeHostFeedback } from './code-host-feedback.js';
import { codeHostRoutes } from './code-host.routes.js';
import { createCodeHostService } from './code-host.service.js';

/** E10: a project's code host, and the feedback its reports leave there (through the outbox). */
export function codeHostModule(deps: {
  db: Db;
  clock: Clock;
  config: Config;
  secrets: SecretBox;
  projects: Pick<ProjectsService, 'resolveProject' | 'lockForWrite'>;
  /** The client every provider call goes through (connections/provider-http.ts), closed by its owner. */
  http: ProviderHttp;
}) {
  const service = createCodeHostService(deps);
  const feedback = createCodeHostFeedback(deps);
  return {
    service,
    feedback,
    routes: async (app: Parameters<typeof codeHostRoutes>[0]) => {
      await codeHostRoutes(app, { codeHostService: service, projectsService: deps.projects, config: deps.config });
    },
  };
}
